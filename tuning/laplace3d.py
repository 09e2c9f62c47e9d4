"""3-D 7-point heat step: u_new = u + α (u_W + u_E + u_S + u_N + u_B + u_T − 6u), boundary fixed.

One explicit Euler step of the heat equation on an nz × ny × nx interior with a fixed (Dirichlet)
boundary one point wide; a solver ping-pongs u and u_new. The buffers hold the boundary (padded
form: the domain is the interior only, no branch); x rows carry 16 pad elements on each side so
interior rows start aligned (float16 loads stay aligned; the boundary column sits at pad − 1).
The boundary is written once into both ping-pong buffers and no step writes it.

No knobs are declared: gencl derives the space from the program (vector width along x, work-group
shape, points per work item along y, streaming along z with the ±1 planes in registers, a local
tile with its halo): ``gencl space laplace3d --list`` prints it.
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
FLOPS_PER_POINT = 9  # five adds of the neighbours, 6u (mul, sub), α (mul), + u (add)


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dk, dj, di):
        return f"u[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    neighbours = " + ".join(u(*d) for d in ((0, 0, -1), (0, 0, 1), (0, -1, 0), (0, 1, 0),
                                            (-1, 0, 0), (1, 0, 0)))
    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"u_new[k + 1, j + 1, i + {PAD}] = {u(0, 0, 0)} + alpha * ({neighbours} - 6 * {u(0, 0, 0)})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("alpha", dtype),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="laplace3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new, alpha):
    """Write the heat step of logical grid *u* into the interior of *u_new* (numpy or torch)."""
    c = u[1:-1, 1:-1, 1:-1]
    u_new[1:-1, 1:-1, 1:-1] = c + alpha * (
        u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
        + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] - 6 * c)
    return {"u_new": u_new}


def step(u, alpha):
    """One heat step of a logical grid (boundary kept), in the grid's dtype."""
    return update(u, u.copy(), alpha)["u_new"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    grid = rng.uniform(-1, 1, size=(sizes["nz"] + 2, sizes["ny"] + 2, sizes["nx"] + 2))
    grid = grid.astype(dtype)
    start = grid.copy()
    start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    return {"u": to_padded(grid, PAD), "u_new": to_padded(start, PAD), "alpha": dtype(0.1)}


def reference(values, point, sizes):
    return {"u_new": to_padded(step(from_padded(values["u"], PAD), values["alpha"]), PAD)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    u = np.ascontiguousarray(from_padded(ctx.inputs["u"], PAD))
    start = u.copy()
    start[1:-1, 1:-1, 1:-1] = np.nan
    return {"u": u, "u_new": start, "alpha": ctx.inputs["alpha"]}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], g["alpha"])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void laplace3d(GLOBAL const real *u, GLOBAL real *u_new, const real alpha,
                      const int nz, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, c = k * pz + j * px + i;
    u_new[c] = u[c] + alpha * (u[c - 1] + u[c + 1] + u[c - px] + u[c + px] + u[c - pz]
                               + u[c + pz] - 6 * u[c]);
}
"""
ARGS = ("u", "u_new", "alpha", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="laplace3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
