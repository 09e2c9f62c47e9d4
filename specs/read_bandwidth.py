"""Pure global read bandwidth (clpeak "global memory bandwidth"): float1..float16 loads, buffer ≫ LLC.

Each work item reads ``reads`` vectors strided by the number of work items (coalesced), sums them
and stores one guarded value (the result guard of seed 000 §VI-A keeps the loads alive). The
metric counts the bytes read only, as clpeak does; the one store per work item is 1/``reads`` of
the traffic. The read volume is 1 GiB on a GPU (≥ 20× the 50 MB L2 of an H100/H200), 64 MiB on a
CPU, 4 MiB in quick mode; input buffers rotate so no launch finds its data in a cache.
"""

import numpy as np

from gencl.spec import BenchmarkSpec, Knob, load_spec


def program(point):
    """The copy kernel's abstract program in float32 (written once, in specs/copy.py)."""
    return load_spec("copy").program({**point, "dtype": "float32"})


def sizes(point, device, quick):
    total = 4 << 20 if quick else (1 << 30 if device.device_type.upper() == "GPU" else 64 << 20)
    total = min(total, device.max_alloc_bytes // 2)
    unit = point["vector_width"] * point["workgroup"]
    n = max(unit, total // (point["reads"] * 4) // unit * unit)
    return {"n": n, "R": point["reads"]}


def verify_sizes(point, device):
    return {"n": 3 * point["vector_width"] * point["workgroup"], "R": point["reads"]}


def inputs(point, sizes, rng):
    return {"src": rng.standard_normal((sizes["R"], sizes["n"])).astype(np.float32), "flag": 1}


def reference(values, point, sizes):
    acc = np.zeros(values["src"].shape[1], dtype=np.float32)
    for row in values["src"]:
        acc = (acc + row).astype(np.float32)
    return {"dst": np.where(acc != 0, acc, 0).astype(np.float32)}


def bytes_read(point, sizes):
    return sizes["n"] * sizes["R"] * 4


WIDTHS = (1, 2, 4, 8, 16)

SPEC = BenchmarkSpec(
    name="read_bandwidth",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"reads": (32, 8)},
    knobs={
        "vector_width": Knob("vector", WIDTHS,
                             {"iname": "i", "arrays": ("src", "dst"), "temporaries": ("acc",),
                              "size": "n"}),
        "loop": Knob("trip_count", ("constant",), {"param": "R", "source": "reads"}),
        "unroll": Knob("unroll", ("full",), {"iname": "r"}),
        "workgroup": Knob("workgroup", (256, 64, 128, 512, 1024), {"inames": ("i",)}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_read},
    sweep=[{"vector_width": w} for w in WIDTHS]
    + [{"vector_width": 4, "workgroup": wg} for wg in (64, 128, 512, 1024)]
    + [{"vector_width": 4, "reads": 8}],
    quick_sweep=[{"vector_width": w} for w in (1, 4, 16)],
    analysis="read_bandwidth",
    group="memory",
    tolerance={"float32": 1e-5},
    rotate_buffers=True,
)
