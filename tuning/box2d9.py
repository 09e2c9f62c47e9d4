"""2-D 9-point box stencil with knobs bound by hand: streaming along y, vector width along x.

u_new = c0 u + c1 (4 edge neighbours) + c2 (4 corner neighbours) on an ny × nx interior with a
fixed boundary one point wide kept in both ping-pong buffers (padded form: interior-only domain,
no branch); x rows carry 16 pad elements on each side so interior rows start aligned.

Unlike the 3-D suite kernels this one binds its knobs itself, as a user who knows the transforms
would (temporal blocking too: ``temporal``, ``sweeps``, ``temporal_points``, gencl's generic
transform): each work item sweeps a chunk of rows (``stream``, the streaming knob along y: the rows
above and below stay in registers), computes ``vector_width`` consecutive points along x as one
vector (unaligned neighbours gathered lane by lane), in a work-group of ``workgroup`` (x, y).
"""

import loopy as lp
import numpy as np

from gencl.generate.temporal import offered, temporal_constraint, temporal_knobs
from gencl.spec import ApplicationHooks, BenchmarkSpec, Knob
from gencl.spec.stencil_step import GRID_2D, from_padded, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
WEIGHTS = (0.5, 0.1, 0.025)  # centre, edge, corner
FLOPS_PER_POINT = 11  # 3 + 3 adds within the classes, 2 between them, 3 multiplications


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dj, di):
        return f"u[j + {1 + dj}, i + {PAD + di}]"

    edges = " + ".join(u(*d) for d in ((0, -1), (0, 1), (-1, 0), (1, 0)))
    corners = " + ".join(u(*d) for d in ((-1, -1), (-1, 1), (1, -1), (1, 1)))
    shape = ("ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        f"u_new[j + 1, i + {PAD}] = c0 * {u(0, 0)} + c1 * ({edges}) + c2 * ({corners})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         *(lp.ValueArg(f"c{c}", dtype) for c in range(3)),
         lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="box2d9", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new, c0, c1, c2):
    """Write the box stencil of logical grid *u* into the interior of *u_new* (numpy or
    torch)."""
    edges = u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1]
    corners = u[:-2, :-2] + u[:-2, 2:] + u[2:, :-2] + u[2:, 2:]
    u_new[1:-1, 1:-1] = c0 * u[1:-1, 1:-1] + c1 * edges + c2 * corners
    return {"u_new": u_new}


def step(u, c):
    """One application of the box stencil to a logical grid (boundary kept)."""
    return update(u, u.copy(), *c)["u_new"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    grid = rng.uniform(-1, 1, size=(sizes["ny"] + 2, sizes["nx"] + 2)).astype(dtype)
    start = grid.copy()
    start[1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    return {"u": to_padded(grid, PAD), "u_new": to_padded(start, PAD),
            **{f"c{c}": dtype(w) for c, w in enumerate(WEIGHTS)}}


def reference(values, point, sizes):
    c = [values[f"c{k}"] for k in range(3)]
    return {"u_new": to_padded(step(from_padded(values["u"], PAD), c), PAD)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    u = np.ascontiguousarray(from_padded(ctx.inputs["u"], PAD))
    start = u.copy()
    start[1:-1, 1:-1] = np.nan
    return {"u": u, "u_new": start, **{f"c{k}": ctx.inputs[f"c{k}"] for k in range(3)}}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], [g[f"c{k}"] for k in range(3)])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void box2d9(GLOBAL const real *u, GLOBAL real *u_new, const real c0, const real c1,
                   const real c2, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1;
    if (i > nx || j > ny) return;
    const long p = nx + 2, o = j * p + i;
    u_new[o] = c0 * u[o] + c1 * (u[o - 1] + u[o + 1] + u[o - p] + u[o + p])
               + c2 * (u[o - p - 1] + u[o - p + 1] + u[o + p - 1] + u[o + p + 1]);
}
"""
ARGS = ("u", "u_new", "c0", "c1", "c2", "ny", "nx")


def peers():
    """``ApplicationHooks.peers`` of this kernel: NAIVE in OpenCL and CUDA, and
    ``update`` under torch eager and torch.compile."""
    from gencl.peers import naive_and_torch_peers

    return naive_and_torch_peers("box2d9", source=NAIVE, args=ARGS, block=GRID_2D.block,
                                 extents=GRID_2D.extents, update=update, inputs=logical_inputs,
                                 expected=logical_reference)

# }}}


# {{{ space

WORKGROUPS = ((32, 4), (64, 2), (64, 4), (128, 1), (128, 2), (256, 1), (32, 8), (256, 2))


def tile(point):
    """(x, y) points one work-group updates."""
    wx, wy = point["workgroup"]
    return wx * point["vector_width"], wy * point["stream"]


sizes = GRID_2D.sizes  # the suite's 2-D grid: 8192² on a GPU, 2048² on a CPU


def verify_sizes(point, device):
    """A full tile plus a partial one along both axes (x stays a multiple of the vector)."""
    tx, ty = tile(point)
    return {"ny": ty + 3, "nx": tx + point["vector_width"]}


def _fits(point, device):
    if device is None:
        return None
    wx, wy = point["workgroup"]
    if wx * wy > device.max_work_group_size:
        return f"work-group {wx * wy} > device max {device.max_work_group_size}"
    n = sizes(point, device, False)
    tx, ty = tile(point)
    if tx > n["nx"] or ty > n["ny"]:
        return f"tile {tx}x{ty} larger than the grid"
    return None

# }}}


def compulsory_bytes(point, sizes):
    """Read u once, write u_new once per interior point."""
    return 2 * np.dtype(DTYPES[point["dtype"]]).itemsize * points(point, sizes)


def points(point, sizes):
    return sizes["ny"] * sizes["nx"]


PING_PONG = (("u_new", "u"),)
PLAIN = {"vector_width": 1, "stream": 1}
TEMPORAL_RULE = temporal_constraint(program, PING_PONG, params=("dtype",), defaults=PLAIN,
                                    sizes=sizes, workgroups=WORKGROUPS)
#: the temporal axes, cut to the values some work-group can take
TEMPORAL_KNOBS = offered(temporal_knobs(2, PING_PONG), TEMPORAL_RULE,
                         {"dtype": "float32", **PLAIN}, "workgroup", WORKGROUPS) or {}

SPEC = BenchmarkSpec(
    name="box2d9",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"dtype": tuple(DTYPES)},
    knobs={
        # temporal blocking (gencl.generate.temporal), first: it replaces the program
        **TEMPORAL_KNOBS,
        "vector_width": Knob("vector", (1, 2, 4, 8), {
            "iname": "i", "arrays": ("u", "u_new"), "size": "nx", "gather": True}),
        "stream": Knob("streaming", (1, 4, 16, 64), {"iname": "j"}),
        "workgroup": Knob("workgroup", WORKGROUPS, {"inames": ("i", "j")}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": compulsory_bytes, "points": points,
             "flops": lambda p, s: FLOPS_PER_POINT * points(p, s)},
    constraints=[TEMPORAL_RULE, _fits],
    group="application",
    # u_new feeds u on the next sweep: correctness is checked over several launches
    hooks=ApplicationHooks(ping_pong=PING_PONG, compulsory_bytes=compulsory_bytes,
                           peers=peers()),
    tolerance={"float32": 1e-5, "float64": 1e-12},
)
