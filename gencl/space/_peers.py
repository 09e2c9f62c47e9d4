"""What the tuned kernel is compared with, timed in the same run at the same size.

* the device's copy bandwidth: specs/copy.py at float4 (its best point), the roofline's roof;
* peers a user would otherwise run: PyTorch eager and torch.compile, CuPy slicing (each only where
  importable, timed with CUDA events), and the plain OpenCL kernel a user would write by hand
  (``_hand_jacobi.cl``, timed with OpenCL events: it is not a gencl variant).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

OMEGA = 0.8
REPEATS = 25


def measure_copy_bandwidth(engine: Any, *, quick: bool = False) -> dict[str, Any]:
    """Best bytes/s of the copy spec's float4 points on this device (read+write traffic)."""
    from gencl.measure import run_points
    from gencl.spec import load_spec

    spec = load_spec("copy")
    points = [spec.complete({"dtype": "float32", "vector_width": 4, "reads": r, "loop": "constant",
                             "unroll": "full", "workgroup": 256}) for r in (1, 16)]
    results = [m for m in run_points(spec, points, engine, quick=quick) if m.ok]
    if not results:
        return {"copy_bw_Bps": None, "point": None}
    best = max(results, key=lambda m: m.metrics["bytes"])
    return {"copy_bw_Bps": best.metrics["bytes"], "point": best.point,
            "median_s": best.median_s, "bytes": best.work["bytes"]}


def _median_of_batches(run_batch: Callable[[int], float], probe_s: float) -> float:
    """Median per-call time over REPEATS samples, each a batch lasting ≥ 0.2 ms."""
    launches = max(1, min(1 << 16, int(np.ceil(2e-4 / max(probe_s, 1e-7)))))
    return statistics.median(run_batch(launches) / launches for _ in range(REPEATS))


def _grids(n: int, dtype: Any, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (n + 2, n + 2)).astype(dtype),
            rng.uniform(-1, 1, (n + 2, n + 2)).astype(dtype))


def _numpy_sweep(u: np.ndarray, f: np.ndarray, omega: Any, h2: Any) -> np.ndarray:
    new = u.copy()
    new[1:-1, 1:-1] = (1 - omega) * u[1:-1, 1:-1] + omega * u.dtype.type(0.25) * (
        u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] + h2 * f[1:-1, 1:-1])
    return new


