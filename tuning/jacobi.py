"""ω-Jacobi smoother of seed 003 §4: one sweep of u_new = (1−ω)u + ω/4 (u_W+u_E+u_N+u_S+h²f).

The 2-D Poisson model problem with Dirichlet boundary: ``n`` interior points per direction, the
grid holds ``n+2`` (boundary included), h = 1/n as issue 6 writes it. One launch is one sweep
u → u_new; a solver ping-pongs the two buffers (the tests do, over several sweeps).

The update formula is written once (``update``) and used by three boundary forms (the
``boundary`` program parameter); every other variant is a knob, i.e. a loopy transform:

* ``branch`` (the baseline a user writes): (n+2) rows with a row pitch of n+16 elements (a pitched
  allocation: rows stay aligned for floatW pointers), every grid point a work item, a branch keeps
  the boundary points. Vector widths here are loopy's per-lane fallback (the branch depends on the
  vector iname), not floatW arithmetic.
* ``padded`` (seed 003's BE, branch elimination): an oversized buffer of (n+2) rows × (n+32)
  columns, interior column j at buffer column j+16 (so rows start aligned for float16 loads), an
  interior-only domain and no branch. The boundary is fixed once: it sits in both ping-pong
  buffers and no sweep writes it.

Temporal blocking (issue 14) is a knob too, gencl's generic transform of the padded form
(``gencl.generate.temporal``): ``temporal`` = ``tile`` (overlapped tiles in local memory) or
``stream`` (the strip of columns walks down the rows, the k time levels pipelined) or ``strip``
(the CPU form: one work item per tile, the sweeps as loops, no barriers), ``sweeps`` = k sweeps
per launch, ``temporal_points`` = points per work item (x, y; for ``stream`` y is the chunk of
rows; for ``strip`` the whole tile). Seed 003's names TBk are the tile scheme's points.

Knobs: vector width along x (the neighbours u_W/u_E are per-lane gathers, the rest floatW
arithmetic), points per work item along x and y (register blocking), work-group shape (x, y;
all powers of two with 32 ≤ x·y ≤ 1024), and the local-memory cache of u's tile with its halo
(static ``__local`` array = mcStat, dynamic ``__local`` argument = mcDyn; padded form only, since
the branch form cannot take a prefetch).
"""

import loopy as lp
import numpy as np

from gencl.generate.temporal import temporal_constraint, temporal_knobs
from gencl.peers import opencl_kernel_peer, cupy_kernel_peer, torch_compile_peer, torch_peer
from gencl.spec import ApplicationHooks, BenchmarkSpec, Knob

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # left pad columns of the padded layout: interior rows start 64-byte aligned
OMEGA = 0.8
#: expected loopy warnings: per-lane neighbour gathers; the tile fetch runs in every work-group
QUIET = ["vectorize_failed", "write_race(u_fetch_rule)", "v1_scheduler_fallback"]


def update(c: str, west: str, east: str, north: str, south: str, f: str) -> str:
    """The ω-Jacobi update of a point from its value, four neighbours and f (loopy expression);
    the summation order is numpy's (reference ``sweep``)."""
    return f"(1 - omega) * {c} + omega * 0.25 * ({west} + {east} + {north} + {south} + h2 * {f})"


def _args(dtype, cols, padded):
    return [lp.GlobalArg("u", dtype, shape=("n + 2", cols)),
            lp.GlobalArg("f", dtype, shape=("n + 2", cols)),
            lp.GlobalArg("u_new", dtype, shape=("n + 2", cols), is_input=padded, is_output=True),
            lp.ValueArg("omega", dtype), lp.ValueArg("h2", dtype), lp.ValueArg("n", np.int32)]


