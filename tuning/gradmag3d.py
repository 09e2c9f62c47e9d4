"""3-D gradient magnitude: g = sqrt((∂x u)² + (∂y u)² + (∂z u)²), centred differences.

One input array read at its six axis neighbours (laplace3d's loads without the centre) and one
output written once a point, through a square root of squares written as a user writes them,
``**2``: the suite's first kernel whose update ends in a special function of every point (the
others call none, or perona2d's divisions and upwind2d's min and max). In ``float64`` the
square root is a sequence of double-precision instructions on a GPU. On an nz × ny × nx
interior; both arrays share the padded layout (x rows carry 16 pad elements on each side so
interior rows start aligned, and one layer of boundary along y and z). The magnitude is not fed
back: no ping-pong, so no temporal axis.

No knobs are declared: the space is derived from the program (``gencl space gradmag3d
--list``). It was written on 2026-12-05 (forty-third session), after every term of the model
was committed, from a kernel a user would bring (docs/tuning.md, "Kernels a user brings"), and
predicted before it was measured (``tuning/model_developed_on.json`` does not name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import (GRID_3D, from_padded, logical_grids, stencil_step_spec,
                                     to_padded)

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
#: three differences, three squares, two adds and the square root
FLOPS_PER_POINT = 9


def program(point):
    dtype = DTYPES[point["dtype"]]

    def at(name, dk, dj, di):
        return f"{name}[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    def difference(dk, dj, di):
        return f"({at('u', dk, dj, di)} - {at('u', -dk, -dj, -di)})**2"

    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"{at('g', 0, 0, 0)} = sqrt({difference(0, 0, 1)} + {difference(0, 1, 0)} "
        f"+ {difference(1, 0, 0)})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("g", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="gradmag3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, g):
    """Write the gradient magnitude of logical grid *u* into the interior of *g* (numpy or
    torch)."""
    dx = u[1:-1, 1:-1, 2:] - u[1:-1, 1:-1, :-2]
    dy = u[1:-1, 2:, 1:-1] - u[1:-1, :-2, 1:-1]
    dz = u[2:, 1:-1, 1:-1] - u[:-2, 1:-1, 1:-1]
    g[1:-1, 1:-1, 1:-1] = (dx * dx + dy * dy + dz * dz) ** 0.5
    return {"g": g}


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["nz"] + 2, sizes["ny"] + 2, sizes["nx"] + 2)
    u = rng.uniform(-1, 1, size=shape).astype(dtype)
    start = rng.uniform(-1, 1, size=shape).astype(dtype)
    start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    return {"u": to_padded(u, PAD), "g": to_padded(start, PAD)}


def reference(values, point, sizes):
    grids = {k: from_padded(values[k], PAD) for k in ("u", "g")}
    return {"g": to_padded(update(grids["u"], grids["g"].copy())["g"], PAD)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; g holds the boundary, its interior NaN."""
    return logical_grids(ctx.inputs, ("u", "g"), PAD)


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return update(g["u"], g["g"].copy())


#: the magnitude as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void gradmag3d(GLOBAL const real *u, GLOBAL real *g, const int nz, const int ny,
                      const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, o = k * pz + j * px + i;
    const real dx = u[o + 1] - u[o - 1], dy = u[o + px] - u[o - px], dz = u[o + pz] - u[o - pz];
    g[o] = sqrt(dx * dx + dy * dy + dz * dz);
}
"""
ARGS = ("u", "g", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="gradmag3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
