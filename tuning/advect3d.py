"""3-D upwind advection, second order: u_new = u − ½ Σₐ cₐ (3u − 4u₋₁ + u₋₂) along each axis a.

One explicit step of u_t + c·∇u = 0 with a constant velocity c > 0 on an nz × ny × nx interior,
each derivative the second-order one-sided (upwind) difference: the stencil reads only the
points behind a point along each axis, two deep, an asymmetric halo (2 behind, none ahead).
The buffers hold a fixed boundary two points wide on every side (padded form: the domain is the
interior only, no branch); x rows carry 16 pad elements on each side so interior rows start
aligned. A solver ping-pongs u and u_new; the boundary is written once into both buffers.

No knobs are declared: gencl derives the space from the program (``gencl space advect3d
--list``). It was written on 2026-11-26 after that session's model terms were set, to be
predicted, not fitted (``tuning/model_developed_on.json`` does not name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
R = 2  # halo depth behind a point along each axis
PAD = 16  # x pad elements on each side (≥ R): interior rows start 64-byte aligned in float32
FLOPS_PER_POINT = 19  # per axis 3u, 4u₋₁ (mul), −, + (add), × c; the three summed, × ½, u −


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dk, dj, di):
        return f"u[k + {R + dk}, j + {R + dj}, i + {PAD + di}]"

    def upwind(c, axis):
        one, two = [tuple(-d if a == axis else 0 for a in range(3)) for d in (1, 2)]
        return f"{c} * (3 * {u(0, 0, 0)} - 4 * {u(*one)} + {u(*two)})"

    flux = " + ".join(upwind(c, a) for c, a in (("cz", 0), ("cy", 1), ("cx", 2)))
    shape = (f"nz + {2 * R}", f"ny + {2 * R}", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"u_new[k + {R}, j + {R}, i + {PAD}] = {u(0, 0, 0)} - 0.5 * ({flux})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("cz", dtype), lp.ValueArg("cy", dtype), lp.ValueArg("cx", dtype),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="advect3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new, cz, cy, cx):
    """Write the step of logical grid *u* into the interior of *u_new* (numpy or torch)."""
    c = u[R:-R, R:-R, R:-R]
    dz = 3 * c - 4 * u[R - 1:-R - 1, R:-R, R:-R] + u[R - 2:-R - 2, R:-R, R:-R]
    dy = 3 * c - 4 * u[R:-R, R - 1:-R - 1, R:-R] + u[R:-R, R - 2:-R - 2, R:-R]
    dx = 3 * c - 4 * u[R:-R, R:-R, R - 1:-R - 1] + u[R:-R, R:-R, R - 2:-R - 2]
    u_new[R:-R, R:-R, R:-R] = c - 0.5 * (cz * dz + cy * dy + cx * dx)
    return {"u_new": u_new}


def step(u, cz, cy, cx):
    """One step of a logical grid (boundary kept), in the grid's dtype."""
    return update(u, u.copy(), cz, cy, cx)["u_new"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    grid = rng.uniform(-1, 1, size=tuple(sizes[a] + 2 * R for a in ("nz", "ny", "nx")))
    grid = grid.astype(dtype)
    start = grid.copy()
    start[R:-R, R:-R, R:-R] = np.nan  # a point the kernel misses cannot pass
    # Courant numbers below the scheme's limit, unequal so that a swapped axis cannot pass
    return {"u": to_padded(grid, PAD, radius=R), "u_new": to_padded(start, PAD, radius=R),
            "cz": dtype(0.11), "cy": dtype(0.17), "cx": dtype(0.23)}


def reference(values, point, sizes):
    u = from_padded(values["u"], PAD, radius=R)
    return {"u_new": to_padded(step(u, values["cz"], values["cy"], values["cx"]), PAD,
                               radius=R)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    u = np.ascontiguousarray(from_padded(ctx.inputs["u"], PAD, radius=R))
    start = u.copy()
    start[R:-R, R:-R, R:-R] = np.nan
    return {"u": u, "u_new": start, **{c: ctx.inputs[c] for c in ("cz", "cy", "cx")}}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], g["cz"], g["cy"], g["cx"])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void advect3d(GLOBAL const real *u, GLOBAL real *u_new, const real cz, const real cy,
                     const real cx, const int nz, const int ny, const int nx)
{
    const int i = GX + 2, j = GY + 2, k = GZ + 2;
    if (i >= nx + 2 || j >= ny + 2 || k >= nz + 2) return;
    const long px = nx + 4, pz = (long)(ny + 4) * px, c = k * pz + j * px + i;
    const real dz = 3 * u[c] - 4 * u[c - pz] + u[c - 2 * pz];
    const real dy = 3 * u[c] - 4 * u[c - px] + u[c - 2 * px];
    const real dx = 3 * u[c] - 4 * u[c - 1] + u[c - 2];
    u_new[c] = u[c] - (real)0.5 * (cz * dz + cy * dy + cx * dx);
}
"""
ARGS = ("u", "u_new", "cz", "cy", "cx", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="advect3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