def program(point):
    dtype = DTYPES[point["dtype"]]
    if point["boundary"] == "padded":
        o = PAD
        new = update(f"u[i + 1, j + {o}]", "w", "e", f"u[i, j + {o}]", f"u[i + 2, j + {o}]",
                     f"f[i + 1, j + {o}]")
        return lp.make_kernel(
            "{[i, j]: 0 <= i < n and 0 <= j < n}",
            f"""
            <> w = u[i + 1, j + {o - 1}] {{id=w}}
            <> e = u[i + 1, j + {o + 1}] {{id=e}}
            u_new[i + 1, j + {o}] = {new} {{dep=w:e}}
            """,
            _args(dtype, f"n + {2 * PAD}", True), name="jacobi", target=lp.PyOpenCLTarget(),
            lang_version=(2018, 2), silenced_warnings=QUIET)
    new = update("u[i, j]", "w", "e", "u[i - 1, j]", "u[i + 1, j]", "f[i, j]")
    return lp.make_kernel(
        "{[i, j]: 0 <= i < n + 2 and 0 <= j < n + 2}",
        f"""
        if i == 0 or j == 0 or i == n + 1 or j == n + 1
            u_new[i, j] = u[i, j] {{id=keep, nosync=upd}}
        else
            <> w = u[i, j - 1] {{id=w}}
            <> e = u[i, j + 1] {{id=e}}
            u_new[i, j] = {new} {{id=upd, dep=w:e, nosync=keep}}
        end
        """,
        _args(dtype, f"n + {PAD}", False), name="jacobi", target=lp.PyOpenCLTarget(),
        lang_version=(2018, 2), silenced_warnings=QUIET)


# {{{ data and reference

def _padded_layout(point):
    return point["boundary"] == "padded"


def columns(point, n):
    return n + (2 * PAD if _padded_layout(point) else PAD)


def first_column(point):
    """Buffer column of grid column 0 (the left boundary)."""
    return PAD - 1 if _padded_layout(point) else 0


def to_layout(grid, point, n, fill=np.nan):
    """A logical (n+2)² grid in the point's buffer layout; unused pad columns hold *fill*."""
    out = np.full((n + 2, columns(point, n)), fill, dtype=grid.dtype)
    c = first_column(point)
    out[:, c:c + n + 2] = grid
    return out


def from_layout(buf, point, n):
    c = first_column(point)
    return buf[:, c:c + n + 2]


def coefficients(point, sizes):
    dtype = DTYPES[point["dtype"]]
    return dtype(OMEGA), dtype((1.0 / sizes["n"]) ** 2)


def sweep(u, f, omega, h2):
    """One ω-Jacobi sweep of a logical grid (boundary kept), in the grid's dtype."""
    new = u.copy()
    quarter = u.dtype.type(0.25)
    new[1:-1, 1:-1] = (1 - omega) * u[1:-1, 1:-1] + omega * quarter * (
        u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] + h2 * f[1:-1, 1:-1])
    return new


def random_grids(point, n, rng):
    """Random u (boundary values included) and f on the logical (n+2)² grid."""
    dtype = DTYPES[point["dtype"]]
    u = rng.uniform(-1, 1, size=(n + 2, n + 2)).astype(dtype)
    f = rng.uniform(-1, 1, size=(n + 2, n + 2)).astype(dtype)
    return u, f


def inputs(point, sizes, rng):
    n = sizes["n"]
    u, f = random_grids(point, n, rng)
    omega, h2 = coefficients(point, sizes)
    values = {"u": to_layout(u, point, n), "f": to_layout(f, point, n), "omega": omega, "h2": h2}
    if _padded_layout(point):
        # the boundary is fixed once in both ping-pong buffers; the interior is poisoned so a
        # point the kernel misses cannot pass
        start = u.copy()
        start[1:-1, 1:-1] = np.nan
        values["u_new"] = to_layout(start, point, n)
    return values


def reference(values, point, sizes, launches=1):
    """*launches* sweeps (the measure pipeline applies it k times per launch of k sweeps)."""
    n = sizes["n"]
    u = np.array(from_layout(values["u"], point, n))
    f = from_layout(values["f"], point, n)
    for _ in range(launches):
        u = sweep(u, f, values["omega"], values["h2"])
    return {"u_new": to_layout(u, point, n)}

# }}}


# {{{ space

