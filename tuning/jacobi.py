"""ω-Jacobi smoother of seed 003 §4: one sweep of u_new = (1−ω)u + ω/4 (u_W+u_E+u_N+u_S+h²f).

The 2-D Poisson model problem with Dirichlet boundary: ``n`` interior points per direction, the
grid holds ``n+2`` (boundary included), h = 1/n as issue 6 writes it. One launch is one sweep
u → u_new; a solver ping-pongs the two buffers (the tests do, over several sweeps).

The math is written twice, once per boundary form (the ``boundary`` program parameter), and every
other variant is a knob, i.e. a loopy transform:

* ``branch`` (the baseline a user writes): (n+2) rows with a row pitch of n+16 elements (a pitched
  allocation: rows stay aligned for floatW pointers), every grid point a work item, a branch keeps
  the boundary points. Vector widths here are loopy's per-lane fallback (the branch depends on the
  vector iname), not floatW arithmetic.
* ``padded`` (seed 003's BE, branch elimination): an oversized buffer of (n+2) rows × (n+32)
  columns, interior column j at buffer column j+16 (so rows start aligned for float16 loads), an
  interior-only domain and no branch. The boundary is fixed once: it sits in both ping-pong
  buffers and no sweep writes it.

Knobs: vector width along x (the neighbours u_W/u_E are per-lane gathers, the rest floatW
arithmetic), points per work item along x and y (register blocking), work-group shape (x, y;
all powers of two with 32 ≤ x·y ≤ 1024), and the local-memory cache of u's tile with its halo
(static ``__local`` array = mcStat, dynamic ``__local`` argument = mcDyn; padded form only, since
the branch form cannot take a prefetch).
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

DTYPES = {"float32": np.float32, "float64": np.float64}
PAD = 16  # left pad columns of the padded layout: interior rows start 64-byte aligned
OMEGA = 0.8
#: expected loopy warnings: per-lane neighbour gathers; the tile fetch runs in every work-group
QUIET = ["vectorize_failed", "write_race(u_fetch_rule)", "v1_scheduler_fallback"]


def _args(dtype, cols, padded):
    return [lp.GlobalArg("u", dtype, shape=("n + 2", cols)),
            lp.GlobalArg("f", dtype, shape=("n + 2", cols)),
            lp.GlobalArg("u_new", dtype, shape=("n + 2", cols), is_input=padded, is_output=True),
            lp.ValueArg("omega", dtype), lp.ValueArg("h2", dtype), lp.ValueArg("n", np.int32)]


def program(point):
    dtype = DTYPES[point["dtype"]]
    if point["boundary"] == "padded":
        o = PAD
        return lp.make_kernel(
            "{[i, j]: 0 <= i < n and 0 <= j < n}",
            f"""
            <> w = u[i + 1, j + {o - 1}] {{id=w}}
            <> e = u[i + 1, j + {o + 1}] {{id=e}}
            u_new[i + 1, j + {o}] = (1 - omega) * u[i + 1, j + {o}] + omega * 0.25 * (w + e \
                + u[i, j + {o}] + u[i + 2, j + {o}] + h2 * f[i + 1, j + {o}]) {{dep=w:e}}
            """,
            _args(dtype, f"n + {2 * PAD}", True), name="jacobi", target=lp.PyOpenCLTarget(),
            lang_version=(2018, 2), silenced_warnings=QUIET)
    return lp.make_kernel(
        "{[i, j]: 0 <= i < n + 2 and 0 <= j < n + 2}",
        """
        if i == 0 or j == 0 or i == n + 1 or j == n + 1
            u_new[i, j] = u[i, j] {id=keep, nosync=upd}
        else
            <> w = u[i, j - 1] {id=w}
            <> e = u[i, j + 1] {id=e}
            u_new[i, j] = (1 - omega) * u[i, j] + omega * 0.25 * (w + e \
                + u[i - 1, j] + u[i + 1, j] + h2 * f[i, j]) {id=upd, dep=w:e, nosync=keep}
        end
        """,
        _args(dtype, f"n + {PAD}", False), name="jacobi", target=lp.PyOpenCLTarget(),
        lang_version=(2018, 2), silenced_warnings=QUIET)


# {{{ data and reference

def columns(point, n):
    return n + (2 * PAD if point["boundary"] == "padded" else PAD)


def first_column(point):
    """Buffer column of grid column 0 (the left boundary)."""
    return PAD - 1 if point["boundary"] == "padded" else 0


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
    if point["boundary"] == "padded":
        # the boundary is fixed once in both ping-pong buffers; the interior is poisoned so a
        # point the kernel misses cannot pass
        start = u.copy()
        start[1:-1, 1:-1] = np.nan
        values["u_new"] = to_layout(start, point, n)
    return values


def reference(values, point, sizes, sweeps=1):
    n = sizes["n"]
    u = np.array(from_layout(values["u"], point, n))
    f = from_layout(values["f"], point, n)
    for _ in range(sweeps):
        u = sweep(u, f, values["omega"], values["h2"])
    return {"u_new": to_layout(u, point, n)}

# }}}


# {{{ space

WORKGROUPS = ((32, 4),) + tuple(
    (x, y) for x in (8, 16, 32, 64, 128, 256) for y in (1, 2, 4, 8, 16)
    if 32 <= x * y <= 1024 and (x, y) != (32, 4))

#: seed 003's hand variants, by name: the structural knobs each one fixes (work-group shape and
#: blocking stay free: the paper tuned work-group dims exhaustively for every version)
VARIANTS = {
    "baseline": {"boundary": "branch", "vector_width": 1, "local": "none"},
    **{f"vec{w}": {"boundary": "branch", "vector_width": w, "local": "none"} for w in (4, 8, 16)},
    "BE": {"boundary": "padded", "vector_width": 1, "local": "none"},
    **{f"vec{w}_BE": {"boundary": "padded", "vector_width": w, "local": "none"}
       for w in (4, 8, 16)},
    "BE_mcStat": {"boundary": "padded", "vector_width": 1, "local": "static"},
    "BE_mcDyn": {"boundary": "padded", "vector_width": 1, "local": "dynamic"},
}


def variant_name(point):
    """The hand-variant name of a point (seed 003's naming: vec4_BE_mcStat)."""
    parts = []
    if point["vector_width"] > 1:
        parts.append(f"vec{point['vector_width']}")
    if point["boundary"] == "padded":
        parts.append("BE")
    if point["local"] != "none":
        parts.append({"static": "mcStat", "dynamic": "mcDyn"}[point["local"]])
    return "_".join(parts) or "baseline"


def tile(point):
    """Grid points one work-group updates along x and y."""
    wx, wy = point["workgroup"]
    return wx * point["block_x"] * point["vector_width"], wy * point["block_y"]


def local_bytes(point):
    """Footprint of the cached tile (halo included), as add_prefetch's bounding box sizes it."""
    if point["local"] == "none":
        return 0
    tx, ty = tile(point)
    return (tx + 2) * (ty + 2) * np.dtype(DTYPES[point["dtype"]]).itemsize


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
    """Effective traffic: read u, read f, write u_new once per interior point (12 B in float32)."""
    return 3 * np.dtype(DTYPES[point["dtype"]]).itemsize * sizes["n"] ** 2


def _cache_needs_padded_scalar(point, device):
    if point["local"] == "none":
        return None
    if point["boundary"] != "padded":
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
    lb = local_bytes(point)
    if lb > device.local_mem_bytes:
        return f"local tile {lb} B > device local memory {device.local_mem_bytes} B"
    n = sizes(point, device, False)["n"]
    tx, ty = tile(point)
    if tx > n or ty > n:
        return f"tile {tx}x{ty} larger than the {n}² grid"
    return None


SPEC = BenchmarkSpec(
    name="jacobi",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"dtype": tuple(DTYPES), "boundary": ("branch", "padded")},
    knobs={
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
    metrics={"bytes": bytes_moved},
    sweep=[VARIANTS[name] for name in VARIANTS],
    quick_sweep=[VARIANTS["baseline"], VARIANTS["BE"], VARIANTS["vec4_BE"]],
    constraints=[_cache_needs_padded_scalar, _fits_device],
    group="application",
    tolerance={"float32": 1e-5, "float64": 1e-12},
    extra={"variants": VARIANTS, "grid": from_layout, "variant_name": variant_name, "reference_sweeps": reference,
           "local_bytes": local_bytes, "tile": tile,
           "bytes_note": "effective bandwidth counts 3 elements per interior point: read u, "
                         "read f, write u_new (12 B in float32, 24 B in float64)"},
)

# }}}
