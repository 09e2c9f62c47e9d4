"""3-D acoustic wave step, 4th order in space: w = 2u − w + c² (Σ₃ axes −u±2 + 16u±1 − 90u).

One leapfrog step of the variable-velocity acoustic wave equation u_tt = v² ∇²u, as seismic
modelling and reverse-time migration run it: the 13-point star of the fourth-order Laplacian
(−f₋₂ + 16f₋₁ − 30f₀ + 16f₁ − f₂) / 12h² on each axis, c² = v² dt² / 12h² a field of its own.
Two wavefields: ``u`` (time t) and ``w``, which holds t − dt on entry and is overwritten with
t + dt (each point reads w only at itself), so a step is one swap of the two buffers. Each point
reads 13 points of u in five planes, one of w and one of c², and writes w: four streams, where
star3d_r4 reads one grid through nine planes. Fixed (Dirichlet) boundary two points wide kept
in both wavefields (padded form: the domain is the interior only, no branch); x rows carry 16
pad elements on each side so interior rows start aligned.

No knobs are declared: gencl derives the space from the program
(``gencl space wave3d --list``). It was written and measured after the 2026-11-26 rule that
prices what each work-group brings into the first level (``gencl.model._cache_reuse``
``first_level_fills``) was set, and predicted once; its errors then led to pricing the next
level's line requests apart from its sectors, so it is developed on since
(``tuning/model_developed_on.json``).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import (
    GRID_3D, from_padded, logical_grids, stencil_step_spec, to_padded)

DTYPES = {"float32": np.float32, "float64": np.float64}
R = 2      # the star's radius: boundary width
PAD = 16   # x pad elements on each side: interior rows start 64-byte aligned in float32
#: the fourth-order second difference's weights at offsets 1 and 2 (× 12h²); centre −30 an axis
NEAR, FAR = 16, -1
FLOPS_PER_POINT = 20  # per axis 4 (two pair sums, ×16, −): 12; 2 axis sums; −90u (2); ×c² (1);
#                       2u − w (2); + (1)


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dk, dj, di):
        return f"u[k + {R + dk}, j + {R + dj}, i + {PAD + di}]"

    axes = []
    for axis in range(3):
        def at(s, axis=axis):
            d = [0, 0, 0]
            d[axis] = s
            return u(*d)
        axes.append(f"{NEAR} * ({at(-1)} + {at(1)}) - ({at(-2)} + {at(2)})")
    here = f"k + {R}, j + {R}, i + {PAD}"
    lap = " + ".join(f"({a})" for a in axes)
    shape = ("nz + 4", "ny + 4", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"w[{here}] = 2 * {u(0, 0, 0)} - w[{here}] "
        f"+ c2[{here}] * ({lap} - 90 * {u(0, 0, 0)})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("c2", dtype, shape=shape),
         lp.GlobalArg("w", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="wave3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def _shifted(u, d):
    """The interior of logical grid *u* moved by d = (dk, dj, di)."""
    return u[tuple(slice(R + s, u.shape[a] - R + s) for a, s in enumerate(d))]


def update(u, w, c2):
    """Write the step into the interior of logical grid *w* (numpy or torch)."""
    c = _shifted(u, (0, 0, 0))
    lap = -90 * c
    for axis in range(3):
        for s, weight in ((1, NEAR), (2, FAR)):
            d = [0, 0, 0]
            d[axis] = s
            plus = _shifted(u, tuple(d))
            d[axis] = -s
            lap = lap + weight * (plus + _shifted(u, tuple(d)))
    inner = tuple(slice(R, n - R) for n in w.shape)
    w[inner] = 2 * c - w[inner] + _shifted(c2, (0, 0, 0)) * lap
    return {"w": w}


def step(u, w, c2):
    """w at t + dt of logical grids u (t) and w (t − dt), boundary kept, in the grids' dtype."""
    return update(u, w.copy(), c2)["w"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["nz"] + 2 * R, sizes["ny"] + 2 * R, sizes["nx"] + 2 * R)
    u = rng.uniform(-1, 1, size=shape).astype(dtype)
    w = rng.uniform(-1, 1, size=shape).astype(dtype)
    # stable leapfrog steps: c² ≤ 4 / 192 (the 13-point symbol's largest magnitude is 3 × 64)
    c2 = rng.uniform(0.005, 0.02, size=shape).astype(dtype)
    return {name: to_padded(grid, PAD, radius=R) for name, grid in (("u", u), ("c2", c2), ("w", w))}


def reference(values, point, sizes):
    u, w, c2 = (from_padded(values[name], PAD, radius=R) for name in ("u", "w", "c2"))
    out = step(u, w, c2)
    return {"w": to_padded(out, PAD, radius=R)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    return logical_grids(ctx.inputs, ("u", "w", "c2"), PAD, radius=R)


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"w": step(g["u"], g["w"], g["c2"])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void wave3d(GLOBAL const real *u, GLOBAL const real *c2, GLOBAL real *w,
                   const int nz, const int ny, const int nx)
{
    const int i = GX + 2, j = GY + 2, k = GZ + 2;
    if (i > nx + 1 || j > ny + 1 || k > nz + 1) return;
    const long px = nx + 4, pz = (long)(ny + 4) * px, c = k * pz + j * px + i;
    const real lap = 16 * (u[c - 1] + u[c + 1] + u[c - px] + u[c + px] + u[c - pz] + u[c + pz])
                   - (u[c - 2] + u[c + 2] + u[c - 2 * px] + u[c + 2 * px]
                      + u[c - 2 * pz] + u[c + 2 * pz])
                   - 90 * u[c];
    w[c] = 2 * u[c] - w[c] + c2[c] * lap;
}
"""
ARGS = ("u", "c2", "w", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="wave3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=4, flops_per_point=FLOPS_PER_POINT, ping_pong=(("w", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
