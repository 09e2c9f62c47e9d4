"""3-D divergence of a vector field: d = c (∂x fx + ∂y fy + ∂z fz), centred differences.

Three input arrays, each read along its own axis only (fx at i ± 1, fy at j ± 1, fz at k ± 1), and
an output array written once a point: four streams where the suite's other stencils read one
array at many neighbours. Its reuse is one-dimensional per array (fz's two planes, fy's two rows,
fx's two columns), so the caches see three kinds of reuse distance at once. On an nz × ny × nx
interior; every array shares the padded layout (x rows carry 16 pad elements on each side so
interior rows start aligned, and one layer of boundary along y and z). d is not fed back: no
ping-pong, so no temporal axis.

No knobs are declared: the space is derived from the program (``gencl space div3d --list``).
It was written on 2026-11-27 (tenth session), after every term of the model was committed, to be
predicted, not fitted: its spaces were predicted before they were measured
(``tuning/model_developed_on.json`` does not name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
FLOPS_PER_POINT = 6  # three differences, two adds, one multiplication


def program(point):
    dtype = DTYPES[point["dtype"]]

    def at(name, dk, dj, di):
        return f"{name}[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"{at('d', 0, 0, 0)} = c * ({at('fx', 0, 0, 1)} - {at('fx', 0, 0, -1)} "
        f"+ {at('fy', 0, 1, 0)} - {at('fy', 0, -1, 0)} "
        f"+ {at('fz', 1, 0, 0)} - {at('fz', -1, 0, 0)})",
        [lp.GlobalArg("fx", dtype, shape=shape),
         lp.GlobalArg("fy", dtype, shape=shape),
         lp.GlobalArg("fz", dtype, shape=shape),
         lp.GlobalArg("d", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("c", dtype),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="div3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(fx, fy, fz, d, c):
    """Write the divergence of logical grids *fx*, *fy*, *fz* into the interior of *d* (numpy
    or torch)."""
    d[1:-1, 1:-1, 1:-1] = c * (fx[1:-1, 1:-1, 2:] - fx[1:-1, 1:-1, :-2]
                               + fy[1:-1, 2:, 1:-1] - fy[1:-1, :-2, 1:-1]
                               + fz[2:, 1:-1, 1:-1] - fz[:-2, 1:-1, 1:-1])
    return {"d": d}


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["nz"] + 2, sizes["ny"] + 2, sizes["nx"] + 2)
    fields = {name: rng.uniform(-1, 1, size=shape).astype(dtype) for name in ("fx", "fy", "fz")}
    start = rng.uniform(-1, 1, size=shape).astype(dtype)
    start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    return {**{k: to_padded(v, PAD) for k, v in fields.items()}, "d": to_padded(start, PAD),
            "c": dtype(0.5)}


def reference(values, point, sizes):
    grids = {k: from_padded(values[k], PAD) for k in ("fx", "fy", "fz", "d")}
    out = update(grids["fx"], grids["fy"], grids["fz"], grids["d"].copy(), values["c"])
    return {"d": to_padded(out["d"], PAD)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; d holds the boundary, its interior NaN."""
    grids = {k: np.ascontiguousarray(from_padded(ctx.inputs[k], PAD))
             for k in ("fx", "fy", "fz", "d")}
    return {**grids, "c": ctx.inputs["c"]}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return update(g["fx"], g["fy"], g["fz"], g["d"].copy(), g["c"])


#: the divergence as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void div3d(GLOBAL const real *fx, GLOBAL const real *fy, GLOBAL const real *fz,
                  GLOBAL real *d, const real c, const int nz, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, o = k * pz + j * px + i;
    d[o] = c * (fx[o + 1] - fx[o - 1] + fy[o + px] - fy[o - px] + fz[o + pz] - fz[o - pz]);
}
"""
ARGS = ("fx", "fy", "fz", "d", "c", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="div3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=4, flops_per_point=FLOPS_PER_POINT, ping_pong=(),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
