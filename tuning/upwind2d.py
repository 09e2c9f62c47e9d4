"""2-D upwind advection with a velocity field: u_new = u − Σₐ (vₐ⁺ (u − u₋ₐ) + vₐ⁻ (u₊ₐ − u)).

One explicit first-order upwind step of u_t + v·∇u = 0 whose velocity varies in space and
changes sign: vx and vy are fields (each already v dt / h), and the side a point reads along an
axis is chosen per point by the sign of its velocity there, written as a user writes it without
a branch: v⁺ = fmax(v, 0) weights the difference behind, v⁻ = fmin(v, 0) the one ahead. Each
point reads five points of u and one of each velocity field, 16 bytes a point in float32, and
pays four fmax/fmin beside its adds and multiplications (no other suite kernel calls them).
Fixed boundary one point wide, kept in both ping-pong buffers (padded form: the domain is the
interior only, no branch); the three fields share the buffer layout (x rows carry 16 pad
elements on each side so interior rows start 64 bytes into a cache line).

No knobs are declared: gencl derives the space from the program (``gencl space upwind2d
--list``). It was written on 2026-12-05 (fortieth session), after every term of the model was
committed, and predicted before it was measured (``tuning/model_developed_on.json`` does not
name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_2D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
#: a zero of the point's type (an integer 0 makes loopy call fmax in double)
ZERO = {"float32": "0.0f", "float64": "0.0"}
PAD = 16  # x pad elements on each side: interior rows start 64 bytes into a line in float32
#: per axis fmax, fmin, two differences, two products, one add; three adds between the axes and
#: the subtraction from u
FLOPS_PER_POINT = 16


def program(point):
    dtype = DTYPES[point["dtype"]]
    zero = ZERO[point["dtype"]]

    def at(name, dj, di):
        return f"{name}[j + {1 + dj}, i + {PAD + di}]"

    c = at("u", 0, 0)

    def axis(v, behind, ahead):
        return (f"fmax({at(v, 0, 0)}, {zero}) * ({c} - {behind}) + "
                f"fmin({at(v, 0, 0)}, {zero}) * ({ahead} - {c})")

    flux = (f"{axis('vx', at('u', 0, -1), at('u', 0, 1))} + "
            f"{axis('vy', at('u', -1, 0), at('u', 1, 0))}")
    shape = ("ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        f"u_new[j + 1, i + {PAD}] = {c} - ({flux})",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("vx", dtype, shape=shape),
         lp.GlobalArg("vy", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="upwind2d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def _plus(v):
    return (v + abs(v)) / 2  # fmax(v, 0), in numpy or torch


def _minus(v):
    return (v - abs(v)) / 2  # fmin(v, 0)


def update(u, u_new, vx, vy):
    """Write the step of logical grid *u* with velocities *vx*, *vy* (logical grids of u's
    shape) into the interior of *u_new* (numpy or torch)."""
    c, x, y = u[1:-1, 1:-1], vx[1:-1, 1:-1], vy[1:-1, 1:-1]
    u_new[1:-1, 1:-1] = c - (_plus(x) * (c - u[1:-1, :-2]) + _minus(x) * (u[1:-1, 2:] - c)
                             + _plus(y) * (c - u[:-2, 1:-1]) + _minus(y) * (u[2:, 1:-1] - c))
    return {"u_new": u_new}


def step(u, vx, vy):
    """One step of a logical grid *u* (boundary kept)."""
    return update(u, u.copy(), vx, vy)["u_new"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["ny"] + 2, sizes["nx"] + 2)
    grid = rng.uniform(-1, 1, size=shape).astype(dtype)
    start = grid.copy()
    start[1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    # both signs, |vx| + |vy| ≤ 0.8: a stable explicit step (CFL)
    vx, vy = (rng.uniform(-0.4, 0.4, size=shape).astype(dtype) for _ in range(2))
    return {"u": to_padded(grid, PAD), "vx": to_padded(vx, PAD), "vy": to_padded(vy, PAD),
            "u_new": to_padded(start, PAD)}


def reference(values, point, sizes):
    vx, vy = from_padded(values["vx"], PAD), from_padded(values["vy"], PAD)
    return {"u_new": to_padded(step(from_padded(values["u"], PAD), vx, vy), PAD)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    u, vx, vy = (np.ascontiguousarray(from_padded(ctx.inputs[n], PAD)) for n in ("u", "vx", "vy"))
    start = u.copy()
    start[1:-1, 1:-1] = np.nan
    return {"u": u, "u_new": start, "vx": vx, "vy": vy}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], g["vx"], g["vy"])}


#: the step as a user writes it first: one thread per interior point, the upwind side a branch
#: (CUDA and OpenCL C)
NAIVE = """
KERNEL void upwind2d(GLOBAL const real *u, GLOBAL real *u_new, GLOBAL const real *vx,
                     GLOBAL const real *vy, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1;
    if (i > nx || j > ny) return;
    const long p = nx + 2, c = j * p + i;
    const real uc = u[c], x = vx[c], y = vy[c];
    const real dx = x > 0 ? uc - u[c - 1] : u[c + 1] - uc;
    const real dy = y > 0 ? uc - u[c - p] : u[c + p] - uc;
    u_new[c] = uc - (x * dx + y * dy);
}
"""
ARGS = ("u", "u_new", "vx", "vy", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="upwind2d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_2D,
    grids=4, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
