"""Image memory (the texture path): read bandwidth beside clpeak's, and the texture cache staircase.

``test="bandwidth"`` reproduces clpeak 2.x's image test (src/opencl/image_bandwidth.cpp,
kernels/image_bandwidth_kernels.cl) as the point ``layout="clpeak", coords="int",
format="rgba", fetches=16`` at ``workgroup`` = the device's maximum work-group size: a 2-D
CL_RGBA/CL_FLOAT image of min(4096, the device's 2-D image limit) pixels a side, its height cut
to max alloc / 2 when it does not fit; global size = pixels / 16 / work-group size (at least one
work-group) × work-group size; work item ``gid`` does 16 ``read_imagef`` at pixel
``p = (gid + i·gsize) mod pixels``, int2 coordinates ``(p mod width, p / width)``, through a
nearest, unnormalized sampler, sums them in a float4 and stores the sum of its lanes. loopy's
``ImageArg`` emits float2 coordinates only, so clpeak's int2 read and its index arithmetic are
carried by a ``CInstruction`` (its C, verbatim but for names); the sampler is loopy's (it clamps
to the border where clpeak's clamps to the edge: the same for coordinates inside the image).
clpeak times it with its ``run_kernel`` (warm-up launches, a one-launch probe, then as many
launches as fill its target time, each timed START → END by events, or a wall clock around the
batch) and reports the mean; gencl times the same launches (START → END) and takes the median.

Bytes are counted as clpeak counts them: fetches per work item × bytes of one texel (16 for
RGBA float: clpeak's ``IMAGE_FETCH_PER_WI * 4 * sizeof(cl_float)``) × global work items; the one
float stored per work item is not counted. Every point reads every pixel once per launch (at
least once: an image smaller than one work-group's fetches wraps, as in clpeak).

The neighbours that could beat clpeak's shape: ``coords="float"`` (loopy's own image read, float2
coordinates, the same pixels); ``layout="rows"``, a 2-D NDRange over the image's columns and a
band of height / fetches rows, work item (x, y) reading pixels (x, y + i·height/fetches): no
division or modulo per fetch, neighbouring work items on neighbouring pixels, 2-D work-groups
(``workgroup`` × ``workgroup_y``) whose fetches fall in compact tiles of the image (GPUs store
images tiled); 32 and 64 fetches per work item; CL_R/CL_FLOAT images (``format="r"``, 4-byte
texels: as many bytes as clpeak's image, four times the rows, 4 bytes counted per fetch); other
work-group sizes (256, 1024, 4096, 8192: the device's maximum is clpeak's, the rest neighbours).
The analysis takes the best point (``image_read_bw_Bps``).

``test="walk"``: a pointer chase through the texture path. One work item; a CL_RGBA /
CL_SIGNED_INT32 image whose texels hold the coordinates of the next slot of a Sattolo ring in x, y
(slots 64 B apart, every 4th texel); each step is ``c = read_imagei(img, sampler, c).xy``: the next
fetch's coordinates are the last fetch's value, with no arithmetic between them (loopy emits no
integer image reads: a ``CInstruction`` carries the step). The walker's position is kept in
``state`` between launches (``gencl.spec.pointer_chase``'s scheme). Footprints 1 KiB … 256 MiB
on a GPU (64 MiB on a CPU), three per octave, each an image about square (width a power of two
≥ √texels): the staircase of cycles per step gives the texture path's cache levels and their
latencies (``gencl.characterize.latency``'s fit, as for the global and ``__constant`` walks).
"""

import math

import loopy as lp
import numpy as np
import pyopencl.cltypes as cltypes
from pymbolic import var

from gencl.generate.knobs import map_to_workgroups
from gencl.spec import BenchmarkSpec
from gencl.spec.pointer_chase import ring_array, walk_reference

KIB, MIB = 1 << 10, 1 << 20
#: clpeak's image side and fetches per work item (IMAGE_FETCH_PER_WI)
CLPEAK_SIDE, CLPEAK_FETCHES = 4096, 16
QUICK_SIDE = 1024
#: bytes of one texel by format (what one fetch reads, as clpeak counts it)
TEXEL_BYTES = {"rgba": 16, "r": 4}
#: the walk's texel (x, y of the next slot and two unused int32: CL_RGBA is the one integer
#: order every device with images has; PoCL lacks CL_RG) and its slot spacing (64 B: 4 texels)
WALK_TEXEL, SPACING = 16, 64
#: OpenCL 1.2's least 2-D image limit for a device with images (where the device did not say)
MIN_IMAGE2D = 8192
GPU_MAX, CPU_MAX = 256 * MIB, 64 * MIB
WORKGROUPS = (1024, 256, 4096, 8192, 32, 16, 64, 8)
WORKGROUPS_Y = (1, 8, 16, 4, 32)


