"""Runtime overheads (seed 003 §2.4): compile time vs kernel source size, and the cost of an empty
kernel launch (QUEUED→START, enqueue→completion, back-to-back interval).

A benchmark of the runtime, measured by the spec's ``runner``. The kernels come from one loopy
program, a chain of ``terms`` unrolled multiply-adds (the source grows by a line per term); each
compile gets a unique comment appended so neither pyopencl's, PoCL's nor NVIDIA's binary cache can
answer. The "empty" kernel is the one-term program launched on one work-group with ``flag = 0``
guarding its only store. Compile time is clBuildProgram plus kernel creation, host wall clock
(PoCL finishes code generation lazily at the first launch, so its figure is a lower bound).
"""

import time
import uuid

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec

TERMS = (1, 32, 128, 256)
TESTS = ("compile", "launch_queued_to_start", "launch_roundtrip", "launch_back_to_back")


def program(point):
    knl = lp.make_kernel(
        "{[i, t]: 0 <= i < n and 0 <= t < T}",
        """
        for i
            <> acc = 0 {id=init}
            for t
                acc = acc * b + src[t, i] {id=chain, dep=init}
            end
            dst[i] = acc {if=flag, dep=chain}
        end
        """,
        [lp.GlobalArg("src", np.float32, shape=("T", "n")),
         lp.GlobalArg("dst", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("b", np.float32), lp.ValueArg("flag", np.int32), lp.ValueArg("n", np.int32)],
        name="overhead", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = lp.fix_parameters(knl, T=point["terms"])
    knl = lp.split_iname(knl, "i", 64, outer_tag="g.0", inner_tag="l.0")
    return lp.tag_inames(knl, {"t": "unr"})


def sizes(point, device, quick):
    return {"n": 64}


def inputs(point, sizes, rng):
    return {"src": rng.standard_normal((point["terms"], sizes["n"])).astype(np.float32),
            "b": np.float32(0.5), "flag": 1}


def reference(values, point, sizes):
    acc = np.zeros(sizes["n"], np.float32)
    for row in values["src"]:
        acc = (acc * np.float32(values["b"]) + row).astype(np.float32)
    return {"dst": acc}


def _compile_times(engine, source, reps):
    import pyopencl as cl

    times = []
    for _ in range(reps):
        unique = f"{source}\n// gencl compile-time probe {uuid.uuid4().hex}\n"
        start = time.perf_counter()
        cl.Program(engine.ctx, unique).build(options=engine.build_options or []).all_kernels()
        times.append(time.perf_counter() - start)
    return times


def _launch_times(engine, kernel, test, reps):
    """*reps* samples of one launch test, in a tight loop as clpeak's."""
    import pyopencl as cl

    q = engine.queue
    if test == "launch_back_to_back":
        count = 200
        out = []
        for _ in range(reps):
            q.finish()
            start = time.perf_counter()
            for _ in range(count):
                cl.enqueue_nd_range_kernel(q, kernel, (64,), (64,))
            q.finish()
            out.append((time.perf_counter() - start) / count)
        return out
    walls, dispatch = [], []
    q.finish()
    for _ in range(reps):  # clpeak 2.x: enqueue, finish, read the event (1.x the same, no wall)
        start = time.perf_counter()
        ev = cl.enqueue_nd_range_kernel(q, kernel, (64,), (64,))
        q.finish()
        walls.append(time.perf_counter() - start)
        dispatch.append((ev.profile.start - ev.profile.queued) * 1e-9)
    return walls if test == "launch_roundtrip" else dispatch


#: samples per launch test (quick, full): back to back, samples of 200 launches each; one at a
#: time, bursts of single launches spread over a second or more (below)
LAUNCH_SAMPLES = {"launch_back_to_back": (9, 25), "launch_queued_to_start": (8, 16),
                  "launch_roundtrip": (8, 16)}
#: launches per burst, and the pause between bursts. A shared machine slows a runtime's dispatch
#: in phases of seconds (PoCL on the 2-core VM: medians of 18–23 µs in quiet phases, 35–45 µs in
#: busy ones, clpeak alike): the figure is the median of the quietest burst — the device's own
#: latency — and every burst's median is kept beside it
BURST, BURST_PAUSE_S = 50, 0.15


def _launch_bursts(engine, kernel, test, bursts):
    """(samples of the burst with the lowest median, every burst's median)."""
    runs = []
    for b in range(bursts):
        if b:
            time.sleep(BURST_PAUSE_S)
        runs.append(_launch_times(engine, kernel, test, BURST))
    medians = [float(np.median(r)) for r in runs]
    return runs[int(np.argmin(medians))], medians


def run(engine, spec, points, quick):
    """Compile each source size with unique text; launch the empty kernel every way."""
    import pyopencl as cl

    from gencl.generate import generate
    from gencl.measure import Measurement, verify_variant

    reps = 3 if quick else 5
    out = []
    for point in points:
        variant = generate(spec, point)
        sz = sizes(point, engine.info, quick)
        try:
            if point["test"] == "compile":
                samples = _compile_times(engine, variant.source, reps)
                lines = variant.source.count("\n") + 1
                extra = {"source_lines": lines}
            else:
                built = engine.build(variant)
                values = inputs(point, sz, np.random.default_rng(0))
                if verify_variant(engine, spec, built, sz, values) > 1.0:
                    out.append(Measurement(variant.id, spec.name, dict(point), sz,
                                           "wrong_answer", "empty kernel's store is wrong"))
                    continue
                mf = cl.mem_flags
                src = cl.Buffer(engine.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=values["src"])
                dst = cl.Buffer(engine.ctx, mf.WRITE_ONLY, 64 * 4)
                kernel = built.kernel
                kernel.set_args(src, dst, np.float32(0.5), np.int32(0), np.int32(64))
                _launch_times(engine, kernel, point["test"], 2)  # warm-up
                quick_reps, full_reps = LAUNCH_SAMPLES[point["test"]]
                reps = quick_reps if quick else full_reps
                extra = {"timing": "profiling events" if point["test"].endswith("start")
                         else "host wall clock"}
                if point["test"] == "launch_back_to_back":
                    samples = _launch_times(engine, kernel, point["test"], reps)
                else:
                    samples, medians = _launch_bursts(engine, kernel, point["test"], reps)
                    extra.update(burst_medians_s=medians, burst_launches=BURST)
        except Exception as exc:  # noqa: BLE001 -- a failing test must not end the run
            engine.reset()
            out.append(Measurement(variant.id, spec.name, dict(point), sz, "error",
                                   f"{type(exc).__name__}: {str(exc)[:300]}"))
            continue
        out.append(Measurement.timed(variant.id, spec.name, dict(point), sz, samples,
                                     launches_per_sample=1, attempts=1,
                                     source_hash=variant.source_hash, extra=extra))
    return out


def _launch_uses_one_term(point, device):
    if point["test"] != "compile" and point["terms"] != 1:
        return "launch tests use the one-term kernel"
    return None


SPEC = BenchmarkSpec(
    name="runtime_overhead",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"test": TESTS, "terms": TERMS},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    sweep=[{"test": "compile", "terms": t} for t in TERMS]
    + [{"test": t} for t in TESTS[1:]],
    quick_sweep=[{"test": "compile", "terms": t} for t in (1, 128)]
    + [{"test": t} for t in TESTS[1:]],
    constraints=[_launch_uses_one_term],
    runner=run,
    watch_clock=False,  # host–driver paths: an nvidia-smi probe slows them
    analysis="runtime_overhead",
    group="runtime",
    tolerance={"float32": 1e-5},
)
