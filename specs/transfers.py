"""Host↔device transfers (seed 003 §2.2): write/read buffer, map/unmap both ways, device-to-device
copy (enqueue_copy and a generated copy kernel), 4 KiB … 1 GiB (≤ 64 MiB on a CPU, ≤ 16 MiB quick).

A benchmark of the runtime, so the spec's ``runner`` measures it: write/read/copy by profiling
events (START→END of the transfer command), map/unmap by host wall clock from the map call to the
unmap's completion (a mapped transfer is map + memcpy + unmap; there is no one event for it).
Host arrays are ordinary pageable numpy memory. Each direction's data is checked once against the
source bytes; a mismatch is recorded as ``wrong_answer``.

Only the points that decide the figures are measured. The host data is one random array made
once for the largest size (every size a prefix of it: making 1 GiB of random numbers per point
was most of the run), and a direction stops growing once its bandwidth has flattened: from
256 MiB on (where the plateau figure starts, past the host's and the device's caches), a size
within 10 % of the size before it ends that direction; its last record says so
(``extra.stopped``).
"""

import time

import loopy as lp
import numpy as np

from gencl.characterize.runtime import PLATEAU_BYTES
from gencl.spec import BenchmarkSpec

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
SIZES = tuple(4 * KIB * 4 ** k for k in range(10))  # 4 KiB … 1 GiB
DIRECTIONS = ("h2d", "d2h", "map_h2d", "map_d2h", "d2d", "kernel_d2d")
#: the plateau starts here; flat = within this of the size before
FLAT_FROM, FLAT_WITHIN = PLATEAU_BYTES, 0.10


