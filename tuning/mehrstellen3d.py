"""3-D 19-point Mehrstellen heat step: u_new = u + α (2 Σ faces + Σ edges − 24u), boundary fixed.

One explicit Euler step of the heat equation with the 19-point compact ("Mehrstellen", Collatz)
Laplacian, (2 Σ₆ faces + Σ₁₂ edges − 24u) / 6h², whose error is isotropic to fourth order where
the 7-point one's is not; α = κ dt / 6h². Each point reads the six face neighbours and the twelve
edge neighbours (the 3×3×3 box without its eight corners): 18 neighbours in three planes, where
laplace3d reads six and box3d27 all 26. Fixed (Dirichlet) boundary one point wide kept in both
ping-pong buffers (padded form: the domain is the interior only, no branch); x rows carry 16 pad
elements on each side so interior rows start aligned.

No knobs are declared: gencl derives the space from the program
(``gencl space mehrstellen3d --list``). It was written and measured while the 2026-11-26 rules on
which loads the compiler issues were chosen, and its measured space was not read until they were
set: predicted, not fitted (``tuning/model_developed_on.json`` does not name it).
"""

import itertools

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
#: the six faces and the twelve edges of the 3×3×3 box around a point, as (dk, dj, di)
FACES = tuple(d for d in itertools.product((-1, 0, 1), repeat=3) if sum(map(abs, d)) == 1)
EDGES = tuple(d for d in itertools.product((-1, 0, 1), repeat=3) if sum(map(abs, d)) == 2)
FLOPS_PER_POINT = 23  # 17 adds of the neighbours, 2·faces, 24u (mul, sub), α (mul), + u


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dk, dj, di):
        return f"u[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    faces = " + ".join(u(*d) for d in FACES)
    edges = " + ".join(u(*d) for d in EDGES)
    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"u_new[k + 1, j + 1, i + {PAD}] = {u(0, 0, 0)} "
        f"+ alpha * (2 * ({faces}) + {edges} - 24 * {u(0, 0, 0)})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("alpha", dtype),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="mehrstellen3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def _shifted(u, d):
    """The interior of logical grid *u* moved by d = (dk, dj, di)."""
    return u[tuple(slice(1 + s, u.shape[a] - 1 + s) for a, s in enumerate(d))]


def update(u, u_new, alpha):
    """Write the step of logical grid *u* into the interior of *u_new* (numpy or torch)."""
    c = u[1:-1, 1:-1, 1:-1]
    faces = sum(_shifted(u, d) for d in FACES)
    edges = sum(_shifted(u, d) for d in EDGES)
    u_new[1:-1, 1:-1, 1:-1] = c + alpha * (2 * faces + edges - 24 * c)
    return {"u_new": u_new}


def step(u, alpha):
    """One step of a logical grid (boundary kept), in the grid's dtype."""
    return update(u, u.copy(), alpha)["u_new"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    grid = rng.uniform(-1, 1, size=(sizes["nz"] + 2, sizes["ny"] + 2, sizes["nx"] + 2))
    grid = grid.astype(dtype)
    start = grid.copy()
    start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    # stable explicit steps: α ≤ 1/48 (the symbol's largest magnitude is 48)
    return {"u": to_padded(grid, PAD), "u_new": to_padded(start, PAD), "alpha": dtype(0.02)}


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
KERNEL void mehrstellen3d(GLOBAL const real *u, GLOBAL real *u_new, const real alpha,
                          const int nz, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, c = k * pz + j * px + i;
    const real faces = u[c - 1] + u[c + 1] + u[c - px] + u[c + px] + u[c - pz] + u[c + pz];
    const real edges = u[c - px - 1] + u[c - px + 1] + u[c + px - 1] + u[c + px + 1]
                     + u[c - pz - 1] + u[c - pz + 1] + u[c + pz - 1] + u[c + pz + 1]
                     + u[c - pz - px] + u[c - pz + px] + u[c + pz - px] + u[c + pz + px];
    u_new[c] = u[c] + alpha * (2 * faces + edges - 24 * u[c]);
}
"""
ARGS = ("u", "u_new", "alpha", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="mehrstellen3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