WORKGROUPS = ((32, 4),) + tuple(
    (x, y) for x in (8, 16, 32, 64, 128, 256) for y in (1, 2, 4, 8, 16)
    if 32 <= x * y <= 1024 and (x, y) != (32, 4))

#: seed 003's hand variants, by name: the structural knobs each one fixes (work-group shape and
#: blocking stay free: the paper tuned work-group dims exhaustively for every version); the
#: single-sweep ones say so, or a temporal point (padded, scalar, no prefetch) would match them
ONE_SWEEP = {"temporal": "none"}
VARIANTS = {
    "baseline": {"boundary": "branch", **ONE_SWEEP, "vector_width": 1, "local": "none"},
    **{f"vec{w}": {"boundary": "branch", **ONE_SWEEP, "vector_width": w, "local": "none"}
       for w in (4, 8, 16)},
    "BE": {"boundary": "padded", **ONE_SWEEP, "vector_width": 1, "local": "none"},
    **{f"vec{w}_BE": {"boundary": "padded", **ONE_SWEEP, "vector_width": w, "local": "none"}
       for w in (4, 8, 16)},
    "BE_mcStat": {"boundary": "padded", **ONE_SWEEP, "vector_width": 1, "local": "static"},
    "BE_mcDyn": {"boundary": "padded", **ONE_SWEEP, "vector_width": 1, "local": "dynamic"},
    **{f"TB{k}": {"boundary": "padded", "temporal": "tile", "sweeps": k,
                  "temporal_points": (2, 8), "workgroup": (32, 8), "vector_width": 1,
                  "local": "none"}
       for k in (2, 4, 8)},
    **{f"TB{k}_stream": {"boundary": "padded", "temporal": "stream", "sweeps": k,
                         "temporal_points": (1, 128), "workgroup": (256, 1), "vector_width": 1,
                         "local": "none"} for k in (2, 4, 8)},
}


def variant_name(point):
    """The hand-variant name of a point (seed 003's naming: vec4_BE_mcStat)."""
    if point["temporal"] != "none":  # always the padded form, on its own local tile
        return f"TB{point['sweeps']}" + ("" if point["temporal"] == "tile" else
                                         f"_{point['temporal']}")
    parts = []
    if point["vector_width"] > 1:
        parts.append(f"vec{point['vector_width']}")
    if point["boundary"] == "padded":
        parts.append("BE")
    if point["local"] != "none":
        parts.append({"static": "mcStat", "dynamic": "mcDyn"}[point["local"]])
    return "_".join(parts) or "baseline"


def tile(point):
    """Grid points one work-group updates along x and y (writes, for temporal blocking)."""
    wx, wy = point["workgroup"]
    if point["temporal"] != "none":  # the loaded tile less the k sweeps' margins
        from gencl.generate.temporal import geometry, read_temporal_form

        form = read_temporal_form(program(point), PING_PONG)
        ty, tx = geometry(form, point["temporal"], point["sweeps"], point["workgroup"],
                          point["temporal_points"]).tile
        return tx, ty
    return wx * point["block_x"] * point["vector_width"], wy * point["block_y"]


def local_bytes(point):
    """Footprint of the cached tile (halo included), as add_prefetch's bounding box sizes it,
    or of temporal blocking's tile or rings (``gencl.generate.temporal.local_bytes``)."""
    if point["temporal"] != "none":
        from gencl.generate.temporal import geometry, local_bytes as temporal_bytes, \
            read_temporal_form

        form = read_temporal_form(program(point), PING_PONG)
        return temporal_bytes(form, geometry(form, point["temporal"], point["sweeps"],
                                             point["workgroup"], point["temporal_points"]))
    if point["local"] == "none":
        return 0
    itemsize = np.dtype(DTYPES[point["dtype"]]).itemsize
    tx, ty = tile(point)
    return (tx + 2) * (ty + 2) * itemsize


def sizes(point, device, quick):
    """8192² on a GPU (seed 003's size class; 805 MB per sweep in float32), 1024² on a CPU."""
    if quick:
        return {"n": 256}
    gpu = device is not None and device.device_type.upper() == "GPU"
    return {"n": 8192 if gpu else 1024}


