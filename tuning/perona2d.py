"""2-D Perona–Malik diffusion step: u_new = u + ¼ Σ_neighbours d / (1 + d²), d = u_n − u.

One explicit step of the nonlinear, edge-preserving diffusion of Perona and Malik (1990),
∂u/∂t = ∇·(g(|∇u|) ∇u) with g(s) = 1 / (1 + (s/K)²), K = 1, on an ny × nx interior: each of the
four neighbour differences is carried through its own conductance (a division), then the four
fluxes are summed at ¼ (stable: each flux is at most ½ in magnitude). One array read at five
points and one written, as the 5-point linear steps, but four divisions a point where they
have none. Fixed boundary one point wide, kept in both ping-pong buffers (padded form: the
domain is the interior only, no branch); x rows carry 16 pad elements on each side, so interior
rows start 64 bytes into a cache line, as in the other suite kernels.

No knobs are declared: gencl derives the space from the program (``gencl space perona2d
--list``). It was written after the per-device residual (``gencl.model._residual``) was fixed,
and predicted before it was measured; developed on since 2026-11-29, whose wide stores' term
was chosen over its space too (``tuning/model_developed_on.json`` says so).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_2D, OneGridStep, stencil_step_spec

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64 bytes into a line in float32
#: per neighbour a difference, its square, 1 + it, the division (and the difference again, as
#: written); the three adds of the fluxes, the quarter and + u
FLOPS_PER_POINT = 21
NEIGHBOURS = ((0, 1), (0, -1), (1, 0), (-1, 0))


def program(point):
    dtype = DTYPES[point["dtype"]]

    def at(name, dj, di):
        return f"{name}[j + {1 + dj}, i + {PAD + di}]"

    c = at("u", 0, 0)
    fluxes = " + ".join(f"({at('u', dj, di)} - {c}) / (1 + ({at('u', dj, di)} - {c}) * "
                        f"({at('u', dj, di)} - {c}))" for dj, di in NEIGHBOURS)
    shape = ("ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        f"u_new[j + 1, i + {PAD}] = {c} + ({fluxes}) / 4",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="perona2d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new):
    """Write the step of logical grid *u* into the interior of *u_new* (numpy or torch)."""
    c = u[1:-1, 1:-1]
    total = 0
    for dj, di in NEIGHBOURS:
        d = u[1 + dj:u.shape[0] - 1 + dj, 1 + di:u.shape[1] - 1 + di] - c
        total = total + d / (1 + d * d)
    u_new[1:-1, 1:-1] = c + total / 4
    return {"u_new": u_new}


#: the step's random inputs, numpy reference and peers' logical grids (one grid, radius 1)
ONE_GRID = OneGridStep(update, PAD, DTYPES, source="u", target="u_new")
step, inputs, reference = ONE_GRID.step, ONE_GRID.inputs, ONE_GRID.reference

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

logical_inputs, logical_reference = ONE_GRID.logical_inputs, ONE_GRID.logical_reference

#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void perona2d(GLOBAL const real *u, GLOBAL real *u_new, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1;
    if (i > nx || j > ny) return;
    const long p = nx + 2, c = j * p + i;
    const real uc = u[c];
    const real e = u[c + 1] - uc, w = u[c - 1] - uc, n = u[c + p] - uc, s = u[c - p] - uc;
    u_new[c] = uc + (e / (1 + e * e) + w / (1 + w * w) + n / (1 + n * n) + s / (1 + s * s)) / 4;
}
"""
ARGS = ("u", "u_new", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="perona2d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_2D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
