"""2-D 49-point box filter, radius 3: u_new = Σ_{|dj|,|di| ≤ 3} w(|dj|, |di|) u[j + dj, i + di].

A 7 × 7 Gaussian blur as image code writes it (the binomial weights (1 6 15 20 15 6 1) / 64
along each axis, so they sum to 1): every point reads 49 points of one array, corners included,
three rows and three columns of halo on each side. The suite's 2-D boxes reach one point out
(box2d9) or two (box2d25); this one needs seven rows of a column in flight and seven columns of
a row, and does twice box2d25's arithmetic a point (its sixteen weight classes). Fixed boundary
three points wide, kept in both ping-pong buffers (padded form: the domain is the interior
only, no branch); x rows carry 16 pad elements on each side, so interior rows start 64 bytes
into a cache line, as in the other suite kernels.

No knobs are declared: gencl derives the space from the program (``gencl space box2d49
--list``). It was written on 2026-12-05 (fortieth session), after every term of the model was
committed, and predicted before it was measured (``tuning/model_developed_on.json`` does not
name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_2D, OneGridStep, stencil_step_spec

DTYPES = {"float32": np.float32, "float64": np.float64}
R = 3  # radius
PAD = 16  # x pad elements on each side (≥ R): interior rows start 64 bytes into a line
BINOMIAL = (1.0, 6.0, 15.0, 20.0, 15.0, 6.0, 1.0)
#: the weight of an offset by its distance along each axis (the kernel is symmetric)
WEIGHTS = {(abs(dj), abs(di)): BINOMIAL[dj + R] * BINOMIAL[di + R] / 4096.0
           for dj in range(-R, R + 1) for di in range(-R, R + 1)}
OFFSETS = tuple((dj, di) for dj in range(-R, R + 1) for di in range(-R, R + 1))
#: the 49 points summed within the sixteen weight classes (33 adds), one multiplication a
#: class, fifteen adds between the classes
FLOPS_PER_POINT = 64


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dj, di):
        return f"u[j + {R + dj}, i + {PAD + di}]"

    classes = {}
    for dj, di in OFFSETS:
        classes.setdefault((abs(dj), abs(di)), []).append(u(dj, di))
    terms = " + ".join(f"{WEIGHTS[c]!r} * ({' + '.join(members)})"
                       for c, members in sorted(classes.items()))
    shape = (f"ny + {2 * R}", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        f"u_new[j + {R}, i + {PAD}] = {terms}",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="box2d49", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new):
    """Write the filter of logical grid *u* (boundary R wide) into the interior of *u_new*
    (numpy or torch)."""
    ny, nx = u.shape[0] - 2 * R, u.shape[1] - 2 * R
    total = 0
    for dj, di in OFFSETS:
        total = total + WEIGHTS[(abs(dj), abs(di))] * u[R + dj:R + dj + ny, R + di:R + di + nx]
    u_new[R:-R, R:-R] = total
    return {"u_new": u_new}


#: the step's random inputs, numpy reference and peers' logical grids (one grid, radius 3)
ONE_GRID = OneGridStep(update, PAD, DTYPES, source="u", target="u_new", radius=R)
step, inputs, reference = ONE_GRID.step, ONE_GRID.inputs, ONE_GRID.reference

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

logical_inputs, logical_reference = ONE_GRID.logical_inputs, ONE_GRID.logical_reference

#: the filter as a user writes it first: one thread per interior point, the weights a table
#: (CUDA and OpenCL C)
NAIVE = """
KERNEL void box2d49(GLOBAL const real *u, GLOBAL real *u_new, const int ny, const int nx)
{
    const real b[7] = {1, 6, 15, 20, 15, 6, 1};
    const int i = GX + 3, j = GY + 3;
    if (i > nx + 2 || j > ny + 2) return;
    const long p = nx + 6;
    real total = 0;
    for (int dj = -3; dj <= 3; ++dj)
        for (int di = -3; di <= 3; ++di)
            total += b[dj + 3] * b[di + 3] / 4096 * u[(j + dj) * p + i + di];
    u_new[j * p + i] = total;
}
"""
ARGS = ("u", "u_new", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="box2d49", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_2D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
