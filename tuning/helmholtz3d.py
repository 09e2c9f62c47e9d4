"""3-D Helmholtz Jacobi sweep: u_new = (f + u_W + u_E + u_S + u_N + u_B + u_T) / (6 + σ).

One Jacobi sweep of (−Δ + σ) u = f (grid spacing 1) with a variable, positive coefficient σ, on
an nz × ny × nx interior with a fixed (Dirichlet) boundary one point wide; a solver ping-pongs u
and u_new. Three arrays are read (u at seven points, f and σ at one) and one written, and every
point divides: a 7-point star whose compulsory traffic is twice the heat step's, with a
division where the suite's other stencils multiply. Every array shares the padded layout (x rows
carry 16 pad elements on each side so interior rows start aligned, one layer of boundary along
y and z).

No knobs are declared: the space is derived from the program (``gencl space helmholtz3d
--list``). It was written on 2026-11-29 (fourteenth session), after the rounds ptxas schedules in
a kept loop were priced (``gencl.model._schedule.scheduled_loop_rounds``), to be predicted, not
fitted: ``tuning/model_developed_on.json`` does not name it.
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
FLOPS_PER_POINT = 8  # six adds of the neighbours and f, 6 + σ, one division


def program(point):
    dtype = DTYPES[point["dtype"]]

    def at(name, dk, dj, di):
        return f"{name}[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    neighbours = " + ".join(at("u", *d) for d in ((0, 0, -1), (0, 0, 1), (0, -1, 0),
                                                  (0, 1, 0), (-1, 0, 0), (1, 0, 0)))
    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"{at('u_new', 0, 0, 0)} = ({at('f', 0, 0, 0)} + {neighbours}) "
        f"/ (6 + {at('sigma', 0, 0, 0)})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("f", dtype, shape=shape),
         lp.GlobalArg("sigma", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="helmholtz3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, f, sigma, u_new):
    """Write the sweep of logical grids *u*, *f*, *sigma* into the interior of *u_new* (numpy
    or torch)."""
    u_new[1:-1, 1:-1, 1:-1] = (
        f[1:-1, 1:-1, 1:-1] + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1]
        + u[1:-1, 2:, 1:-1] + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1]) \
        / (6 + sigma[1:-1, 1:-1, 1:-1])
    return {"u_new": u_new}


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["nz"] + 2, sizes["ny"] + 2, sizes["nx"] + 2)
    u = rng.uniform(-1, 1, size=shape).astype(dtype)
    f = rng.uniform(-1, 1, size=shape).astype(dtype)
    sigma = rng.uniform(0.5, 1.5, size=shape).astype(dtype)
    start = u.copy()
    start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    return {"u": to_padded(u, PAD), "f": to_padded(f, PAD), "sigma": to_padded(sigma, PAD),
            "u_new": to_padded(start, PAD)}


def reference(values, point, sizes):
    grids = {k: from_padded(values[k], PAD) for k in ("u", "f", "sigma", "u_new")}
    out = update(grids["u"], grids["f"], grids["sigma"], grids["u_new"].copy())
    return {"u_new": to_padded(out["u_new"], PAD)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    return {k: np.ascontiguousarray(from_padded(ctx.inputs[k], PAD))
            for k in ("u", "f", "sigma", "u_new")}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return update(g["u"], g["f"], g["sigma"], g["u_new"].copy())


#: the sweep as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void helmholtz3d(GLOBAL const real *u, GLOBAL const real *f, GLOBAL const real *sigma,
                        GLOBAL real *u_new, const int nz, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, c = k * pz + j * px + i;
    u_new[c] = (f[c] + u[c - 1] + u[c + 1] + u[c - px] + u[c + px] + u[c - pz] + u[c + pz])
               / (6 + sigma[c]);
}
"""
ARGS = ("u", "f", "sigma", "u_new", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="helmholtz3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=4, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
