"""2-D acoustic wave step, 2nd order: w = 2u − w + c² (u₋ⱼ + u₊ⱼ + u₋ᵢ + u₊ᵢ − 4u), in place.

One leapfrog step of the variable-velocity wave equation u_tt = v² ∇²u on an ny × nx interior,
the 5-point Laplacian, c² = v² dt² / h² a field of its own: ``w`` holds t − dt on entry and is
overwritten with t + dt (each point reads w only at itself), so a step is one swap of the two
buffers. A fixed (Dirichlet) boundary one point wide kept in both wavefields (padded form: the
domain is the interior only, no branch); x rows carry 16 pad elements on each side, so interior
rows start 64 bytes into a cache line, as in the other suite kernels.

No knobs are declared: gencl derives the space from the program (``gencl space wave2d --list``).
It was written after the ``store_reload`` term (an in-place store that a later load of the same
array follows, over lines two sub-groups share: ``gencl.model._predict.store_reload_time``) was
committed, and predicted before it was measured: held out (``tuning/model_developed_on.json``
does not name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import (
    GRID_2D, from_padded, logical_grids, stencil_step_spec, to_padded)

DTYPES = {"float32": np.float32, "float64": np.float64}
R = 1      # the star's radius: boundary width (to_padded's layout keeps one point)
PAD = 16   # x pad elements on each side: interior rows start 64 bytes into a line in float32
FLOPS_PER_POINT = 9  # 3 adds of the neighbours, −4u (2), ×c² (1), 2u − w (2), + (1)
NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dj, di):
        return f"u[j + {R + dj}, i + {PAD + di}]"

    here = f"j + {R}, i + {PAD}"
    near = " + ".join(u(*d) for d in NEIGHBOURS)
    shape = (f"ny + {2 * R}", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        f"w[{here}] = 2 * {u(0, 0)} - w[{here}] + c2[{here}] * ({near} - 4 * {u(0, 0)})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("c2", dtype, shape=shape),
         lp.GlobalArg("w", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="wave2d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def _shifted(u, d):
    """The interior of logical grid *u* moved by d = (dj, di)."""
    return u[tuple(slice(R + s, u.shape[a] - R + s) for a, s in enumerate(d))]


def update(u, w, c2):
    """Write the step into the interior of logical grid *w* (numpy or torch)."""
    c = _shifted(u, (0, 0))
    lap = sum(_shifted(u, d) for d in NEIGHBOURS) - 4 * c
    w[R:-R, R:-R] = 2 * c - w[R:-R, R:-R] + _shifted(c2, (0, 0)) * lap
    return {"w": w}


def step(u, w, c2):
    """w at t + dt of logical grids u (t) and w (t − dt), boundary kept, in the grids' dtype."""
    return update(u, w.copy(), c2)["w"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["ny"] + 2 * R, sizes["nx"] + 2 * R)
    u = rng.uniform(-1, 1, size=shape).astype(dtype)
    w = rng.uniform(-1, 1, size=shape).astype(dtype)
    # stable leapfrog steps: c² ≤ 1/2 (the 5-point symbol's largest magnitude is 8)
    c2 = rng.uniform(0.05, 0.2, size=shape).astype(dtype)
    return {"u": to_padded(u, PAD), "c2": to_padded(c2, PAD), "w": to_padded(w, PAD)}


def reference(values, point, sizes):
    g = {name: from_padded(values[name], PAD) for name in ("u", "w", "c2")}
    return {"w": to_padded(step(g["u"], g["w"], g["c2"]), PAD)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    return logical_grids(ctx.inputs, ("u", "w", "c2"), PAD)


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"w": step(g["u"], g["w"], g["c2"])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void wave2d(GLOBAL const real *u, GLOBAL const real *c2, GLOBAL real *w,
                   const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1;
    if (i > nx || j > ny) return;
    const long p = nx + 2, c = j * p + i;
    w[c] = 2 * u[c] - w[c] + c2[c] * (u[c - 1] + u[c + 1] + u[c - p] + u[c + p] - 4 * u[c]);
}
"""
ARGS = ("u", "c2", "w", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="wave2d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_2D,
    grids=4, flops_per_point=FLOPS_PER_POINT, ping_pong=(("w", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
