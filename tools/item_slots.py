"""How long a resident work item holds its slot: one-float items at a capped residency.

The items' floor (docs/tuning.md, "The items' floor") prices one-float items by workgroup_dispatch's
plateau; the account it leaves open is that an item holds its slot for a fixed X plus its load
rounds at the loaded round time L, so that n items take waves × (X + rounds × L), waves = n over
the items resident on all compute units. This measures X apart from L: the same n one-float
items, a copy (one load round) and a store (none), each launched with the resident items capped
by a ``__local`` kernel argument (the driver reserves its bytes per work-group whether or not the
kernel touches them) and by the group size, so the waves change while the bytes do not.

    python tools/item_slots.py [--device nvidia] [--n 67108864] [--kernels copy,store,copy4]
        > OUT.json

Each case: group size, local bytes a group, resident items a compute unit (asked of the driver:
CL_KERNEL_LOCAL_MEM_SIZE and the device's local memory; checked against time, not trusted), the
median of 10 timed launches (events, after two warm-ups), waves, and time / waves. A store's
time / waves is X where the store is not bound by the write bandwidth; a copy's less a store's is
the load round at that residency. ``copy4`` moves the same bytes in float4 items, a quarter of
them: whether X is an item's, whatever it moves. Device, driver, clock (nvidia-smi, where
present) and date are in the output.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys

import numpy as np

SOURCE = """
__kernel void copy(__global const float *x, __global float *y, __local float *pad) {
    size_t i = get_global_id(0);
    y[i] = x[i];
}
__kernel void store(__global const float *x, __global float *y, __local float *pad) {
    size_t i = get_global_id(0);
    y[i] = (float)i;
}
__kernel void copy4(__global const float4 *x, __global float4 *y, __local float *pad) {
    size_t i = get_global_id(0);
    y[i] = x[i];
}
"""

#: elements of float an item of each kernel moves (copy4: the same bytes in a quarter of the
#: items)
WIDTH = {"copy": 1, "store": 1, "copy4": 4}

#: local memory of one compute unit of compute capability 9.0 (H100, H200): OpenCL reports only a
#: group's 48 KB
SM_LOCAL_BYTES = 228 * 1024

#: (group size, local bytes a group): 2,048 items resident down to 256 on a 228 KB, 2,048-item
#: compute unit (NVIDIA's OpenCL refuses a group 48 KB of local memory, its limit, with the
#: kernel's own; each group also takes 1 KB for the runtime): 8, 7, 6, 5 and 4 groups of 256,
#: 4 of 128 and 4 of 64; and 512- and 1024-item groups unpadded
CASES = ((256, 0), (256, 32000), (256, 37000), (256, 44000), (256, 47000), (128, 47000),
         (64, 47000), (512, 0), (1024, 0))


def clock() -> str:
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm",
                               "--format=csv,noheader"], capture_output=True, text=True,
                              timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def main() -> int:
    import pyopencl as cl

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="nvidia", help="device name substring")
    ap.add_argument("--n", type=int, default=1 << 26, help="work items")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--kernels", default="copy,store",
                    help="comma-separated: copy, store (one float an item), copy4 (a float4)")
    args = ap.parse_args()
    devices = [d for p in cl.get_platforms() for d in p.get_devices()
               if args.device.lower() in (d.name + p.name).lower()]
    if not devices:
        print(f"item_slots: no OpenCL device matches {args.device!r}", file=sys.stderr)
        return 2
    dev = devices[0]
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    prog = cl.Program(ctx, SOURCE).build()
    n = args.n
    x = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                  hostbuf=np.random.default_rng(0).random(n, dtype=np.float32))
    y = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 4 * n)
    cus, local_mem = dev.max_compute_units, dev.local_mem_size
    rows = []
    kernels = {name: cl.Kernel(prog, name) for name in args.kernels.split(",")}
    for name, knl in kernels.items():
        for group, pad in CASES:
            knl.set_args(x, y, cl.LocalMemory(max(pad, 4)))
            times = []
            for rep in range(args.reps + 2):
                ev = cl.enqueue_nd_range_kernel(queue, knl, (n // WIDTH[name],), (group,))
                ev.wait()
                if rep >= 2:
                    times.append((ev.profile.end - ev.profile.start) * 1e-9)
            # resident groups a compute unit by local memory (1 KB a group for the runtime on
            # NVIDIA; the driver may carve out less than all of it), at most 2,048 items and 32
            # groups
            by_local = (SM_LOCAL_BYTES // (pad + 1024)) if pad else 32
            resident = min(2048 // group, by_local, 32) * group
            waves = n / WIDTH[name] / (cus * resident)
            t = float(np.median(times))
            rows.append({"kernel": name, "items": n // WIDTH[name], "group": group,
                         "local_bytes": pad,
                         "resident_items_per_cu": resident, "median_s": t,
                         "samples_s": times, "waves": waves, "per_wave_s": t / waves})
            print(f"{name:5s} group {group:4d} local {pad:6d} resident {resident:4d} "
                  f"{t * 1e6:8.1f} us  waves {waves:7.1f}  per wave {t / waves * 1e9:7.1f} ns",
                  file=sys.stderr)
    # x[i] checked once: the copy ran
    out = np.empty(n, np.float32)
    check = cl.Kernel(prog, "copy")
    check.set_args(x, y, cl.LocalMemory(4))
    cl.enqueue_nd_range_kernel(queue, check, (n,), (256,))
    cl.enqueue_copy(queue, out, y)
    host = np.random.default_rng(0).random(n, dtype=np.float32)
    print(json.dumps({
        "tool": "tools/item_slots.py", "device": dev.name, "driver": dev.driver_version,
        "platform": dev.platform.name, "compute_units": cus, "local_mem_bytes": local_mem,
        "clock_sm_mhz_now_max": clock(), "n": n, "reps": args.reps,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "copy_checked": bool(np.array_equal(out, host)), "cases": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