def verify_sizes(point, device):
    """One full tile plus a partial one along x (n is a multiple of the vector width, not of the
    tile), capped near 1024 so the numpy reference stays cheap."""
    tx, ty = tile(point)
    w = point["vector_width"]
    return {"n": max(min(tx, 1024) + w, ty + w)}


def bytes_moved(point, sizes):
    """Effective traffic: read u, read f, write u_new once per interior point *per sweep* (12 B in
    float32), also for k sweeps per launch (k × 12 B), so effective bandwidths stay comparable."""
    return 3 * np.dtype(DTYPES[point["dtype"]]).itemsize * sizes["n"] ** 2 * point["sweeps"]


def points_updated(point, sizes):
    """Interior point updates per launch: n² × k."""
    return sizes["n"] ** 2 * point["sweeps"]


def _cache_needs_padded_scalar(point, device):
    if point["local"] == "none":
        return None
    if point["boundary"] == "branch":
        return "local caching needs the padded form (loopy cannot prefetch the branch form)"
    if point["vector_width"] > 1:
        return ("local caching of a vector-typed array: loopy 2025.2 add_prefetch cannot box its "
                "footprint")
    return None


def _fits_device(point, device):
    if device is None:
        return None
    wx, wy = point["workgroup"]
    if wx * wy > device.max_work_group_size:
        return f"work-group {wx * wy} > device max {device.max_work_group_size}"
    lb = local_bytes(point) if point["temporal"] == "none" else 0  # (temporal: its constraint)
    if lb > device.local_mem_bytes:
        return f"local tile {lb} B > device local memory {device.local_mem_bytes} B"
    n = sizes(point, device, False)["n"]
    tx, ty = tile(point)
    if tx > n or ty > n:
        return f"tile {tx}x{ty} larger than the {n}² grid"
    return None


# {{{ peers: what a user would otherwise run (logical (n+2)² grids, no pads)

def _grids(ctx):
    """The run's inputs as logical (n+2)² grids; u_new holds the boundary, its interior NaN."""
    n, point = ctx.sizes["n"], ctx.point
    u = np.ascontiguousarray(from_layout(ctx.inputs["u"], point, n))
    start = u.copy()
    start[1:-1, 1:-1] = np.nan
    return {"u": u, "f": np.ascontiguousarray(from_layout(ctx.inputs["f"], point, n)),
            "u_new": start, "omega": ctx.inputs["omega"], "h2": ctx.inputs["h2"]}


def _grid_sweep(ctx):
    g = _grids(ctx)
    return {"u_new": sweep(g["u"], g["f"], g["omega"], g["h2"])}


def _real(ctx):
    return "float" if ctx.point["dtype"] == "float32" else "double"


#: the ω-Jacobi sweep as a user writes it by hand: one work item per interior point
HAND_OPENCL = """
__kernel void jacobi(__global const real *u, __global const real *f, __global real *u_new,
                     const real omega, const real h2, const int n)
{
    const int j = get_global_id(0) + 1, i = get_global_id(1) + 1, p = n + 2;
    u_new[i * p + j] = (1 - omega) * u[i * p + j] + omega * (real)0.25 * (
        u[i * p + j - 1] + u[i * p + j + 1] + u[(i - 1) * p + j] + u[(i + 1) * p + j]
        + h2 * f[i * p + j]);
}
"""
HAND_CUDA = """
extern "C" __global__ void jacobi(const real *u, const real *f, real *u_new, const real omega,
                                  const real h2, const int n)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int i = blockIdx.y * blockDim.y + threadIdx.y + 1, p = n + 2;
    if (i > n || j > n) return;
    u_new[i * p + j] = (1 - omega) * u[i * p + j] + omega * (real)0.25 * (
        u[i * p + j - 1] + u[i * p + j + 1] + u[(i - 1) * p + j] + u[(i + 1) * p + j]
        + h2 * f[i * p + j]);
}
"""
ARGS = ("u", "f", "u_new", "omega", "h2", "n")


