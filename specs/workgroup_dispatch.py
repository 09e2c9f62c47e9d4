"""Per-work-group cost: a fixed number of work items launched in groups of 32…1024 items.

Each work item does the least a memory-bound kernel does: one float load and one store
(``access="copy"``), or one store of a kernel argument (``access="store"``). The total stays
fixed, so the number of work-groups G = n / work-group size is the only thing that changes.
With large groups the time is the bytes over the bandwidth; with small groups it grows in
proportion to G (H200, Jacobi at 8192²: 1270 µs at 32-item groups, 640 at 64, 325 at 128,
272 at 256), and time / G there is the device-wide cost of one work-group: launching it on a
compute unit, its warps' first loads, retiring it. The analysis ``workgroup_dispatch`` fits
``t = max(T_floor, G · c)`` and reports c. 2^26 items on a GPU (256 MiB per buffer, past the L2,
Jacobi's 8192²), 2^20 on a CPU (quick too), 2^16 on a GPU in quick mode.
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

ACCESSES = ("copy", "store")
WORKGROUPS = (32, 64, 128, 256, 512, 1024)


def program(point):
    body = "dst[i] = src[i]" if point["access"] == "copy" else "dst[i] = a"
    args = [lp.GlobalArg("dst", np.float32, shape=("n",), is_input=False, is_output=True),
            lp.ValueArg("n", np.int32)]
    args += ([lp.GlobalArg("src", np.float32, shape=("n",))] if point["access"] == "copy"
             else [lp.ValueArg("a", np.float32)])
    return lp.make_kernel("{[i]: 0 <= i < n}", body, args, name="dispatch",
                          target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


def sizes(point, device, quick):
    """A fixed total of work items (the same for every work-group size of a run). A CPU runs
    2^20 in quick mode too: at 2^16 PoCL's ~50 µs launch floor hid the groups' cost."""
    gpu = device.device_type.upper() == "GPU"
    if quick:
        return {"n": 1 << 16 if gpu else 1 << 20}
    return {"n": 1 << 26 if gpu else 1 << 20}


def verify_sizes(point, device):
    # three full groups and a partial one: the guard of the last group is checked too
    return {"n": 3 * point["workgroup"] + 5}


def inputs(point, sizes, rng):
    if point["access"] == "copy":
        return {"src": rng.random(sizes["n"], dtype=np.float32)}  # uniform: 3× faster than normal
    return {"a": np.float32(rng.uniform(1.0, 2.0))}


def reference(values, point, sizes):
    if point["access"] == "copy":
        return {"dst": values["src"].copy()}
    return {"dst": np.full(sizes["n"], values["a"], dtype=np.float32)}


def bytes_moved(point, sizes):
    return sizes["n"] * 4 * (2 if point["access"] == "copy" else 1)


SPEC = BenchmarkSpec(
    name="workgroup_dispatch",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"access": ACCESSES},
    knobs={"workgroup": Knob("workgroup", WORKGROUPS, {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved},
    sweep=[{"access": a, "workgroup": wg} for a in ACCESSES for wg in WORKGROUPS],
    quick_sweep=[{"access": "copy", "workgroup": wg} for wg in (32, 64, 256, 1024)],
    analysis="workgroup_dispatch",
    group="runtime",
    tolerance={"float32": 0.0},
)
