"""TLB-aware chase (Saavedra & Smith's page-stride walk): TLB levels, their reach, the page size.

One work item walks a random ring of ``pages`` slots placed ``stride`` bytes apart: with a stride
at least the page size every step is on another page, so the walk touches ``pages`` pages while
its data is only ``pages`` cache lines (slot i sits ``i mod (stride/128)`` lines into its stride,
so the lines spread over the cache sets as a packed array's do). The latency steps up when the
pages pass a TLB level's entries; below the page size the step moves to ``pages = reach/stride``.
``stride=128`` is the control: the same number of lines packed into a few pages, so the data
caches alone; the analysis subtracts it, and what is left is address translation.

Strides 4 KiB … 32 MiB on a GPU (2 MiB pages on NVIDIA; 4 MiB … 32 MiB tell a 2 MiB page from
larger ones), 4 KiB … 4 MiB on a CPU (4 KiB pages, 2 MiB huge pages); pages 1 … 16 Ki, two per
octave, as long as ``pages × stride`` fits the budget (16 GiB on a GPU, 1 GiB on a CPU, both
capped by the device's largest buffer and a quarter of its memory). The ring is 64-bit (walks past
8 GiB) and built on the device: a loopy kernel fills the buffer with valid random-looking indices,
another scatters the ring's links into it; the host never holds gigabytes. Each point is checked
against the walk the host expects before it is timed (the engine's timing: warm-up, probe,
calibrated samples; 10 of them, a chase's spread being a fraction of a percent).
"""

import dataclasses

import numpy as np

from gencl.spec import BenchmarkSpec
from gencl.spec.pointer_chase import (
    fill_program, links, page_stride_slots, ring_order, scatter_program, walk_program,
    walk_reference)

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
LINE = 128
CONTROL = LINE
GPU_STRIDES = (4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, MIB, 2 * MIB, 4 * MIB, 8 * MIB, 32 * MIB)
CPU_STRIDES = (4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, MIB, 2 * MIB, 4 * MIB)
#: pages visited, two per octave: 1, 2, 3, 4, 6, 8, 12, … 12 Ki, 16 Ki
PAGES = tuple(sorted({1, *[2 ** k for k in range(1, 15)], *[3 * 2 ** k for k in range(0, 13)]}))
BUDGET = {"GPU": 16 * GIB, "CPU": GIB}
QUICK_BUDGET = 64 * MIB
WORD = 8  # int64 ring entries


def _is_gpu(device):
    return device is not None and device.device_type.upper() == "GPU"


