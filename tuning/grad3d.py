"""3-D gradient of a scalar field: (gx, gy, gz) = c (∂x u, ∂y u, ∂z u), centred differences.

One input array read at its six axis neighbours and three output arrays written once a point:
three store streams to one load stream, where the suite's other 3-D kernels store one array (or
curl3d three from three). Each output reads one axis's pair of u (gx the row's two columns, gy
the neighbour rows', gz the neighbour planes'), so the loads are laplace3d's without the centre
and the stores are three times its. On an nz × ny × nx interior; every array shares the padded
layout (x rows carry 16 pad elements on each side so interior rows start aligned, and one layer
of boundary along y and z). The gradient is not fed back: no ping-pong, so no temporal axis.

No knobs are declared: the space is derived from the program (``gencl space grad3d --list``).
It was written on 2026-12-03 (twenty-seventh session), after every term of the model was
committed, and predicted before it was measured (``tuning/model_developed_on.json`` does not
name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import (GRID_3D, from_padded, logical_grids, stencil_step_spec,
                                     to_padded)

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
OUTPUTS = ("gx", "gy", "gz")
FLOPS_PER_POINT = 6  # a difference and a multiplication an output


def program(point):
    dtype = DTYPES[point["dtype"]]

    def at(name, dk, dj, di):
        return f"{name}[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"""
        {at('gx', 0, 0, 0)} = c * ({at('u', 0, 0, 1)} - {at('u', 0, 0, -1)})
        {at('gy', 0, 0, 0)} = c * ({at('u', 0, 1, 0)} - {at('u', 0, -1, 0)})
        {at('gz', 0, 0, 0)} = c * ({at('u', 1, 0, 0)} - {at('u', -1, 0, 0)})
        """,
        [lp.GlobalArg("u", dtype, shape=shape),
         *(lp.GlobalArg(g, dtype, shape=shape, is_input=True, is_output=True) for g in OUTPUTS),
         lp.ValueArg("c", dtype),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="grad3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, gx, gy, gz, c):
    """Write the gradient of logical grid *u* into the interiors of *gx*, *gy*, *gz* (numpy or
    torch)."""
    gx[1:-1, 1:-1, 1:-1] = c * (u[1:-1, 1:-1, 2:] - u[1:-1, 1:-1, :-2])
    gy[1:-1, 1:-1, 1:-1] = c * (u[1:-1, 2:, 1:-1] - u[1:-1, :-2, 1:-1])
    gz[1:-1, 1:-1, 1:-1] = c * (u[2:, 1:-1, 1:-1] - u[:-2, 1:-1, 1:-1])
    return {"gx": gx, "gy": gy, "gz": gz}


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["nz"] + 2, sizes["ny"] + 2, sizes["nx"] + 2)
    u = rng.uniform(-1, 1, size=shape).astype(dtype)
    outputs = {}
    for g in OUTPUTS:
        start = rng.uniform(-1, 1, size=shape).astype(dtype)
        start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
        outputs[g] = to_padded(start, PAD)
    return {"u": to_padded(u, PAD), **outputs, "c": dtype(0.5)}


def reference(values, point, sizes):
    grids = {k: from_padded(values[k], PAD) for k in ("u", *OUTPUTS)}
    out = update(grids["u"], *(grids[g].copy() for g in OUTPUTS), values["c"])
    return {g: to_padded(out[g], PAD) for g in OUTPUTS}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; each output holds the boundary, its interior NaN."""
    return {**logical_grids(ctx.inputs, ("u", *OUTPUTS), PAD), "c": ctx.inputs["c"]}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return update(g["u"], *(g[k].copy() for k in OUTPUTS), g["c"])


#: the gradient as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void grad3d(GLOBAL const real *u, GLOBAL real *gx, GLOBAL real *gy, GLOBAL real *gz,
                   const real c, const int nz, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, o = k * pz + j * px + i;
    gx[o] = c * (u[o + 1] - u[o - 1]);
    gy[o] = c * (u[o + px] - u[o - px]);
    gz[o] = c * (u[o + pz] - u[o - pz]);
}
"""
ARGS = ("u", "gx", "gy", "gz", "c", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="grad3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=4, flops_per_point=FLOPS_PER_POINT, ping_pong=(),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
