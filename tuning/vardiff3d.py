"""3-D variable-coefficient diffusion step: u_new = u + a (u_W + u_E + u_S + u_N + u_B + u_T − 6u).

One explicit step of ∂u/∂t = κ(x) Δu with the diffusivity a per point (κ dt / h², a field of its
own, as a heterogeneous medium has), on an nz × ny × nx interior with a fixed boundary one point
wide kept in both ping-pong buffers (padded form: the domain is the interior only, no branch).
Unlike laplace3d each point reads a second array once: a stream with no reuse beside the
neighbour reuse of u. Both arrays share the buffer layout (x rows carry 16 pad elements on each
side so interior rows start aligned; a's boundary entries are never read).

No knobs are declared: gencl derives the space from the program (``gencl space vardiff3d --list``).
It was added after the model's terms were built, to be predicted, not fitted
(``tuning/model_developed_on.json`` does not name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
FLOPS_PER_POINT = 9  # five adds of the neighbours, 6u (mul, sub), a (mul), + u (add)


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dk, dj, di):
        return f"u[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    neighbours = " + ".join(u(*d) for d in ((0, 0, -1), (0, 0, 1), (0, -1, 0), (0, 1, 0),
                                            (-1, 0, 0), (1, 0, 0)))
    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"u_new[k + 1, j + 1, i + {PAD}] = {u(0, 0, 0)} "
        f"+ a[k + 1, j + 1, i + {PAD}] * ({neighbours} - 6 * {u(0, 0, 0)})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("a", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="vardiff3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


def update(u, u_new, a):
    """Write the step of logical grid *u* with interior coefficients *a* into the interior of
    *u_new* (numpy or torch)."""
    c = u[1:-1, 1:-1, 1:-1]
    u_new[1:-1, 1:-1, 1:-1] = c + a * (
        u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
        + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] - 6 * c)
    return {"u_new": u_new}


def step(u, a):
    """One step of a logical grid *u* (boundary kept) with the interior's coefficients *a*."""
    return update(u, u.copy(), a)["u_new"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    nz, ny, nx = sizes["nz"], sizes["ny"], sizes["nx"]
    grid = rng.uniform(-1, 1, size=(nz + 2, ny + 2, nx + 2)).astype(dtype)
    start = grid.copy()
    start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    # stable explicit steps: a ≤ 1/6
    a = rng.uniform(0.01, 1 / 6, size=(nz + 2, ny + 2, nx + 2)).astype(dtype)
    return {"u": to_padded(grid, PAD), "a": to_padded(a, PAD), "u_new": to_padded(start, PAD)}


def reference(values, point, sizes):
    a = from_padded(values["a"], PAD)[1:-1, 1:-1, 1:-1]
    return {"u_new": to_padded(step(from_padded(values["u"], PAD), a), PAD)}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids (a: the interior only); u_new holds the boundary, its
    interior NaN."""
    u = np.ascontiguousarray(from_padded(ctx.inputs["u"], PAD))
    a = np.ascontiguousarray(from_padded(ctx.inputs["a"], PAD)[1:-1, 1:-1, 1:-1])
    start = u.copy()
    start[1:-1, 1:-1, 1:-1] = np.nan
    return {"u": u, "u_new": start, "a": a}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], g["a"])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void vardiff3d(GLOBAL const real *u, GLOBAL real *u_new, GLOBAL const real *a,
                      const int nz, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, c = k * pz + j * px + i;
    const long ac = ((long)(k - 1) * ny + (j - 1)) * nx + (i - 1);
    u_new[c] = u[c] + a[ac] * (u[c - 1] + u[c + 1] + u[c - px] + u[c + px] + u[c - pz]
                               + u[c + pz] - 6 * u[c]);
}
"""
ARGS = ("u", "u_new", "a", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="vardiff3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=3, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