def budget_bytes(device, quick=False):
    """Largest walk (pages × stride) on *device*: the kind's budget, ≤ its largest buffer and a
    quarter of its memory."""
    if device is None:
        return BUDGET["GPU"]
    cap = QUICK_BUDGET if quick else BUDGET["GPU" if _is_gpu(device) else "CPU"]
    return int(min(cap, device.max_alloc_bytes, device.global_mem_bytes // 4))


def program(point):
    return walk_program("global", name="tlb_walk", index_dtype=np.int64)


#: samples per point: a pointer chase's spread is a fraction of a percent, and the sweep is long
REPEATS = 10


def _steps(pages, quick):
    return 2048 if quick else int(min(32 * KIB, max(16 * KIB, 2 * pages)))


def sizes(point, device, quick):
    """``n`` entries of the walked array, ``K`` steps per launch (≥ 2 passes, 16 Ki … 32 Ki)."""
    stride = point["stride"]
    return {"n": point["pages"] * stride // WORD, "K": _steps(point["pages"], quick),
            "pages": point["pages"], "stride": stride}


def verify_sizes(point, device):
    """The same program on a small ring: at most 8 pages, strides capped at 64 KiB."""
    pages, stride = min(point["pages"], 8), min(point["stride"], 64 * KIB)
    return {"n": pages * stride // WORD, "K": 3 * pages + 1, "pages": pages, "stride": stride}


def ring_positions(pages, stride, rng):
    """Element positions of the walked slots in visiting order (a random ring from slot 0)."""
    slots = page_stride_slots(pages, stride // WORD, LINE // WORD)
    return slots[ring_order(pages, rng)]


def inputs(point, sizes, rng):
    n = sizes["n"]
    nxt = rng.integers(0, n, size=n, dtype=np.int64)
    where, value = links(ring_positions(sizes["pages"], sizes["stride"], rng))
    nxt[where] = value
    return {"nxt": nxt, "state": np.array([0], dtype=np.int64)}


def reference(values, point, sizes):
    return walk_reference(values, sizes["K"])


def steps(point, sizes):
    return sizes["K"]


def _in_budget(point, device):
    if point["stride"] not in (CONTROL, *(GPU_STRIDES if device is None or _is_gpu(device)
                                          else CPU_STRIDES)):
        return f"stride {point['stride']} B is not walked on this device"
    if point["pages"] * point["stride"] > budget_bytes(device):
        return (f"{point['pages']} pages × {point['stride']} B above this device's budget of "
                f"{budget_bytes(device)} B")
    return None


# {{{ the runner: rings built on the device

def _helper(spec, name, make):
    """A one-kernel spec for a helper program (fill, scatter), so the engine builds it."""
    from gencl.generate import generate

    sub = dataclasses.replace(spec, name=f"{spec.name}_{name}", program=lambda _p: make(),
                              knobs={}, sweep=(), quick_sweep=())
    return generate(sub, spec.complete({}))


def _args(variant, by_name):
    return [by_name[a.name] for a in variant.args]


def _launch(engine, built, by_name, work_items):
    import pyopencl as cl

    local = int(built.variant.local_size[0])
    kernel = built.kernel
    kernel.set_args(*_args(built.variant, by_name))
    return cl.enqueue_nd_range_kernel(engine.queue, kernel, (-(-work_items // local) * local,),
                                      (local,))


def run(engine, spec, points, quick):
    """Fill one buffer for the largest walk on the device, then per point: scatter its ring,
    check one walk against the host's, time it with the engine."""
    import pyopencl as cl

    from gencl.generate import generate
    from gencl.measure import Measurement
    from gencl.measure._engine import Bound

    if not points:
        return []
    limit = budget_bytes(engine.info, quick)
    walk = generate(spec, spec.complete(points[0]))
    out = []
    n = max((p["pages"] * p["stride"] // WORD for p in points
             if p["pages"] * p["stride"] <= limit), default=1)
    mf = cl.mem_flags
    try:
        built = engine.build(walk)
        fill = engine.build(_helper(spec, "fill", fill_program))
        scatter = engine.build(_helper(spec, "scatter", scatter_program))
        nxt = cl.Buffer(engine.ctx, mf.READ_WRITE, n * WORD)
        _launch(engine, fill, {"nxt": nxt, "n": np.int64(n)}, n).wait()
        state = cl.Buffer(engine.ctx, mf.READ_WRITE, WORD)
    except Exception as exc:  # noqa: BLE001 -- recorded on every point
        from gencl.measure._measurement import device_error_status

        engine.reset()
        status = getattr(exc, "status", None) or device_error_status(exc)
        why = getattr(exc, "reason", None) or f"{type(exc).__name__}: {str(exc)[:300]}"
        return [Measurement(f"{spec.name}-{p['stride']}-{p['pages']}", spec.name, dict(p),
                            sizes(p, engine.info, quick), status, f"setup: {why}")
                for p in points]
    rng = np.random.default_rng(0)
    for point in points:
        sz = sizes(point, engine.info, quick)
        vid = f"{spec.name}-{point['stride']}-{point['pages']}"
        if point["pages"] * point["stride"] > limit:
            out.append(Measurement(vid, spec.name, dict(point), sz, "excluded",
                                   f"{point['pages'] * point['stride']} B above this run's "
                                   f"budget of {limit} B"))
            continue
        try:
            positions = ring_positions(point["pages"], point["stride"], rng)
            where, value = links(positions)
            dev_where = cl.Buffer(engine.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=where)
            dev_value = cl.Buffer(engine.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=value)
            _launch(engine, scatter, {"nxt": nxt, "where": dev_where, "value": dev_value,
                                      "n": np.int64(n), "m": np.int32(len(where))},
                    len(where)).wait()
            dev_where.release()
            dev_value.release()
            start = np.array([positions[0]], dtype=np.int64)
            check_steps = 2 * point["pages"] + 3
            cl.enqueue_copy(engine.queue, state, start)
            bound = Bound([_args(built.variant, {"nxt": nxt, "state": state,
                                                 "n": np.int64(n), "K": np.int32(check_steps)})],
                          {"state": state}, {"state": (np.dtype(np.int64), 1)}, (1,), (1,), 0)
            engine.run_once(built, bound)
            got = engine.read_outputs(bound)["state"][0]
            want = positions[check_steps % point["pages"]]
            if got != want:
                out.append(Measurement(vid, spec.name, dict(point), sz, "wrong_answer",
                                       f"walk ended at {got}, expected {want}",
                                       source_hash=walk.source_hash))
                continue
            bound.arg_sets = [_args(built.variant, {"nxt": nxt, "state": state,
                                                    "n": np.int64(n), "K": np.int32(sz["K"])})]
            timing = engine.time(built, bound, repeats=min(engine.repeats, REPEATS))
        except Exception as exc:  # noqa: BLE001 -- one point's failure must not end the run
            from gencl.measure._measurement import device_error_status

            engine.reset()
            out.append(Measurement(vid, spec.name, dict(point), sz, device_error_status(exc),
                                   f"{type(exc).__name__}: {str(exc)[:300]}",
                                   source_hash=walk.source_hash))
            continue
        samples = timing.pop("samples_s")
        out.append(Measurement.timed(
            vid, spec.name, dict(point), sz, samples, work={"steps": float(sz["K"])},
            max_error=0.0, source_hash=walk.source_hash, binary_hash=built.binary_hash,
            extra={"ring": "built on the device", "buffer_bytes": n * WORD}, **timing))
    nxt.release()
    state.release()
    return out

# }}}


def _sweep(strides):
    return [{"stride": s, "pages": p} for s in (CONTROL, *strides) for p in PAGES]


SPEC = BenchmarkSpec(
    name="tlb_chase",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"stride": tuple(sorted({CONTROL, *GPU_STRIDES, *CPU_STRIDES})), "pages": PAGES},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"steps": steps},
    sweep=_sweep(sorted(set(GPU_STRIDES) | set(CPU_STRIDES))),
    quick_sweep=[{"stride": s, "pages": p} for s in (CONTROL, 4 * KIB, 64 * KIB, MIB)
                 for p in (1, 4, 16, 64, 256) if s * p <= QUICK_BUDGET],
    constraints=[_in_budget],
    runner=run,
    analysis="tlb_chase",
    group="memory",
    tolerance={"int64": 0.0},
)