# {{{ the walk's images

def walk_shape(footprint):
    """(height, width) of the walk's image of about *footprint* bytes: width the power of two
    ≥ √texels, height the whole rows that fit (the footprint is rounded down to them)."""
    texels = max(16, footprint // WALK_TEXEL)
    width = min(texels, 1 << math.ceil(math.log2(math.sqrt(texels))))
    return texels // width, width


def _on_shape(footprint):
    height, width = walk_shape(footprint)
    return height * width * WALK_TEXEL


#: walk footprints, three per octave: 1 KiB … 256 MiB, each a whole image (``walk_shape``)
FOOTPRINTS = tuple(sorted({_on_shape(int(round(KIB * 2 ** (k / 3)))) for k in range(0, 55)}))
QUICK_FOOTPRINTS = tuple(KIB << k for k in range(0, 13))  # 1 KiB … 4 MiB, one per octave

# }}}


# {{{ programs

def _bandwidth_program(point):
    rgba = point["format"] == "rgba"
    texel = cltypes.float4 if rgba else np.float32
    lanes = "acc.x + acc.y + acc.z + acc.w" if rgba else "acc"
    channel = "" if rgba else ".x"
    clpeak = point["layout"] == "clpeak"
    if clpeak:  # clpeak's 1-D NDRange: work item x, global size N
        domain = "[N, W, H, F] -> {[x, i]: 0 <= x < N and 0 <= i < F}"
        out_shape, out_at = ("N",), "out[x]"
        row, col = "((x + i*N) % (W*H)) // W", "((x + i*N) % (W*H)) % W"
        c_read = ("int pixel = (item + i * N) % (W * H);\n"
                  f"acc += read_imagef(img, loopy_sampler, (int2)(pixel % W, pixel / W)){channel};")
        c_names, c_inames = {"N", "W", "H"}, [("item", var("x")), "i"]
        sizes_args = [lp.ValueArg("N", np.int32)]
        positive = "W >= 1 and H >= 1"
    else:  # rows: a 2-D NDRange over the columns and a band of HB = H / F rows
        domain = "[W, HB, F] -> {[x, y, i]: 0 <= x < W and 0 <= y < HB and 0 <= i < F}"
        out_shape, out_at = ("HB", "W"), "out[y, x]"
        row, col = "y + i*HB", "x"
        c_read = (f"acc += read_imagef(img, loopy_sampler, (int2)(col, row + i * HB)){channel};")
        c_names, c_inames = {"HB"}, [("col", var("x")), ("row", var("y")), "i"]
        sizes_args = [lp.ValueArg("HB", np.int32)]
        positive = "W >= 1 and HB >= 1"
    loops = "x" if clpeak else "x, y"
    if point["coords"] == "float":  # loopy's own image read: float2 coordinates
        body = [f"""
            for {loops}
                acc = 0 {{id=init}}
                for i
                    acc = acc + img[{row}, {col}] {{id=sum, dep=init}}
                end
                {out_at} = {lanes} {{dep=sum}}
            end
            """]
    else:  # clpeak's int2 read, carried as C (loopy emits no integer image coordinates)
        body = [f"for {loops}\n acc = 0 {{id=init}}\nend",
                lp.CInstruction(c_inames, "{\n" + c_read + "\n}", assignees=(var("acc"),),
                                read_variables=frozenset({"img", "acc", *c_names}), id="sum",
                                depends_on=frozenset({"init"}),
                                within_inames=frozenset({*loops.split(", "), "i"})),
                f"{out_at} = {lanes} {{dep=sum}}"]
    knl = lp.make_kernel(
        domain, body,
        [lp.ImageArg("img", texel, shape=("H", "W")),
         lp.GlobalArg("out", np.float32, shape=out_shape, is_input=False, is_output=True),
         *sizes_args, lp.ValueArg("W", np.int32), lp.ValueArg("H", np.int32),
         lp.TemporaryVariable("acc", texel)],
        name="image_read", target=lp.PyOpenCLTarget(), lang_version=(2018, 2),
        assumptions=positive)
    knl = lp.fix_parameters(knl, F=point["fetches"])
    gx, gy = point["workgroup"], point["workgroup_y"]
    if clpeak:  # whole work-groups (sizes() makes them so): no bounds check, as in clpeak
        knl = lp.assume(knl, f"N mod {gx} = 0 and N >= {gx}")
        return map_to_workgroups(knl, ("x",), (gx,))
    knl = lp.assume(knl, f"W mod {gx} = 0 and W >= {gx} and HB mod {gy} = 0 and HB >= {gy}")
    return map_to_workgroups(knl, ("x", "y"), (gx, gy))


def _walk_program():
    step = ("{\n"
            "int4 next = read_imagei(img, loopy_sampler, (int2)(cx, cy));\n"
            "cx = next.x;\n"
            "cy = next.y;\n"
            "}")
    return lp.make_kernel(
        "{[k]: 0 <= k < K}",
        ["cx = state[0] {id=start_x}",
         "cy = state[1] {id=start_y}",
         lp.CInstruction((), step, assignees=(var("cx"), var("cy")),
                         read_variables=frozenset({"img", "cx", "cy"}), id="step",
                         depends_on=frozenset({"start_x", "start_y"}),
                         within_inames=frozenset({"k"})),
         "state[0] = cx {id=end_x, dep=step}",
         "state[1] = cy {dep=step:end_x}"],
        [lp.ImageArg("img", cltypes.int4, shape=("H", "W")),
         lp.GlobalArg("state", np.int32, shape=(2,), is_input=True, is_output=True),
         lp.ValueArg("K", np.int32), lp.ValueArg("H", np.int32), lp.ValueArg("W", np.int32),
         lp.TemporaryVariable("cx", np.int32), lp.TemporaryVariable("cy", np.int32)],
        name="image_walk", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


def program(point):
    if point["test"] == "walk":
        return _walk_program()
    return _bandwidth_program(point)

# }}}


# {{{ sizes, inputs, reference

def _is_gpu(device):
    return device is not None and device.device_type.upper() == "GPU"


def image_limits(device):
    """(max width, max height) of a 2-D image on *device* (OpenCL's least where not known)."""
    width = getattr(device, "image2d_max_width", 0) or MIN_IMAGE2D
    height = getattr(device, "image2d_max_height", 0) or MIN_IMAGE2D
    return width, height


def image_size(point, device, quick):
    """(width, height) of the bandwidth test's image: clpeak's rule for RGBA (4096², 1024² quick,
    cut to the device's image limits and to max alloc / 2), as many bytes in 4-byte texels for
    CL_R (four times the rows, within the limits); rows layout: whole work-group tiles and a
    height that divides into ``fetches`` bands."""
    side = QUICK_SIDE if quick else CLPEAK_SIDE
    texel = TEXEL_BYTES[point["format"]]
    max_w, max_h = image_limits(device)
    width = min(side, max_w)
    height = min(side * TEXEL_BYTES["rgba"] // texel, max_h)
    if width * height * texel > device.max_alloc_bytes // 2:
        height = max(1, device.max_alloc_bytes // 2 // (width * texel))
    if point["layout"] == "rows":
        band = point["fetches"] * point["workgroup_y"]
        width = max(point["workgroup"], width // point["workgroup"] * point["workgroup"])
        height = max(band, height // band * band)
    return width, height


def sizes(point, device, quick):
    """Bandwidth: the image (``image_size``) and clpeak's global size, N = pixels / fetches /
    work-group size (≥ 1) × work-group size, or the rows layout's band HB = H / fetches. Walk:
    the image of the footprint and 16 Ki … 64 Ki steps (≥ 4 passes over ≤ 16 Ki slots; past
    that the walk continues over launches; 8 Ki quick: a CPU's launch overhead is a thousand
    steps)."""
    if point["test"] == "walk":
        height, width = walk_shape(point["footprint"])
        slots = height * width * WALK_TEXEL // SPACING
        steps = 8192 if quick else int(min(64 * KIB, max(16 * KIB, 4 * slots)))
        return {"W": width, "H": height, "K": steps}
    width, height = image_size(point, device, quick)
    return _launch(point, width, height)


def _launch(point, width, height):
    if point["layout"] == "rows":
        return {"W": width, "H": height, "HB": height // point["fetches"]}
    group = point["workgroup"]
    groups = max(1, width * height // point["fetches"] // group)
    return {"W": width, "H": height, "N": groups * group}


def verify_sizes(point, device):
    """A small image (wrapping for clpeak's layout at large work-groups), the same kernel; the
    walk's at most 1 MiB (one kernel for every footprint: a 256 MiB ring costs seconds to make)."""
    if point["test"] == "walk":
        small = {**point, "footprint": min(point["footprint"], MIB)}
        return {**sizes(small, device, True), "K": 300}
    if point["layout"] == "rows":
        return _launch(point, 2 * point["workgroup"],
                       2 * point["workgroup_y"] * point["fetches"])
    return _launch(point, 64, 48)


def inputs(point, sizes, rng):
    if point["test"] == "walk":
        width, texels = sizes["W"], sizes["W"] * sizes["H"]
        nxt = ring_array(texels, SPACING // WALK_TEXEL, "random", rng)
        img = np.empty((texels, 4), dtype=np.int32)
        img[:, 0], img[:, 1] = nxt % width, nxt // width
        img[:, 2:] = rng.integers(0, texels, size=(texels, 2), dtype=np.int32)  # not read
        return {"img": img.reshape(sizes["H"], width, 4),
                "state": np.zeros(2, dtype=np.int32)}  # slot 0 is (0, 0)
    channels = TEXEL_BYTES[point["format"]] // 4
    # uniform in [0.5, 1.5), drawn as float32 (a 256 MiB image in a fraction of a second)
    img = rng.random((sizes["H"], sizes["W"], channels), dtype=np.float32)
    img += np.float32(0.5)
    return {"img": img if channels > 1 else img[..., 0]}


def fetched(point, sizes):
    """(items, fetches) flat pixel indices each work item reads, in the kernel's order."""
    width, height, fetches = sizes["W"], sizes["H"], point["fetches"]
    step = np.arange(fetches)
    if point["layout"] == "clpeak":
        items = np.arange(sizes["N"])
        return (items[:, None] + step[None, :] * sizes["N"]) % (width * height)
    band = sizes["HB"]
    y, x = np.divmod(np.arange(band * width), width)
    return (y[:, None] + step[None, :] * band) * width + x[:, None]


def reference(values, point, sizes):
    if point["test"] == "walk":
        img = values["img"]
        width = sizes["W"]
        nxt = (img[..., 1].astype(np.int64) * width + img[..., 0]).ravel()
        start = values["state"]
        end = walk_reference({"nxt": nxt, "state": np.array([start[1] * width + start[0]])},
                             sizes["K"])["state"][0]
        return {"state": np.array([end % width, end // width], dtype=np.int32)}
    pixels = values["img"].reshape(sizes["W"] * sizes["H"], -1)
    index = fetched(point, sizes)
    acc = np.zeros((index.shape[0], pixels.shape[1]), dtype=np.float32)
    for i in range(index.shape[1]):  # the kernel's order: a float4 (or float) sum, then lanes
        acc = (acc + pixels[index[:, i]]).astype(np.float32)
    total = acc[:, 0].copy()
    for lane in range(1, acc.shape[1]):
        total = (total + acc[:, lane]).astype(np.float32)
    return {"out": total}


def bytes_read(point, sizes):
    """clpeak's count: fetches per work item × texel bytes × global work items; walk: 8 B a
    step."""
    if point["test"] == "walk":
        return sizes["K"] * WALK_TEXEL
    items = sizes["N"] if point["layout"] == "clpeak" else sizes["W"] * sizes["HB"]
    return point["fetches"] * TEXEL_BYTES[point["format"]] * items


def steps(point, sizes):
    return sizes["K"] if point["test"] == "walk" else 0

# }}}


# {{{ the space

def _images_supported(point, device):
    if device is not None and device.image_support is False:
        return "the device has no image support (CL_DEVICE_IMAGE_SUPPORT is false)"
    return None


_DEFAULTS = {"layout": "clpeak", "coords": "int", "format": "rgba", "fetches": 16,
             "workgroup": WORKGROUPS[0], "workgroup_y": 1}


def _shape_fits(point, device):
    if point["test"] == "walk":
        if any(point[k] != v for k, v in _DEFAULTS.items()):
            return "the walk has one kernel: its bandwidth parameters stay at their defaults"
        if device is not None:
            limit = GPU_MAX if _is_gpu(device) else CPU_MAX
            if point["footprint"] > limit:
                return f"footprint {point['footprint']} B above this device's walk limit {limit} B"
            height, width = walk_shape(point["footprint"])
            max_w, max_h = image_limits(device)
            if width > max_w or height > max_h:
                return f"a {width}×{height} image is beyond the device's 2-D image limits"
        return None
    if point["footprint"] != FOOTPRINTS[0]:
        return "the bandwidth test's image size is clpeak's, not a footprint"
    if point["layout"] == "clpeak" and point["workgroup_y"] != 1:
        return "clpeak's layout is a 1-D NDRange"
    if device is not None and point["workgroup"] * point["workgroup_y"] > \
            device.max_work_group_size:
        return (f"work-group of {point['workgroup'] * point['workgroup_y']} items above the "
                f"device's {device.max_work_group_size}")
    return None


def clpeak_point(workgroup):
    """clpeak's shape at work-group size *workgroup* (clpeak's is the device's maximum)."""
    return {"test": "bandwidth", "layout": "clpeak", "coords": "int", "format": "rgba",
            "fetches": CLPEAK_FETCHES, "workgroup": workgroup}


def _rows(coords="int", fmt="rgba", fetches=16, group=(32, 8)):
    return {"test": "bandwidth", "layout": "rows", "coords": coords, "format": fmt,
            "fetches": fetches, "workgroup": group[0], "workgroup_y": group[1]}


def _clpeak_like(workgroup, coords="int", fmt="rgba", fetches=16):
    return {**clpeak_point(workgroup), "coords": coords, "format": fmt, "fetches": fetches}


#: clpeak's shape at every device's maximum work-group size (H200 1024, PoCL 4096, Intel's CPU
#: runtime 8192; the points above a device's maximum are excluded there) and at 256
CLPEAK_SWEEP = [clpeak_point(wg) for wg in (1024, 256, 4096, 8192)]
NEIGHBOUR_SWEEP = (
    [_clpeak_like(wg, coords="float") for wg in (1024, 4096, 8192)]
    + [_clpeak_like(wg, fetches=64) for wg in (1024, 4096, 8192)]
    + [_clpeak_like(wg, fmt="r") for wg in (1024, 4096, 8192)]
    + [_rows(group=g) for g in ((32, 8), (16, 16), (64, 4), (256, 1), (8, 32))]
    + [_rows(coords="float", group=g) for g in ((32, 8), (16, 16))]
    + [_rows(fetches=f, group=g) for f in (32, 64) for g in ((32, 8), (16, 16))]
    + [_rows(fmt="r", fetches=f) for f in (16, 64)])
WALK_SWEEP = [{"test": "walk", "footprint": f} for f in FOOTPRINTS]

SPEC = BenchmarkSpec(
    name="image_memory",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"test": ("bandwidth", "walk"), "layout": ("clpeak", "rows"),
            "coords": ("int", "float"), "format": ("rgba", "r"), "fetches": (16, 32, 64),
            "workgroup": WORKGROUPS, "workgroup_y": WORKGROUPS_Y,
            "footprint": tuple(sorted(set(FOOTPRINTS) | set(QUICK_FOOTPRINTS)))},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_read, "steps": steps},
    sweep=CLPEAK_SWEEP + NEIGHBOUR_SWEEP + WALK_SWEEP,
    quick_sweep=[clpeak_point(wg) for wg in (1024, 4096, 8192)]
    + [_clpeak_like(1024, coords="float"), _rows(), _rows(coords="float"), _rows(fmt="r"),
       _rows(fetches=64)]
    + [{"test": "walk", "footprint": f} for f in QUICK_FOOTPRINTS],
    constraints=[_images_supported, _shape_fits],
    analysis="image_memory",
    group="memory",
    tolerance={"float32": 1e-5, "int32": 0.0},
    # not on purpose: oclgrind 21.10's uninitialized-value plugin does not follow image memory
    # (every value read from an image filled from the host, numpy-checked, is reported
    # uninitialized; float4 image reads crash it), so oclgrind runs these without it
    exempt=frozenset({"uninitialized"}),
)

# }}}
