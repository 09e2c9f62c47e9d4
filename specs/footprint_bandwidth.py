"""Copy bandwidth against footprint: the same two buffers launched again and again.

A stencil that the tuner measures (or an application iterating it) launches over the same
arrays each time; when its footprint fits a cache level, every launch after the first is
served from that level, not from DRAM. This benchmark prices that: ``dst[i] = src[i]`` over a
footprint (both buffers together) from 256 KiB to 1 GiB, in steps of 2×, with no buffer
rotation, so each footprint's median is the bandwidth of the smallest level that holds it (the
last ones: DRAM). float and float4 elements, work-groups of 256. The metric counts a read and
a write per element, as the copy benchmark and the model do (a CPU's write-allocate traffic is
part of what it measures).
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

#: footprints of src + dst, KiB: 256 KiB … 1 GiB, ×2
FOOTPRINTS_KIB = tuple(256 << k for k in range(13))
WIDTHS = (1, 4)


def program(point):
    w = point["vector_width"]
    vec = w > 1
    t = lp.make_kernel(
        f"{{[i, l]: 0 <= i < m and 0 <= l < {w}}}",
        "dst[i, l] = src[i, l]",
        [lp.GlobalArg("src", np.float32, shape=("m", w), dim_tags="c,vec" if vec else "c,c"),
         lp.GlobalArg("dst", np.float32, shape=("m", w), dim_tags="c,vec" if vec else "c,c",
                      is_input=False, is_output=True),
         lp.ValueArg("m", np.int32)],
        name="footprint_copy", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    t = lp.tag_inames(t, {"l": "vec" if vec else "unr"})
    # whole work-groups (``sizes`` makes them so): no bounds check
    return lp.assume(t, f"m mod {point['workgroup']} = 0 and m >= {point['workgroup']}")


def sizes(point, device, quick):
    """Elements of src (floatW) for the point's footprint, a whole number of work-groups, both
    buffers within max alloc."""
    total = min(point["footprint_kib"] << 10, 2 * (device.max_alloc_bytes // 2))
    unit = point["workgroup"] * point["vector_width"] * 4 * 2  # bytes of one group, both buffers
    groups = max(1, total // unit)
    return {"m": groups * point["workgroup"]}


def verify_sizes(point, device):
    return {"m": 3 * point["workgroup"]}


def inputs(point, sizes, rng):
    src = rng.random((sizes["m"], point["vector_width"]), dtype=np.float32)
    src += np.float32(0.5)
    return {"src": src}


def reference(values, point, sizes):
    return {"dst": values["src"].copy()}


def bytes_moved(point, sizes):
    return 2 * sizes["m"] * point["vector_width"] * 4


SPEC = BenchmarkSpec(
    name="footprint_bandwidth",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"vector_width": WIDTHS, "footprint_kib": FOOTPRINTS_KIB},
    knobs={"workgroup": Knob("workgroup", (256,), {"inames": ("i",)})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved},
    sweep=[{"vector_width": w, "footprint_kib": f} for w in WIDTHS for f in FOOTPRINTS_KIB],
    # float4 only, every footprint: the staircase needs its DRAM end even in quick mode
    quick_sweep=[{"vector_width": 4, "footprint_kib": f} for f in FOOTPRINTS_KIB],
    analysis="footprint_bandwidth",
    group="memory",
    tolerance={"float32": 0.0},
    rotate_buffers=False,  # the point: consecutive launches find what fits in the cache
)