def _torch_sweep(u, f, u_new, omega, h2):
    u_new[1:-1, 1:-1] = (1 - omega) * u[1:-1, 1:-1] + omega * 0.25 * (
        u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] + h2 * f[1:-1, 1:-1])
    return {"u_new": u_new}


PEERS = {
    "hand_opencl": opencl_kernel_peer(
        lambda ctx: f"#define real {_real(ctx)}\n" + (
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if _real(ctx) == "double"
            else "") + HAND_OPENCL, "jacobi", args=ARGS,
        global_size=lambda ctx: (ctx.sizes["n"], ctx.sizes["n"]), inputs=_grids,
        expected=_grid_sweep),
    "pytorch_eager": torch_peer(_torch_sweep, inputs=_grids, expected=_grid_sweep),
    "torch_compile": torch_compile_peer(_torch_sweep, inputs=_grids, expected=_grid_sweep),
    "cuda_naive": cupy_kernel_peer(
        lambda ctx: f"#define real {_real(ctx)}\n" + HAND_CUDA, "jacobi", args=ARGS,
        launch=lambda ctx: ((-(-ctx.sizes["n"] // 32), -(-ctx.sizes["n"] // 8)), (32, 8)),
        inputs=_grids, expected=_grid_sweep),
}

# }}}


def compulsory_bytes(point, sizes):
    """A launch must read u and f and write u_new once: 3 elements per interior point, also for
    k sweeps per launch (the traffic temporal blocking saves)."""
    return 3 * np.dtype(DTYPES[point["dtype"]]).itemsize * sizes["n"] ** 2


def flops(point, sizes):
    """9 flops per interior point and sweep: 4 adds of neighbours, h²·f (mul, add), ω/4·(…)
    (mul), (1−ω)·u (sub, mul), the final add."""
    return 9 * sizes["n"] ** 2 * point["sweeps"]


PING_PONG = (("u_new", "u"),)
#: the other transforms' values a temporally blocked point needs (it tiles by itself)
PLAIN = {"vector_width": 1, "block_y": 1, "block_x": 1, "local": "none"}

SPEC = BenchmarkSpec(
    name="jacobi",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"dtype": tuple(DTYPES), "boundary": ("branch", "padded")},
    knobs={
        **temporal_knobs(2, PING_PONG),
        "vector_width": Knob("vector", (1, 4, 8, 16),
                             {"iname": "j", "arrays": ("u", "f", "u_new"),
                              "temporaries": ("w", "e"), "size": "n"}),
        "block_y": Knob("register_block", (1, 2, 4), {"iname": "i"}),
        "block_x": Knob("register_block", (1, 2, 4), {"iname": "j"}),
        "workgroup": Knob("workgroup", WORKGROUPS, {"inames": ("j", "i")}),
        "local": Knob("local_tile", ("none", "static", "dynamic"), {"array": "u"}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved, "points": points_updated},
    sweep=[VARIANTS[name] for name in VARIANTS],
    quick_sweep=[VARIANTS["baseline"], VARIANTS["BE"], VARIANTS["vec4_BE"]],
    constraints=[temporal_constraint(program, PING_PONG, params=("dtype", "boundary"),
                                     defaults=PLAIN, sizes=sizes, workgroups=WORKGROUPS),
                 _cache_needs_padded_scalar, _fits_device],
    group="application",
    tolerance={"float32": 1e-5, "float64": 1e-12},
    hooks=ApplicationHooks(
        variants=VARIANTS,
        baseline="baseline",
        variant_name=variant_name,
        ping_pong=PING_PONG,
        flops=flops,
        compulsory_bytes=compulsory_bytes,
        peers=PEERS,
        divergent={"boundary": ("branch",)},
        title="ω-Jacobi space",
        bytes_note="effective bandwidth counts 3 elements per interior point: read u, read f, "
                   "write u_new (12 B in float32, 24 B in float64), per sweep: k sweeps per "
                   "launch count k × 12 B per point"),
    # for the tests: a point's tile, its local-memory footprint, the logical grid of a buffer
    extra={"grid": from_layout, "local_bytes": local_bytes, "tile": tile},
)

# }}}