def hand_opencl(engine: Any, n: int, dtype: str) -> float:
    """The plain OpenCL kernel (one work item per interior point, 2-D NDRange, the driver's
    local size) on a (n+2)² grid: checked once against numpy, then timed with OpenCL events."""
    import pyopencl as cl

    from gencl.measure import compare

    np_dtype = np.dtype(dtype)
    header = "#define real float\n" if np_dtype == np.float32 else \
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define real double\n"
    source = header + Path(__file__).with_name("_hand_jacobi.cl").read_text()
    knl = cl.Program(engine.ctx, source).build().jacobi
    u, f = _grids(n, np_dtype)
    mf = cl.mem_flags
    bufs = [cl.Buffer(engine.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in (u, f, u)]
    omega, h2 = np_dtype.type(OMEGA), np_dtype.type((1.0 / n) ** 2)
    knl.set_args(*bufs, omega, h2, np.int32(n))
    q = engine.queue
    event = cl.enqueue_nd_range_kernel(q, knl, (n, n), None)
    event.wait()
    got = np.empty_like(u)
    cl.enqueue_copy(q, got, bufs[2]).wait()
    rtol = 1e-5 if np_dtype == np.float32 else 1e-12
    if compare(got, _numpy_sweep(u, f, omega, h2), rtol) > 1:
        raise RuntimeError("hand-written OpenCL kernel disagrees with numpy")

    def batch(k: int) -> float:
        events = [cl.enqueue_nd_range_kernel(q, knl, (n, n), None) for _ in range(k)]
        events[-1].wait()
        return (events[-1].profile.end - events[0].profile.start) * 1e-9

    probe = (event.profile.end - event.profile.start) * 1e-9
    try:
        return _median_of_batches(batch, probe)
    finally:
        for b in bufs:
            b.release()


def _cuda_time(fn: Callable[[], None], make_event: Callable[[], Any],
               elapsed_ms: Callable[[Any, Any], float], sync: Callable[[], None]) -> float:
    """Median per-call time by CUDA events (batches of calls lasting ≥ 0.2 ms)."""
    for _ in range(3):
        fn()
    sync()

    def batch(k: int) -> float:
        start, end = make_event(), make_event()
        start.record()
        for _ in range(k):
            fn()
        end.record()
        end.synchronize()
        return elapsed_ms(start, end) * 1e-3

    return _median_of_batches(batch, batch(1))


def _torch_elapsed(start: Any, end: Any) -> float:
    return start.elapsed_time(end)


def torch_peers(n: int, dtype: str) -> dict[str, float]:
    """PyTorch eager and torch.compile of the same sweep (slicing), on CUDA."""
    import torch

    def timed_event() -> Any:
        return torch.cuda.Event(enable_timing=True)

    if not torch.cuda.is_available():
        return {}
    tdt = getattr(torch, dtype)
    u0, f0 = _grids(n, np.dtype(dtype))
    u, f = torch.from_numpy(u0).cuda(), torch.from_numpy(f0).cuda()
    out = u.clone()
    h2 = (1.0 / n) ** 2

    def sweep(u: Any, f: Any, out: Any) -> None:
        out[1:-1, 1:-1] = (1 - OMEGA) * u[1:-1, 1:-1] + OMEGA * 0.25 * (
            u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] + h2 * f[1:-1, 1:-1])

    assert u.dtype == tdt
    sweep(u, f, out)
    expected = _numpy_sweep(u0, f0, np.dtype(dtype).type(OMEGA), np.dtype(dtype).type(h2))
    result = {}
    if np.allclose(out.cpu().numpy(), expected, rtol=1e-4, atol=1e-5):
        result["pytorch_eager"] = _cuda_time(lambda: sweep(u, f, out), timed_event,
                                             _torch_elapsed, torch.cuda.synchronize)
    compiled = torch.compile(sweep)
    compiled(u, f, out)
    if np.allclose(out.cpu().numpy(), expected, rtol=1e-4, atol=1e-5):
        result["torch_compile"] = _cuda_time(lambda: compiled(u, f, out), timed_event,
                                             _torch_elapsed, torch.cuda.synchronize)
    return result


def cupy_peers(n: int, dtype: str) -> dict[str, float]:
    """CuPy slicing of the same sweep."""
    import cupy

    u0, f0 = _grids(n, np.dtype(dtype))
    u, f = cupy.asarray(u0), cupy.asarray(f0)
    out = u.copy()
    omega, h2 = np.dtype(dtype).type(OMEGA), np.dtype(dtype).type((1.0 / n) ** 2)

    def sweep() -> None:
        out[1:-1, 1:-1] = (1 - omega) * u[1:-1, 1:-1] + omega * 0.25 * (
            u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] + h2 * f[1:-1, 1:-1])

    sweep()
    if not np.allclose(cupy.asnumpy(out), _numpy_sweep(u0, f0, omega, h2), rtol=1e-4, atol=1e-5):
        return {}
    return {"cupy": _cuda_time(sweep, cupy.cuda.Event, cupy.cuda.get_elapsed_time,
                               cupy.cuda.Device().synchronize)}


def measure_peers(engine: Any, n: int, dtype: str) -> tuple[dict[str, float], dict[str, str]]:
    """Time per sweep of every peer that runs here; and why the others did not."""
    times: dict[str, float] = {}
    skipped: dict[str, str] = {}
    try:
        times["hand_opencl"] = hand_opencl(engine, n, dtype)
    except Exception as exc:  # noqa: BLE001 -- a peer that fails is reported, not fatal
        skipped["hand_opencl"] = f"{type(exc).__name__}: {str(exc)[:200]}"
    for name, fn in (("pytorch", torch_peers), ("cupy", cupy_peers)):
        try:
            times.update(fn(n, dtype))
        except ImportError:
            skipped[name] = "not importable here"
        except Exception as exc:  # noqa: BLE001
            skipped[name] = f"{type(exc).__name__}: {str(exc)[:200]}"
    return times, skipped
