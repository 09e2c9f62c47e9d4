"""3-D heat step, fourth order in space: u_new = u + κ Σₐ (−u₋₂ + 16u₋₁ − 30u + 16u₊₁ − u₊₂)/12.

One explicit step of u_t = κ ∇²u with the fourth-order central second difference along each
axis: 13 points of one array (a star of radius 2), written out point by point as a user
transcribes the formula, with the diffusion number κ dt / h² a kernel argument. The suite's 3-D
stars reach one point out (laplace3d, 7 points) or four, summed over the radius as a loop
(star3d_r4, 25); this one needs five planes in flight along z and five rows along y. Fixed
boundary two points wide, kept in both ping-pong buffers (padded form: the domain is the
interior only, no branch); x rows carry 16 pad elements on each side, so interior rows start 64
bytes into a cache line, as in the other suite kernels.

No knobs are declared: gencl derives the space from the program (``gencl space heat3d_o4
--list``). It was written on 2026-12-05 (fortieth session), after every term of the model was
committed, and predicted before it was measured (``tuning/model_developed_on.json`` does not
name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
R = 2  # radius
PAD = 16  # x pad elements on each side (≥ R): interior rows start 64 bytes into a line
#: the fourth-order second difference's weights at distance 0, 1, 2 (before the 1/12)
WEIGHTS = (-30.0, 16.0, -1.0)
#: per axis two adds at each distance, two multiplications and two adds between them; the
#: centre's multiplication, two adds between the axes, × κ/12 and + u
FLOPS_PER_POINT = 3 * 6 + 5


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dk, dj, di):
        return f"u[k + {R + dk}, j + {R + dj}, i + {PAD + di}]"

    def ring(s):
        return " + ".join(u(*d) for d in ((0, 0, -s), (0, 0, s), (0, -s, 0), (0, s, 0),
                                          (-s, 0, 0), (s, 0, 0)))

    laplacian = (f"{3 * WEIGHTS[0]!r} * {u(0, 0, 0)} + {WEIGHTS[1]!r} * ({ring(1)}) "
                 f"+ {WEIGHTS[2]!r} * ({ring(2)})")
    shape = (f"nz + {2 * R}", f"ny + {2 * R}", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"u_new[k + {R}, j + {R}, i + {PAD}] = {u(0, 0, 0)} + kappa / 12 * ({laplacian})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("kappa", dtype),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="heat3d_o4", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new, kappa):
    """Write the step of logical grid *u* (boundary R wide) into the interior of *u_new*
    (numpy or torch)."""
    nz, ny, nx = (n - 2 * R for n in u.shape)

    def shifted(dk, dj, di):
        return u[R + dk:R + dk + nz, R + dj:R + dj + ny, R + di:R + di + nx]

    centre = shifted(0, 0, 0)
    laplacian = 3 * WEIGHTS[0] * centre
    for s in (1, 2):
        ring = (shifted(0, 0, -s) + shifted(0, 0, s) + shifted(0, -s, 0) + shifted(0, s, 0)
                + shifted(-s, 0, 0) + shifted(s, 0, 0))
        laplacian = laplacian + WEIGHTS[s] * ring
    u_new[R:-R, R:-R, R:-R] = centre + kappa / 12 * laplacian
    return {"u_new": u_new}


def step(u, kappa):
    """One step of a logical grid (boundary kept)."""
    return update(u, u.copy(), kappa)["u_new"]


#: κ dt / h²: stable for the fourth-order star (its largest eigenvalue is 3 · 64/12 = 16)
KAPPA = 0.1


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    grid = rng.uniform(-1, 1, size=(sizes["nz"] + 2 * R, sizes["ny"] + 2 * R,
                                    sizes["nx"] + 2 * R)).astype(dtype)
    start = grid.copy()
    start[R:-R, R:-R, R:-R] = np.nan  # a point the kernel misses cannot pass
    return {"u": to_padded(grid, PAD, radius=R), "u_new": to_padded(start, PAD, radius=R),
            "kappa": dtype(KAPPA)}


def reference(values, point, sizes):
    u = from_padded(values["u"], PAD, radius=R)
    return {"u_new": to_padded(step(u, values["kappa"]), PAD, radius=R)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    u = np.ascontiguousarray(from_padded(ctx.inputs["u"], PAD, radius=R))
    start = u.copy()
    start[R:-R, R:-R, R:-R] = np.nan
    return {"u": u, "u_new": start, "kappa": ctx.inputs["kappa"]}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], g["kappa"])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void heat3d_o4(GLOBAL const real *u, GLOBAL real *u_new, const real kappa,
                      const int nz, const int ny, const int nx)
{
    const int i = GX + 2, j = GY + 2, k = GZ + 2;
    if (i >= nx + 2 || j >= ny + 2 || k >= nz + 2) return;
    const long px = nx + 4, pz = (long)(ny + 4) * px, o = k * pz + j * px + i;
    real lap = -90 * u[o];
    for (int s = 1; s <= 2; ++s) {
        const real w = s == 1 ? 16 : -1;
        lap += w * (u[o - s] + u[o + s] + u[o - s * px] + u[o + s * px] + u[o - s * pz]
                    + u[o + s * pz]);
    }
    u_new[o] = u[o] + kappa / 12 * lap;
}
"""
ARGS = ("u", "u_new", "kappa", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="heat3d_o4", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
