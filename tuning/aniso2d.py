"""2-D anisotropic diffusion in conservative form: u_new = u + Σ_faces k_face (u_neighbour − u).

One explicit step of ∂u/∂t = ∇·(K ∇u) with a diagonal, spatially varying K: the x faces carry
their own coefficient field kx, the y faces ky (kx[j, i] sits on the face between u[j, i−1] and
u[j, i], ky[j, i] between u[j−1, i] and u[j, i]; each is κ dt / h² there). Each point reads five
points of u and two of each coefficient field: the faces ahead of it (i + 1, j + 1) and its own,
an asymmetric one-point halo per field and three input streams, 16 bytes per point in float32
where the other 2-D kernels move 8. Fixed boundary one point wide, kept in both ping-pong
buffers (padded form: the domain is the interior only, no branch); the three fields share the
buffer layout (x rows carry 16 pad elements on each side so interior rows start aligned).

No knobs are declared: gencl derives the space from the program (``gencl space aniso2d --list``).
It was written after the 2026-11-26 register estimate was set, to be predicted, not fitted
(``tuning/model_developed_on.json`` does not name it).
"""

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_2D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
FLOPS_PER_POINT = 12  # four differences, four products, three adds between them, + u


def program(point):
    dtype = DTYPES[point["dtype"]]

    def at(name, dj, di):
        return f"{name}[j + {1 + dj}, i + {PAD + di}]"

    c = at("u", 0, 0)
    flux = (f"{at('kx', 0, 1)} * ({at('u', 0, 1)} - {c}) - {at('kx', 0, 0)} * ({c} - "
            f"{at('u', 0, -1)}) + {at('ky', 1, 0)} * ({at('u', 1, 0)} - {c}) - "
            f"{at('ky', 0, 0)} * ({c} - {at('u', -1, 0)})")
    shape = ("ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        f"u_new[j + 1, i + {PAD}] = {c} + {flux}",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("kx", dtype, shape=shape),
         lp.GlobalArg("ky", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="aniso2d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new, kx, ky):
    """Write the step of logical grid *u* with face coefficients *kx*, *ky* (logical grids of
    u's shape) into the interior of *u_new* (numpy or torch)."""
    c = u[1:-1, 1:-1]
    u_new[1:-1, 1:-1] = (c + kx[1:-1, 2:] * (u[1:-1, 2:] - c) - kx[1:-1, 1:-1] * (c - u[1:-1, :-2])
                         + ky[2:, 1:-1] * (u[2:, 1:-1] - c) - ky[1:-1, 1:-1] * (c - u[:-2, 1:-1]))
    return {"u_new": u_new}


def step(u, kx, ky):
    """One step of a logical grid *u* (boundary kept)."""
    return update(u, u.copy(), kx, ky)["u_new"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    shape = (sizes["ny"] + 2, sizes["nx"] + 2)
    grid = rng.uniform(-1, 1, size=shape).astype(dtype)
    start = grid.copy()
    start[1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    # stable explicit steps: the four faces of a point sum to at most 1
    kx, ky = (rng.uniform(0.01, 0.24, size=shape).astype(dtype) for _ in range(2))
    return {"u": to_padded(grid, PAD), "kx": to_padded(kx, PAD), "ky": to_padded(ky, PAD),
            "u_new": to_padded(start, PAD)}


def reference(values, point, sizes):
    kx, ky = from_padded(values["kx"], PAD), from_padded(values["ky"], PAD)
    return {"u_new": to_padded(step(from_padded(values["u"], PAD), kx, ky), PAD)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    u, kx, ky = (np.ascontiguousarray(from_padded(ctx.inputs[n], PAD)) for n in ("u", "kx", "ky"))
    start = u.copy()
    start[1:-1, 1:-1] = np.nan
    return {"u": u, "u_new": start, "kx": kx, "ky": ky}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], g["kx"], g["ky"])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void aniso2d(GLOBAL const real *u, GLOBAL real *u_new, GLOBAL const real *kx,
                    GLOBAL const real *ky, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1;
    if (i > nx || j > ny) return;
    const long p = nx + 2, c = j * p + i;
    const real uc = u[c];
    u_new[c] = uc + kx[c + 1] * (u[c + 1] - uc) - kx[c] * (uc - u[c - 1])
                  + ky[c + p] * (u[c + p] - uc) - ky[c] * (uc - u[c - p]);
}
"""
ARGS = ("u", "u_new", "kx", "ky", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="aniso2d", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_2D,
    grids=4, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
