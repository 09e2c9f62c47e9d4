"""3-D Gray–Scott reaction–diffusion step: two species, each a 7-point Laplacian and u v².

u_new = u + du ∇²u − u v² + feed (1 − u) and v_new = v + dv ∇²v + u v² − (feed + kill) v, one
explicit step of the Gray–Scott model (Pearson 1993) on an nz × ny × nx interior: two arrays
read at seven points each and two written, the reaction coupling them point by point. Both
pairs ping-pong (u_new feeds u, v_new feeds v on the next step). Fixed boundary one point wide
kept in every buffer (padded form: the domain is the interior only, no branch); x rows carry 16
pad elements on each side so interior rows start 64 bytes into a cache line, as in the other
suite kernels.

No knobs are declared: gencl derives the space from the program (``gencl space grayscott3d
--list``). It was written after the per-device residual (``gencl.model._residual``) was fixed,
and predicted before it was measured: held out (``tuning/model_developed_on.json`` does not
name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64 bytes into a line in float32
#: per species as written: the Laplacian's five adds, − 6 s (2), × d and + s (2), u v² (2) and
#: its sign (1), the feed or kill term (3)
FLOPS_PER_POINT = 30
NEIGHBOURS = ((0, 0, -1), (0, 0, 1), (0, -1, 0), (0, 1, 0), (-1, 0, 0), (1, 0, 0))
COEFFICIENTS = {"du": 0.1, "dv": 0.05, "feed": 0.04, "kill": 0.06}


def program(point):
    dtype = DTYPES[point["dtype"]]

    def at(name, dk=0, dj=0, di=0):
        return f"{name}[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    def lap(name):
        return f"({' + '.join(at(name, *d) for d in NEIGHBOURS)} - 6 * {at(name)})"

    uvv = f"{at('u')} * {at('v')} * {at('v')}"
    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"""
        {at('u_new')} = {at('u')} + du * {lap('u')} - {uvv} + feed * (1 - {at('u')})
        {at('v_new')} = {at('v')} + dv * {lap('v')} + {uvv} - (feed + kill) * {at('v')}
        """,
        [lp.GlobalArg("u", dtype, shape=shape), lp.GlobalArg("v", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.GlobalArg("v_new", dtype, shape=shape, is_input=True, is_output=True),
         *(lp.ValueArg(name, dtype) for name in COEFFICIENTS),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="grayscott3d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, v, u_new, v_new, du, dv, feed, kill):
    """Write the step of logical grids *u*, *v* into the interiors of *u_new*, *v_new* (numpy
    or torch)."""
    inner = (slice(1, -1),) * 3

    def lap(s):
        total = -6 * s[inner]
        for d in NEIGHBOURS:
            total = total + s[tuple(slice(1 + o, s.shape[a] - 1 + o) for a, o in enumerate(d))]
        return total

    uc, vc = u[inner], v[inner]
    uvv = uc * vc * vc
    u_new[inner] = uc + du * lap(u) - uvv + feed * (1 - uc)
    v_new[inner] = vc + dv * lap(v) + uvv - (feed + kill) * vc
    return {"u_new": u_new, "v_new": v_new}


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["nz"] + 2, sizes["ny"] + 2, sizes["nx"] + 2)
    grids = {"u": rng.uniform(0, 1, size=shape).astype(dtype),
             "v": rng.uniform(0, 0.5, size=shape).astype(dtype)}
    out = {name: to_padded(grid, PAD) for name, grid in grids.items()}
    for name, grid in grids.items():
        start = grid.copy()
        start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
        out[f"{name}_new"] = to_padded(start, PAD)
    return {**out, **{name: dtype(value) for name, value in COEFFICIENTS.items()}}


def reference(values, point, sizes):
    u, v = (from_padded(values[n], PAD) for n in ("u", "v"))
    out = update(u, v, u.copy(), v.copy(), *(values[n] for n in COEFFICIENTS))
    return {k: to_padded(out[k], PAD) for k in ("u_new", "v_new")}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; the outputs hold the boundary, their interiors NaN."""
    grids = {k: np.ascontiguousarray(from_padded(ctx.inputs[k], PAD))
             for k in ("u", "v", "u_new", "v_new")}
    return {**grids, **{n: ctx.inputs[n] for n in COEFFICIENTS}}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return update(g["u"], g["v"], g["u"].copy(), g["v"].copy(), *(g[n] for n in COEFFICIENTS))


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void grayscott3d(GLOBAL const real *u, GLOBAL const real *v, GLOBAL real *u_new,
                        GLOBAL real *v_new, const real du, const real dv, const real feed,
                        const real kill, const int nz, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, o = k * pz + j * px + i;
    const real uc = u[o], vc = v[o], uvv = uc * vc * vc;
    const real lu = u[o - 1] + u[o + 1] + u[o - px] + u[o + px] + u[o - pz] + u[o + pz] - 6 * uc;
    const real lv = v[o - 1] + v[o + 1] + v[o - px] + v[o + px] + v[o - pz] + v[o + pz] - 6 * vc;
    u_new[o] = uc + du * lu - uvv + feed * (1 - uc);
    v_new[o] = vc + dv * lv + uvv - (feed + kill) * vc;
}
"""
ARGS = ("u", "v", "u_new", "v_new", *COEFFICIENTS, "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="grayscott3d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=4, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"), ("v_new", "v")),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
