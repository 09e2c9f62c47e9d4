"""2-D copy step: u_new = ½ u over the interior, no neighbour read.

The 2-D stencil without a stencil: each interior point of an ny × nx grid is read once, halved
and written once into the other ping-pong buffer, in the suite's padded layout (x rows carry 16
pad elements on each side, so interior rows start 64 bytes into a cache line; a fixed boundary
one point wide, kept in both buffers). It is the floor every 2-D kernel of the suite stands on:
the same arrays, sizes and derived space (vector width, a stream along y, work-group shape) with
no halo to reuse and one operation a point (the halving: a multiply by ½ in the build, a
division in loopy's count, which the model prices at 16 µs of the H200's 130 µs of DRAM time).
What the model misses here it misses in the memory system and in the code NVIDIA's compiler
emits, not in a stencil's reuse or arithmetic.

No knobs are declared: gencl derives the space from the program (``gencl space copy2d
--list``). Written after the model's terms (2026-12-02, twenty-second session) and predicted
before it was measured; developed on since the twenty-third, whose items' floor its scalar rows
led to (``tuning/model_developed_on.json`` says so).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_2D, OneGridStep, stencil_step_spec

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64 bytes into a line in float32
FLOPS_PER_POINT = 1


def program(point):
    dtype = DTYPES[point["dtype"]]
    shape = ("ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        f"u_new[j + 1, i + {PAD}] = u[j + 1, i + {PAD}] / 2",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="copy2d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new):
    """Write the step of logical grid *u* into the interior of *u_new* (numpy or torch)."""
    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] / 2
    return {"u_new": u_new}


#: the step's random inputs, numpy reference and peers' logical grids (one grid, radius 1)
ONE_GRID = OneGridStep(update, PAD, DTYPES, source="u", target="u_new")
step, inputs, reference = ONE_GRID.step, ONE_GRID.inputs, ONE_GRID.reference

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

logical_inputs, logical_reference = ONE_GRID.logical_inputs, ONE_GRID.logical_reference

#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void copy2d(GLOBAL const real *u, GLOBAL real *u_new, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1;
    if (i > nx || j > ny) return;
    const long c = j * (long) (nx + 2) + i;
    u_new[c] = u[c] / 2;
}
"""
ARGS = ("u", "u_new", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="copy2d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_2D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
