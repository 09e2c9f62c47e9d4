"""High-order 3-D star stencil, radius 4 (25 points, 8th order in space, as in seismic codes).

u_new = c[0] u + Σ_{s=1..4} c[s] (six neighbours at distance s along x, y and z), on an
nz × ny × nx interior; the boundary (4 points wide) is fixed and kept in both ping-pong buffers.
The coefficients are an array, as a seismic code passes its finite-difference weights, and the
stencil is written as a sum over the radius s — the loop the derived space may unroll. x rows
carry 16 pad elements on each side so interior rows start aligned.

No knobs are declared: the space is derived from the program (``gencl space star3d_r4 --list``).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
R = 4  # radius
PAD = 16  # x pad elements on each side (≥ R): interior rows start 64-byte aligned in float32
#: 8th-order second-derivative weights (per axis; the centre weight is three times c0)
WEIGHTS = (-205 / 72, 8 / 5, -1 / 5, 8 / 315, -1 / 560)
FLOPS_PER_POINT = 1 + 7 * R  # c0 u; per radius five adds, one mul, one add to the sum


def program(point):
    dtype = DTYPES[point["dtype"]]
    o = (R, R, PAD)  # buffer index of interior point 0 along z, y, x

    def u(dk, dj, di):
        return f"u[k + {o[0]} + {dk}, j + {o[1]} + {dj}, i + {o[2]} + {di}]"

    ring = " + ".join(u(*d) for d in (
        (0, 0, "-s"), (0, 0, "s"), (0, "-s", 0), (0, "s", 0), ("-s", 0, 0), ("s", 0, 0)))
    shape = (f"nz + {2 * R}", f"ny + {2 * R}", f"nx + {2 * PAD}")
    return lp.make_kernel(
        f"{{[k, j, i, s]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx and 1 <= s <= {R}}}",
        f"u_new[k + {o[0]}, j + {o[1]}, i + {o[2]}] = c[0] * {u(0, 0, 0)} "
        f"+ sum(s, c[s] * ({ring}))",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.GlobalArg("c", dtype, shape=(R + 1,)),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="star3d_r4", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new, c):
    """Write the star stencil of logical grid *u* into the interior of *u_new* (numpy or
    torch): the radius-R halo of *u* is its boundary."""
    nz, ny, nx = (n - 2 * R for n in u.shape)
    inner = (slice(R, R + nz), slice(R, R + ny), slice(R, R + nx))
    acc = c[0] * u[inner]
    for s in range(1, R + 1):
        ring = (u[R - s:R - s + nz, R:R + ny, R:R + nx] + u[R + s:R + s + nz, R:R + ny, R:R + nx]
                + u[R:R + nz, R - s:R - s + ny, R:R + nx] + u[R:R + nz, R + s:R + s + ny, R:R + nx]
                + u[R:R + nz, R:R + ny, R - s:R - s + nx] + u[R:R + nz, R:R + ny, R + s:R + s + nx])
        acc = acc + c[s] * ring
    u_new[inner] = acc
    return {"u_new": u_new}


def step(u, c):
    """One application of the star stencil to a logical grid (boundary kept)."""
    return update(u, u.copy(), c)["u_new"]


def coefficients(dtype):
    """Laplacian weights scaled for a stable explicit step (the centre carries 1 − 3|w0|·dt)."""
    dt = 0.05
    w = np.array(WEIGHTS) * dt
    w[0] = 1 + 3 * w[0]
    return w.astype(dtype)


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    grid = rng.uniform(-1, 1, size=(sizes["nz"] + 2 * R, sizes["ny"] + 2 * R,
                                    sizes["nx"] + 2 * R)).astype(dtype)
    start = grid.copy()
    start[R:-R, R:-R, R:-R] = np.nan  # a point the kernel misses cannot pass
    return {"u": to_padded(grid, PAD, radius=R), "u_new": to_padded(start, PAD, radius=R),
            "c": coefficients(dtype)}


def reference(values, point, sizes):
    u = from_padded(values["u"], PAD, radius=R)
    return {"u_new": to_padded(step(u, values["c"]), PAD, radius=R)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    u = np.ascontiguousarray(from_padded(ctx.inputs["u"], PAD, radius=R))
    start = u.copy()
    start[R:-R, R:-R, R:-R] = np.nan
    return {"u": u, "u_new": start, "c": ctx.inputs["c"]}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], g["c"])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void star3d_r4(GLOBAL const real *u, GLOBAL real *u_new, GLOBAL const real *c,
                      const int nz, const int ny, const int nx)
{
    const int i = GX + 4, j = GY + 4, k = GZ + 4;
    if (i >= nx + 4 || j >= ny + 4 || k >= nz + 4) return;
    const long px = nx + 8, pz = (long)(ny + 8) * px, o = k * pz + j * px + i;
    real acc = c[0] * u[o];
    for (int s = 1; s <= 4; ++s)
        acc += c[s] * (u[o - s] + u[o + s] + u[o - s * px] + u[o + s * px] + u[o - s * pz]
                       + u[o + s * pz]);
    u_new[o] = acc;
}
"""
ARGS = ("u", "u_new", "c", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="star3d_r4", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