def program(point):
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", "dst[i] = src[i]",
        [lp.GlobalArg("src", np.float32, shape=("n",)),
         lp.GlobalArg("dst", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("n", np.int32)],
        name="device_copy", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")


def _limit(device, quick):
    cap = 16 * MIB if quick else (GIB if device.device_type.upper() == "GPU" else 64 * MIB)
    return min(cap, device.max_alloc_bytes // 2)


def sizes(point, device, quick):
    return {"n": point["size_bytes"] // 4}


def inputs(point, sizes, rng):
    return {"src": rng.standard_normal(sizes["n"]).astype(np.float32)}


def reference(values, point, sizes):
    return {"dst": values["src"]}


def _one(engine, direction, host, dev_a, dev_b, kernel):
    """One transfer; returns seconds."""
    import pyopencl as cl

    q = engine.queue
    if direction in ("map_h2d", "map_d2h"):
        start = time.perf_counter()
        flags = cl.map_flags.WRITE_INVALIDATE_REGION if direction == "map_h2d" \
            else cl.map_flags.READ
        mapped, _ = cl.enqueue_map_buffer(q, dev_a, flags, 0, host.shape, host.dtype)
        if direction == "map_h2d":
            mapped[...] = host
        else:
            host[...] = mapped
        mapped.base.release(q)
        q.finish()
        return time.perf_counter() - start
    if direction == "h2d":
        ev = cl.enqueue_copy(q, dev_a, host)
    elif direction == "d2h":
        ev = cl.enqueue_copy(q, host, dev_a)
    elif direction == "d2d":
        ev = cl.enqueue_copy(q, dev_b, dev_a)
    else:
        kernel.set_args(dev_a, dev_b, np.int32(host.size))
        ev = cl.enqueue_nd_range_kernel(q, kernel, kernel.gsize, kernel.lsize)
    ev.wait()
    return (ev.profile.end - ev.profile.start) * 1e-9


def flattened(bandwidths):
    """Whether the last two (size, B/s) pairs at or past ``FLAT_FROM`` agree within
    ``FLAT_WITHIN``: the curve has flattened, larger sizes would not move the plateau."""
    big = [(size, bw) for size, bw in bandwidths if size >= FLAT_FROM]
    if len(big) < 2:
        return False
    (_, before), (_, last) = big[-2:]
    return abs(last / before - 1.0) <= FLAT_WITHIN


def run(engine, spec, points, quick):
    """Time every direction from its smallest size up until its bandwidth flattens; check the
    moved bytes once per point."""
    import pyopencl as cl

    from gencl.generate import generate
    from gencl.measure import Measurement

    out = []
    variant = generate(spec, spec.complete({"direction": "kernel_d2d"}))
    built = engine.build(variant)
    kernel = built.kernel
    limit = _limit(engine.info, quick)
    largest = max((p["size_bytes"] for p in points if p["size_bytes"] <= limit), default=0)
    # one random array for every size (a prefix each): uniform floats, never zero-filled
    pool = np.random.default_rng(0).random(largest // 4, dtype=np.float32)
    by_direction = {}
    for point in points:
        by_direction.setdefault(point["direction"], []).append(point)
    for direction, todo in by_direction.items():
        seen = []
        for point in sorted(todo, key=lambda p: p["size_bytes"]):
            nbytes = point["size_bytes"]
            vid = f"{spec.name}-{direction}-{nbytes}" if direction != "kernel_d2d" \
                else f"{variant.id}-{nbytes}"
            sz = {"n": nbytes // 4}
            if nbytes > limit:
                out.append(Measurement(vid, spec.name, dict(point), sz, "excluded",
                                       f"{nbytes} B above this run's transfer limit"))
                continue
            if flattened(seen):
                break
            m = _measure_one(engine, spec, kernel, vid, point, pool[:nbytes // 4], cl,
                             Measurement)
            if m.ok:
                seen.append((nbytes, m.metrics["bytes"]))
                if flattened(seen):
                    m.extra["stopped"] = (f"flat: within {FLAT_WITHIN:.0%} of "
                                          f"{seen[-2][0] >> 20} MiB; larger sizes not measured")
            out.append(m)
    return out


def _measure_one(engine, spec, kernel, vid, point, src, cl, Measurement):
    """One (direction, size) point: warm-up, samples, the moved bytes checked once."""
    nbytes, direction = point["size_bytes"], point["direction"]
    sz = {"n": nbytes // 4}
    try:
        host = src if direction in ("h2d", "map_h2d") else np.empty_like(src)
        mf = cl.mem_flags
        dev_a = cl.Buffer(engine.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=src)
        dev_b = cl.Buffer(engine.ctx, mf.READ_WRITE, nbytes)
        kernel.gsize = (-(-src.size // 256) * 256,)
        kernel.lsize = (256,)
        reps = 5 if nbytes >= 64 * MIB else min(engine.repeats, 25)
        if direction in ("h2d", "map_h2d"):  # the device must not hold the bytes it checks
            cl.enqueue_fill_buffer(engine.queue, dev_a, np.float32(np.nan), 0, nbytes)
        _one(engine, direction, host, dev_a, dev_b, kernel)  # warm-up
        samples = [_one(engine, direction, host, dev_a, dev_b, kernel) for _ in range(reps)]
        check = np.empty_like(src)
        if direction in ("h2d", "map_h2d"):
            cl.enqueue_copy(engine.queue, check, dev_a)
        elif direction in ("d2d", "kernel_d2d"):
            cl.enqueue_copy(engine.queue, check, dev_b)
        else:
            check = host
        engine.queue.finish()
        dev_a.release()
        dev_b.release()
    except Exception as exc:  # noqa: BLE001 -- one failing size must not end the run
        engine.reset()
        return Measurement(vid, spec.name, dict(point), sz, "error",
                           f"{type(exc).__name__}: {str(exc)[:300]}")
    if not np.array_equal(check, src):
        return Measurement(vid, spec.name, dict(point), sz, "wrong_answer",
                           "transferred bytes differ from the source")
    return Measurement.timed(
        vid, spec.name, dict(point), sz, samples, work={"bytes": float(nbytes)},
        launches_per_sample=1, attempts=1, max_error=0.0,
        extra={"timing": "wall clock" if direction.startswith("map") else "events"})


SPEC = BenchmarkSpec(
    name="transfers",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"direction": DIRECTIONS, "size_bytes": SIZES},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    metrics={"bytes": lambda p, s: s["n"] * 4},
    sweep=[{"direction": d, "size_bytes": s} for d in DIRECTIONS for s in SIZES],
    quick_sweep=[{"direction": d, "size_bytes": s} for d in DIRECTIONS
                 for s in (4 * KIB, 256 * KIB, 16 * MIB)],
    runner=run,
    watch_clock=False,  # host–driver paths: an nvidia-smi probe slows them
    analysis="transfers",
    group="runtime",
    tolerance={"float32": 0.0},
)
