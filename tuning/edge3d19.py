"""3-D 19-point stencil: the centre, its 6 faces and 12 edges (a D3Q19 lattice's neighbours).

u_new = c0 u + c1 Σ(6 faces) + c2 Σ(12 edges), on an nz × ny × nx interior with a fixed boundary one
point wide kept in both ping-pong buffers (padded form, interior-only domain). This is the 19-point
(Patra–Karttunen) isotropic Laplacian, the neighbourhood of D3Q19 lattice-Boltzmann codes: the
3×3×3 box without its 8 corners, so every neighbour plane is a plus-shaped 5-point cross and the
centre plane the full 3×3 square. x rows carry 16 pad elements on each side so interior rows start
aligned.

No knobs are declared: the space is derived from the program (``gencl space edge3d19 --list``).
It was written after the wave tail (2026-11-26, night) to be predicted, not fitted: its spaces were
predicted before they were measured (``tuning/model_developed_on.json`` does not name it).
"""

import itertools

import loopy as lp
import numpy as np

from gencl.spec.stencil_step import GRID_3D, from_padded, stencil_step_spec, to_padded

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # x pad elements on each side: interior rows start 64-byte aligned in float32
#: weights of the isotropic 19-point Laplacian ((2 Σ faces + Σ edges − 24 u) / 6h²), as a smoother
#: u + 0.05 h² Δu
WEIGHTS = (1 - 0.05 * 4, 0.05 * 2 / 6, 0.05 * 1 / 6)
#: the box's offsets without its corners
OFFSETS = tuple(d for d in itertools.product((-1, 0, 1), repeat=3) if sum(map(abs, d)) < 3)
FLOPS_PER_POINT = 21  # 18 adds (within and between the three classes), 3 multiplications


def program(point):
    dtype = DTYPES[point["dtype"]]

    def u(dk, dj, di):
        return f"u[k + {1 + dk}, j + {1 + dj}, i + {PAD + di}]"

    classes = [" + ".join(u(*d) for d in OFFSETS if sum(map(abs, d)) == c) for c in range(3)]
    update = " + ".join(f"c{c} * ({terms})" for c, terms in enumerate(classes))
    shape = ("nz + 2", "ny + 2", f"nx + {2 * PAD}")
    return lp.make_kernel(
        "{[k, j, i]: 0 <= k < nz and 0 <= j < ny and 0 <= i < nx}",
        f"u_new[k + 1, j + 1, i + {PAD}] = {update}",
        [lp.GlobalArg("u", dtype, shape=shape),
         lp.GlobalArg("u_new", dtype, shape=shape, is_input=True, is_output=True),
         *(lp.ValueArg(f"c{c}", dtype) for c in range(3)),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="edge3d19", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


# {{{ data and reference

def update(u, u_new, c0, c1, c2):
    """Write the 19-point stencil of logical grid *u* into the interior of *u_new* (numpy or
    torch)."""
    nz, ny, nx = (n - 2 for n in u.shape)
    sums = [0, 0, 0]
    for dk, dj, di in OFFSETS:
        sums[abs(dk) + abs(dj) + abs(di)] = sums[abs(dk) + abs(dj) + abs(di)] + u[
            1 + dk:1 + dk + nz, 1 + dj:1 + dj + ny, 1 + di:1 + di + nx]
    u_new[1:-1, 1:-1, 1:-1] = c0 * sums[0] + c1 * sums[1] + c2 * sums[2]
    return {"u_new": u_new}


def step(u, c):
    """One application of the 19-point stencil to a logical grid (boundary kept)."""
    return update(u, u.copy(), *c)["u_new"]


def inputs(point, sizes, rng):
    dtype = DTYPES[point["dtype"]]
    grid = rng.uniform(-1, 1, size=(sizes["nz"] + 2, sizes["ny"] + 2, sizes["nx"] + 2))
    grid = grid.astype(dtype)
    start = grid.copy()
    start[1:-1, 1:-1, 1:-1] = np.nan  # a point the kernel misses cannot pass
    return {"u": to_padded(grid, PAD), "u_new": to_padded(start, PAD),
            **{f"c{c}": dtype(w) for c, w in enumerate(WEIGHTS)}}


def reference(values, point, sizes):
    c = [values[f"c{k}"] for k in range(3)]
    return {"u_new": to_padded(step(from_padded(values["u"], PAD), c), PAD)}

# }}}


# {{{ peers: what a user would otherwise run, on the logical grid (no pads)

def logical_inputs(ctx):
    """The run's inputs as logical grids; u_new holds the boundary, its interior NaN."""
    u = np.ascontiguousarray(from_padded(ctx.inputs["u"], PAD))
    start = u.copy()
    start[1:-1, 1:-1, 1:-1] = np.nan
    return {"u": u, "u_new": start, **{f"c{k}": ctx.inputs[f"c{k}"] for k in range(3)}}


def logical_reference(ctx):
    g = logical_inputs(ctx)
    return {"u_new": step(g["u"], [g[f"c{k}"] for k in range(3)])}


#: the step as a user writes it first: one thread per interior point (CUDA and OpenCL C)
NAIVE = """
KERNEL void edge3d19(GLOBAL const real *u, GLOBAL real *u_new, const real c0, const real c1,
                     const real c2, const int nz, const int ny, const int nx)
{
    const int i = GX + 1, j = GY + 1, k = GZ + 1;
    if (i > nx || j > ny || k > nz) return;
    const long px = nx + 2, pz = (long)(ny + 2) * px, o = k * pz + j * px + i;
    real sums[3] = {0, 0, 0};
    for (int dk = -1; dk <= 1; ++dk)
        for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di)
                if (abs(dk) + abs(dj) + abs(di) < 3)
                    sums[abs(dk) + abs(dj) + abs(di)] += u[o + dk * pz + dj * px + di];
    u_new[o] = c0 * sums[0] + c1 * sums[1] + c2 * sums[2];
}
"""
ARGS = ("u", "u_new", "c0", "c1", "c2", "nz", "ny", "nx")

# }}}


SPEC = stencil_step_spec(
    name="edge3d19", description=__doc__.strip().splitlines()[0], program=program,
    inputs=inputs, reference=reference, grid=GRID_3D,
    grids=2, flops_per_point=FLOPS_PER_POINT, ping_pong=(("u_new", "u"),),
    naive=NAIVE, naive_args=ARGS, update=update, logical_inputs=logical_inputs,
    logical_reference=logical_reference,
)
