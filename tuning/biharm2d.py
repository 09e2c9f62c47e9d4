"""2-D biharmonic smoothing step, 13 points: u_new = u − α Δ²u, boundary fixed.

Δ²u = 20u − 8 Σ₄ axis neighbours + 2 Σ₄ diagonal neighbours + Σ₄ neighbours two away: the
13-point biharmonic (thin plates, thin-film flow, the fourth-order term of Cahn–Hilliard). One
explicit step on an ny × nx interior with a fixed (Dirichlet) boundary two points wide kept in
both ping-pong buffers (padded form: the domain is the interior only, no branch); x rows carry
16 pad elements on each side, like the other suite kernels. Radius 2 with diagonals: five rows,
where star2d_r2 reads the same five rows without the diagonals and box2d9 three.

No knobs are declared: gencl derives the space from the program (``gencl space biharm2d --list``).
It was written and measured after the 2026-11-26 next-level rules (``gencl.model._cache_reuse``
``first_level_fills`` and the request/sector split) were set: predicted, not fitted
(``tuning/model_developed_on.json`` does not name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_2D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
R = 2  # radius
PAD = 16  # x pad elements on each side (≥ R): interior rows start 64-byte aligned in float32
FLOPS_PER_POINT = 17  # 9 adds of the 12 neighbours, 3 weights (mul), 3 adds, α, − from u
#: (dj, di) of the axis neighbours, the diagonal ones, and those two away along an axis
NEAR = ((0, -1), (0, 1), (-1, 0), (1, 0))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
FAR = ((0, -2), (0, 2), (-2, 0), (2, 0))


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dj, di):
        return f"u[j + {R + dj}, i + {PAD + di}]"

    near, diagonal, far = (" + ".join(u(*d) for d in ds) for ds in (NEAR, DIAGONAL, FAR))
    shape = (f"ny + {2 * R}", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        f"u_new[j + {R}, i + {PAD}] = {u(0, 0)} - alpha * "
        f"(20 * {u(0, 0)} - 8 * ({near}) + 2 * ({diagonal}) + ({far}))",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("alpha", dtype), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="biharm2d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def _shifted(u, d):
    """The interior of logical grid *u* moved by d = (dj, di)."""
    return u[tuple(slice(R + s, u.shape[a] - R + s) for a, s in enumerate(d))]


def update(u, u_new, alpha):
    """Write the step of logical grid *u* into the interior of *u_new* (numpy or torch)."""
    c = _shifted(u, (0, 0))
    near, diagonal, far = (sum(_shifted(u, d) for d in ds) for ds in (NEAR, DIAGONAL, FAR))
    u_new[R:-R, R:-R] = c - alpha * (20 * c - 8 * near + 2 * diagonal + far)
    return {"u_new": u_new}


def step(u, alpha):
    """One step of a logical grid (boundary kept), in the grid's dtype."""
    return update(u, u.copy(), alpha)["u_new"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    grid = rng.uniform(-1, 1, size=(sizes["ny"] + 2 * R, sizes["nx"] + 2 * R)).astype(dtype)
    start = grid.copy()
    start[R:-R, R:-R] = np.nan  # a point the kernel misses cannot pass
    # stable explicit steps: α ≤ 1/32 (the symbol's largest magnitude is 64)
    return {"u": to_padded(grid, PAD, radius=R), "u_new": to_padded(start, PAD, radius=R),
            "alpha": dtype(0.01)}


def reference(values, point, sizes):
    u = from_padded(values["u"], PAD, radius=R)
    return {"u_new": to_padded(step(u, values["alpha"]), PAD, radius=R)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    u = np.ascontiguousarray(from_padded(ctx.inputs["u"], PAD, radius=R))
    start = u.copy()
    start[R:-R, R:-R] = np.nan
    return {"u": u, "u_new": start, "alpha": ctx.inputs["alpha"]}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], g["alpha"])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void biharm2d(GLOBAL const real *u, GLOBAL real *u_new, const real alpha,
                     const int ny, const int nx)
{
    const int i = GX + 2, j = GY + 2;
    if (i >= nx + 2 || j >= ny + 2) return;
    const long p = nx + 4, c = j * p + i;
    const real near = u[c - 1] + u[c + 1] + u[c - p] + u[c + p];
    const real diagonal = u[c - p - 1] + u[c - p + 1] + u[c + p - 1] + u[c + p + 1];
    const real far = u[c - 2] + u[c + 2] + u[c - 2 * p] + u[c + 2 * p];
    u_new[c] = u[c] - alpha * (20 * u[c] - 8 * near + 2 * diagonal + far);
}
"""
ARGS = ("u", "u_new", "alpha", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="biharm2d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_2D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
