"""Wide stores on a GPU: streaming kernels at 1–16 floats a work item, and the 2-D suite kernels
at `float4` and `float8` over row lengths of the same point count.

    python tools/wide_stores.py --device nvidia --out bench_results/nvidia-h200/wide-stores

Exploratory, not a profile benchmark (yet): it asks whether the 2-D suite kernels' `float8`
slowdown, which the model does not price, comes from their rows or from their stores. Part 1
times `o_k[i] = (a_0[i] + … ) · (k + 1)` with 1–6 input and 0–3 output arrays of 2^26 floats,
`floatN` a work item (N = 1…16), groups of 128 and 256, 12 launches (median of the last 10). Part
2 runs sobel2d, wave2d, perona2d and box2d9 through `gencl.run` (one row a work item, 32 × 4
groups) at 8192 × 8192, 512 × 131072, 2048 × 32768 and 8256 × 8128 points. Part 1 also runs
some streams as the 3-D suite kernels lay out their grids (rows of 512 floats a pitch of 544
apart, groups of 64 × 4), some with each input read a row above and below as well: whether
those kernels' `float8` stores cost what the 1-D streams' do. Writes wide-stores.json (device,
driver, clock, date, gencl version, both parts) into --out.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
from pathlib import Path

import numpy as np

N = 1 << 26  # floats an array (256 MiB)
#: name → (input arrays, output arrays); no output: a store under a condition never true
STREAMS = {"1in1out": (1, 1), "2in1out": (2, 1), "1in2out": (1, 2), "3in1out": (3, 1),
           "2in2out": (2, 2), "3in0out": (3, 0), "1in3out": (1, 3), "2in3out": (2, 3),
           "3in3out": (3, 3), "3in2out": (3, 2), "6in3out": (6, 3)}
#: the same streams laid out as the 3-D suite kernels' grids: rows of ROW floats a pitch of
#: ROW + 32 apart, groups of 64 × 4 (grad3d and curl3d store three outputs at float8 in the
#: same time, 974 and 972 µs, where the 1-D streams of 1 and 3 inputs differ by 19 %)
ROW, GRID_CASES, GRID_WIDTHS = 512, ("1in3out", "3in3out", "1in1out", "3in1out"), (4, 8)
#: grid cases whose inputs are also read a row above and below (re-reads the caches serve, as
#: a stencil's neighbours)
GRID_TAPS = ("3in3out", "1in3out")
KERNELS = {"sobel2d": {"stream_j": 1, "local_p": "none"},
           "wave2d": {"stream_j": 1, "local_u": "none"},
           "perona2d": {"stream_j": 1, "local_u": "none", "temporal": "none"},
           "box2d9": {"stream": 1, "temporal": "none"}}
SHAPES = ((8192, 8192), (512, 131072), (2048, 32768), (8256, 8128))


def source(width: int, inputs: int, outputs: int, pitch: int = 0, taps: bool = False) -> str:
    """OpenCL C of one streaming kernel: *width* floats a work item; with *pitch* (vectors a
    row), a 2-D range whose rows lie *pitch* vectors apart, from the second row on; with *taps*
    each input read a row above and below too."""
    t = "float" if width == 1 else f"float{width}"
    args = [f"__global const {t} *restrict a{k}" for k in range(inputs)] + \
           [f"__global {t} *restrict o{k}" for k in range(max(outputs, 1))]
    reads = ("a{k}[i - %d] + a{k}[i] + a{k}[i + %d]" % (pitch, pitch)) if taps else "a{k}[i]"
    total = " + ".join(reads.format(k=k) for k in range(inputs))
    stores = "".join(f"o{k}[i] = s * {k + 1}.0f; " for k in range(outputs)) if outputs else \
        "if (((float *)&s)[0] == 12345.0f) o0[i] = s;"
    index = f"(get_global_id(1) + 1) * {pitch} + get_global_id(0)" if pitch else \
        "get_global_id(0)"
    return (f"__kernel void k({', '.join(args)}) {{\n  size_t i = {index};\n"
            f"  {t} s = {total};\n  {stores}\n}}\n")


def _median_launch(kernel, queue, global_size, local_size, args) -> float:
    """Seconds of one launch: the median of the last 10 of 12 (the first two warm up)."""
    times = []
    for _ in range(12):
        event = kernel(queue, global_size, local_size, *args)
        event.wait()
        times.append((event.profile.end - event.profile.start) * 1e-9)
    return float(np.median(times[2:]))


def streaming(device: object) -> list[dict]:
    import pyopencl as cl

    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    host = np.random.default_rng(0).random(N, dtype=np.float32)
    buffers = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4)
               for _ in range(max(i + max(o, 1) for i, o in STREAMS.values()))]
    for b in buffers:
        cl.enqueue_copy(queue, b, host)
    rows = []
    for name, (inputs, outputs) in STREAMS.items():
        for width in (1, 2, 4, 8, 16):
            kernel = cl.Program(ctx, source(width, inputs, outputs)).build().k
            args = buffers[:inputs + max(outputs, 1)]
            for group in (128, 256):
                median = _median_launch(kernel, queue, (N // width,), (group,), args)
                rows.append({"case": name, "inputs": inputs, "outputs": outputs,
                             "width": width, "group": group, "median_s": median,
                             "bytes_per_s": (inputs + outputs) * N * 4 / median})
                print(json.dumps(rows[-1]), flush=True)
    rows_y = (N // (ROW + 32) - 2) // 4 * 4
    for name, taps in [(c, False) for c in GRID_CASES] + [(c, True) for c in GRID_TAPS]:
        inputs, outputs = STREAMS[name]
        args = buffers[:inputs + outputs]
        for width in GRID_WIDTHS:
            kernel = cl.Program(ctx, source(width, inputs, outputs, (ROW + 32) // width,
                                            taps)).build().k
            median = _median_launch(kernel, queue, (ROW // width, rows_y), (64, 4), args)
            rows.append({"case": name, "inputs": inputs, "outputs": outputs, "width": width,
                         "group": [64, 4], "grid": [ROW, rows_y, ROW + 32], "taps": taps,
                         "median_s": median,
                         "bytes_per_s": (inputs + outputs) * ROW * rows_y * 4 / median})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def suite(device_name: str) -> list[dict]:
    import gencl

    rows = []
    for name, knobs in KERNELS.items():
        for nx, ny in SHAPES:
            points = [dict(dtype="float32", vector_width=w, workgroup=[32, 4], **knobs)
                      for w in (4, 8)]
            for m in gencl.run(name, points, device=device_name, sizes={"nx": nx, "ny": ny},
                               repeats=15):
                rows.append({"kernel": name, "nx": nx, "ny": ny,
                             "vector_width": m.point["vector_width"], "ok": m.ok,
                             "median_s": m.median_s})
                print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> int:
    import pyopencl as cl

    import gencl

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="nvidia", help="platform or device name substring")
    ap.add_argument("--out", required=True, help="folder for wide-stores.json")
    args = ap.parse_args()
    device = next(d for p in cl.get_platforms() for d in p.get_devices()
                  if args.device.lower() in f"{p.name} {d.name}".lower())
    header = {"kind": "wide_stores", "device": device.name, "driver": device.driver_version,
              "max_clock_mhz": device.max_clock_frequency,
              "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
              "gencl_version": gencl.__version__, "floats_per_array": N}
    data = {**header, "streaming": streaming(device), "suite": suite(args.device)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "wide-stores.json").write_text(json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
