"""3-D curl of a vector field: w = c ∇ × u by centred differences, three arrays in, three out.

wx = c (∂y uz − ∂z uy), wy = c (∂z ux − ∂x uz), wz = c (∂x uy − ∂y ux): each output reads two of
the inputs, each along one axis it does not share with the other, and every input feeds two
outputs along two different axes (uz at j ± 1 and i ± 1, ...). Three stores a point where the
suite's other kernels make one, and twelve loads of three arrays whose reuse runs along two axes
each. On an nz × ny × nx interior; every array shares the padded layout (x rows carry 16 pad
elements on each side so interior rows start aligned, and one layer of boundary along y and z).
The outputs are not fed back: no ping-pong, so no temporal axis.

No knobs are declared: the space is derived from the program (``gencl space curl3d --list``).
It was written on 2026-11-28 (eighth session), after every term of the model was committed, to
be predicted, not fitted: its spaces were predicted before they were measured
(``tuning/model_developed_on.json`` does not name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
FLOPS_PER_POINT = 12  # per output: two differences, one between them, one multiplication
INPUTS = ("ux", "uy", "uz")
OUTPUTS = ("wx", "wy", "wz")


def program(point):
    dtype = DTYPES[point["dtype"]]

    def at(name, dk=0, dj=0, di=0):
        return f"{name}[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    def d(name, axis):
        """The centred difference of *name* along *axis* (0: z, 1: y, 2: x), unscaled."""
        plus, minus = [0, 0, 0], [0, 0, 0]
        plus[axis], minus[axis] = 1, -1
        return f"({at(name, *plus)} - {at(name, *minus)})"

    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"""
        {at('wx')} = c * ({d('uz', 1)} - {d('uy', 0)})
        {at('wy')} = c * ({d('ux', 0)} - {d('uz', 2)})
        {at('wz')} = c * ({d('uy', 2)} - {d('ux', 1)})
        """,
        [*(lp.GlobalArg(n, dtype, shape=shape) for n in INPUTS),
         *(lp.GlobalArg(n, dtype, shape=shape, is_input=True, is_output=True) for n in OUTPUTS),
         lp.ValueArg("c", dtype),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="curl3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(ux, uy, uz, wx, wy, wz, c):
    """Write the curl of logical grids *ux*, *uy*, *uz* into the interiors of *wx*, *wy*, *wz*
    (numpy or torch)."""
    def diff(u, axis):
        hi = [slice(1, -1)] * 3
        lo = [slice(1, -1)] * 3
        hi[axis], lo[axis] = slice(2, None), slice(None, -2)
        return u[tuple(hi)] - u[tuple(lo)]

    inner = (slice(1, -1),) * 3
    wx[inner] = c * (diff(uz, 1) - diff(uy, 0))
    wy[inner] = c * (diff(ux, 0) - diff(uz, 2))
    wz[inner] = c * (diff(uy, 2) - diff(ux, 1))
    return {"wx": wx, "wy": wy, "wz": wz}


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["nz"] + 2, sizes["ny"] + 2, sizes["nx"] + 2)
    out = {}
    for name in INPUTS:
        out[name] = to_padded(rng.uniform(-1, 1, size=shape).astype(dtype), PAD)
    for name in OUTPUTS:
        start = rng.uniform(-1, 1, size=shape).astype(dtype)
        start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
        out[name] = to_padded(start, PAD)
    return {**out, "c": dtype(0.5)}


def reference(values, point, sizes):
    grids = {k: from_padded(values[k], PAD) for k in INPUTS + OUTPUTS}
    out = update(*(grids[k] for k in INPUTS), *(grids[k].copy() for k in OUTPUTS), values["c"])
    return {k: to_padded(out[k], PAD) for k in OUTPUTS}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; the outputs hold the boundary, their interiors NaN."""
    grids = {k: np.ascontiguousarray(from_padded(ctx.inputs[k], PAD)) for k in INPUTS + OUTPUTS}
    return {**grids, "c": ctx.inputs["c"]}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return update(*(g[k] for k in INPUTS), *(g[k].copy() for k in OUTPUTS), g["c"])


#: the curl as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void curl3d(GLOBAL const real *ux, GLOBAL const real *uy, GLOBAL const real *uz,
                   GLOBAL real *wx, GLOBAL real *wy, GLOBAL real *wz, const real c,
                   const int nz, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, o = k * pz + j * px + i;
    wx[o] = c * ((uz[o + px] - uz[o - px]) - (uy[o + pz] - uy[o - pz]));
    wy[o] = c * ((ux[o + pz] - ux[o - pz]) - (uz[o + 1] - uz[o - 1]));
    wz[o] = c * ((uy[o + 1] - uy[o - 1]) - (ux[o + px] - ux[o - px]));
}
"""
ARGS = (*INPUTS, *OUTPUTS, "c", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="curl3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=6, flops_per_point=FLOPS_PER_POINT, ping_pong=(),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
