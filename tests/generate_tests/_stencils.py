"""Small stencil programs the streaming, gather and reduction-expansion tests transform.

Written as a user would: padded buffers with the halo kept, an interior-only domain, a numpy
reference with slicing. Names are deliberately not the suite's (``a``/``b``, ``z``/``y``/``x``):
the transforms and the derived space must not depend on them.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

PAD = 8  # x pad: interior rows start aligned for every vector width up to 8


def _star(point, radius=1, loop=False):
    """b = a + Σ_d (neighbours at distance d along z, y, x) · w[d], radius *radius*."""
    r = radius

    def a(dz, dy, dx):
        return f"a[z + {r} + {dz}, y + {r} + {dy}, x + {PAD} + {dx}]"

    if loop:
        ring = " + ".join(a(*o) for o in ((0, 0, "-d"), (0, 0, "d"), (0, "-d", 0), (0, "d", 0),
                                          ("-d", 0, 0), ("d", 0, 0)))
        rhs = f"{a(0, 0, 0)} + sum(d, w[d] * ({ring}))"
        domain = f"{{[z, y, x, d]: 0 <= z < nz and 0 <= y < ny and 0 <= x < nx and 1 <= d <= {r}}}"
    else:
        terms = [a(*o) for d in range(1, r + 1) for o in (
            (0, 0, -d), (0, 0, d), (0, -d, 0), (0, d, 0), (-d, 0, 0), (d, 0, 0))]
        rhs = f"{a(0, 0, 0)} + w[1] * ({' + '.join(terms)})"
        domain = "{[z, y, x]: 0 <= z < nz and 0 <= y < ny and 0 <= x < nx}"
    shape = (f"nz + {2 * r}", f"ny + {2 * r}", f"nx + {2 * PAD}")
    return lp.make_kernel(
        domain, f"b[z + {r}, y + {r}, x + {PAD}] = {rhs}",
        [lp.GlobalArg("a", np.float32, shape=shape),
         lp.GlobalArg("b", np.float32, shape=shape, is_input=True, is_output=True),
         lp.GlobalArg("w", np.float32, shape=(r + 1,)),
         lp.ValueArg("nz", np.int32), lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="star", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


def star_reference(values, point, sizes, radius=1, loop=False):
    r, a, w = radius, values["a"], values["w"]
    nz, ny, nx = sizes["nz"], sizes["ny"], sizes["nx"]
    out = np.array(values["b"])

    def at(dz, dy, dx):
        return a[r + dz:r + dz + nz, r + dy:r + dy + ny, PAD + dx:PAD + dx + nx]

    acc = at(0, 0, 0).copy()
    for d in range(1, r + 1):
        ring = (at(0, 0, -d) + at(0, 0, d) + at(0, -d, 0) + at(0, d, 0) + at(-d, 0, 0)
                + at(d, 0, 0))
        acc = acc + (w[d] if loop else w[1]) * ring
    out[r:r + nz, r:r + ny, PAD:PAD + nx] = acc
    return {"b": out}


def star_inputs(point, sizes, rng, radius=1):
    r = radius
    shape = (sizes["nz"] + 2 * r, sizes["ny"] + 2 * r, sizes["nx"] + 2 * PAD)
    a = rng.uniform(-1, 1, shape).astype(np.float32)
    b = a.copy()
    b[r:-r, r:-r, PAD:-PAD] = np.nan  # a point the kernel misses cannot pass
    return {"a": a, "b": b, "w": rng.uniform(0.1, 0.2, r + 1).astype(np.float32)}


def star_spec(radius=1, loop=False, knobs=None, name="star"):
    """A star stencil spec; *knobs* None leaves them to the derived space."""
    return BenchmarkSpec(
        name=name, description="star stencil",
        program=lambda p: _star(p, radius, loop),
        inputs=lambda p, s, rng: star_inputs(p, s, rng, radius),
        reference=lambda v, p, s: star_reference(v, p, s, radius, loop),
        sizes=lambda p, d, q: {"nz": 6, "ny": 5, "nx": 24},
        knobs=knobs or {}, group="application", tolerance={"float32": 1e-5})


def hand_bound(radius=1, loop=False):
    """The star with the suite's transforms bound by hand (iname and array names of its own)."""
    knobs = {}
    if loop:
        knobs["unroll"] = Knob("unroll", ("none", "full"), {"iname": "d"})
    knobs.update({
        "vector_width": Knob("vector", (1, 2, 4), {
            "iname": "x", "arrays": ("a", "b"), "size": "nx", "gather": True}),
        "block": Knob("register_block", (1, 2), {"iname": "y"}),
        "stream": Knob("streaming", (1, 3, 4), {"iname": "z"}),
        "workgroup": Knob("workgroup", ((8, 2, 1), (4, 4, 1)), {"inames": ("x", "y", "z")}),
    })
    return star_spec(radius, loop, knobs, name="star_hand")
