"""2-D Sobel gradient: gx and gy, two arrays written from one image's 3 × 3 neighbourhood.

gx = (p₋₁,₊₁ + 2 p₀,₊₁ + p₊₁,₊₁) − (p₋₁,₋₁ + 2 p₀,₋₁ + p₊₁,₋₁) and gy the same across rows
(p at row offset, column offset): eight neighbours, the centre not read, the four corners read by
both outputs. Two stores a point from one input, where the suite's 2-D kernels store one from
one or more. On an ny × nx interior with a fixed boundary one point wide; x rows carry 16 pad
elements on each side, so interior rows start aligned. The outputs are not fed back: no
ping-pong, so no temporal axis.

No knobs are declared: the space is derived from the program (``gencl space sobel2d --list``).
It was written on 2026-11-28 (eighth session), after every term of the model was committed, to
be predicted, not fitted: its spaces were predicted before they were measured
(``tuning/model_developed_on.json`` does not name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_2D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
FLOPS_PER_POINT = 14  # per output: two doublings, four adds, one difference
OUTPUTS = ("gx", "gy")


def program(point):
    dtype = DTYPES[point["dtype"]]

    def p(dj, di):
        return f"p[j + {1 + dj}, i + {PAD + di}]"

    def side(cells):
        (a, b, c) = cells
        return f"({p(*a)} + 2 * {p(*b)} + {p(*c)})"

    here = f"j + 1, i + {PAD}"
    shape = ("ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        f"""
        gx[{here}] = {side(((-1, 1), (0, 1), (1, 1)))} - {side(((-1, -1), (0, -1), (1, -1)))}
        gy[{here}] = {side(((1, -1), (1, 0), (1, 1)))} - {side(((-1, -1), (-1, 0), (-1, 1)))}
        """,
        [lp.GlobalArg("p", dtype, shape=shape),
         *(lp.GlobalArg(n, dtype, shape=shape, is_input=True, is_output=True) for n in OUTPUTS),
         lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="sobel2d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(p, gx, gy):
    """Write the Sobel gradient of logical grid *p* into the interiors of *gx* and *gy* (numpy
    or torch)."""
    def at(dj, di):
        return p[1 + dj:p.shape[0] - 1 + dj, 1 + di:p.shape[1] - 1 + di]

    gx[1:-1, 1:-1] = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1)
                                                               + at(1, -1))
    gy[1:-1, 1:-1] = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0)
                                                               + at(-1, 1))
    return {"gx": gx, "gy": gy}


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["ny"] + 2, sizes["nx"] + 2)
    out = {"p": to_padded(rng.uniform(-1, 1, size=shape).astype(dtype), PAD)}
    for name in OUTPUTS:
        start = rng.uniform(-1, 1, size=shape).astype(dtype)
        start[1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
        out[name] = to_padded(start, PAD)
    return out


def reference(values, point, sizes):
    grids = {k: from_padded(values[k], PAD) for k in ("p", *OUTPUTS)}
    out = update(grids["p"], grids["gx"].copy(), grids["gy"].copy())
    return {k: to_padded(out[k], PAD) for k in OUTPUTS}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; the outputs hold the boundary, their interiors NaN."""
    return {k: np.ascontiguousarray(from_padded(ctx.inputs[k], PAD)) for k in ("p", *OUTPUTS)}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return update(g["p"], g["gx"].copy(), g["gy"].copy())


#: the gradient as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void sobel2d(GLOBAL const real *p, GLOBAL real *gx, GLOBAL real *gy,
                    const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1;
    if (i > nx || j > ny) return;
    const long px = nx + 2, o = j * px + i;
    gx[o] = (p[o - px + 1] + 2 * p[o + 1] + p[o + px + 1])
          - (p[o - px - 1] + 2 * p[o - 1] + p[o + px - 1]);
    gy[o] = (p[o + px - 1] + 2 * p[o + px] + p[o + px + 1])
          - (p[o - px - 1] + 2 * p[o - px] + p[o - px + 1]);
}
"""
ARGS = ("p", *OUTPUTS, "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="sobel2d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_2D,
    grids=3, flops_per_point=FLOPS_PER_POINT, ping_pong=(),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
