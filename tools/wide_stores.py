"""Wide stores on a GPU: streaming kernels at 1–16 floats a work item, and the 2-D suite kernels
at `float4` and `float8` over row lengths of the same point count.

    python tools/wide_stores.py --device nvidia --out bench_results/nvidia-h200/wide-stores

Exploratory, not a profile benchmark (yet): it asks whether the 2-D suite kernels' `float8`
slowdown, which the model does not price, comes from their rows or from their stores. Part 1
times `o_k[i] = (a_0[i] + … ) · (k + 1)` with 1–3 input and 0–2 output arrays of 2^26 floats,
`floatN` a work item (N = 1…16), groups of 128 and 256, 12 launches (median of the last 10). Part
2 runs sobel2d, wave2d, perona2d and box2d9 through `gencl.run` (one row a work item, 32 × 4
groups) at 8192 × 8192, 512 × 131072, 2048 × 32768 and 8256 × 8128 points. Writes
wide-stores.json (device, driver, clock, date, gencl version, both parts) into --out.
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
           "2in2out": (2, 2), "3in0out": (3, 0)}
KERNELS = {"sobel2d": {"stream_j": 1, "local_p": "none"},
           "wave2d": {"stream_j": 1, "local_u": "none"},
           "perona2d": {"stream_j": 1, "local_u": "none", "temporal": "none"},
           "box2d9": {"stream": 1, "temporal": "none"}}
SHAPES = ((8192, 8192), (512, 131072), (2048, 32768), (8256, 8128))


def source(width: int, inputs: int, outputs: int) -> str:
    """OpenCL C of one streaming kernel: *width* floats a work item."""
    t = "float" if width == 1 else f"float{width}"
    args = [f"__global const {t} *restrict a{k}" for k in range(inputs)] + \
           [f"__global {t} *restrict o{k}" for k in range(max(outputs, 1))]
    total = " + ".join(f"a{k}[i]" for k in range(inputs))
    stores = "".join(f"o{k}[i] = s * {k + 1}.0f; " for k in range(outputs)) if outputs else \
        "if (((float *)&s)[0] == 12345.0f) o0[i] = s;"
    return (f"__kernel void k({', '.join(args)}) {{\n  size_t i = get_global_id(0);\n"
            f"  {t} s = {total};\n  {stores}\n}}\n")


def streaming(device: object) -> list[dict]:
    import pyopencl as cl

    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    host = np.random.default_rng(0).random(N, dtype=np.float32)
    buffers = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, N * 4) for _ in range(5)]
    for b in buffers:
        cl.enqueue_copy(queue, b, host)
    rows = []
    for name, (inputs, outputs) in STREAMS.items():
        for width in (1, 2, 4, 8, 16):
            kernel = cl.Program(ctx, source(width, inputs, outputs)).build().k
            args = buffers[:inputs + max(outputs, 1)]
            for group in (128, 256):
                times = []
                for _ in range(12):
                    event = kernel(queue, (N // width,), (group,), *args)
                    event.wait()
                    times.append((event.profile.end - event.profile.start) * 1e-9)
                median = float(np.median(times[2:]))
                rows.append({"case": name, "inputs": inputs, "outputs": outputs,
                             "width": width, "group": group, "median_s": median,
                             "bytes_per_s": (inputs + outputs) * N * 4 / median})
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
