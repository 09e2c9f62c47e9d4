"""Kernels as a new user writes them: program, reference, inputs, sizes (and, for one, knobs).

Written to files by the tests that need a spec by path (the CLI), built in memory by the others.
"""

from __future__ import annotations

from pathlib import Path

#: a 2-D 5-point stencil, the whole spec a user writes: no hooks, no knobs
LAPLACE = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    return lp.make_kernel("{[i, j]: 0 <= i, j < n}", "out[i, j] = 4 * u[i + 1, j + 1]"
        " - u[i, j + 1] - u[i + 2, j + 1] - u[i + 1, j] - u[i + 1, j + 2]",
        [lp.GlobalArg("u", np.float32, shape=("n + 2", "n + 2")), lp.ValueArg("n", np.int32),
         lp.GlobalArg("out", np.float32, shape=("n", "n"), is_input=False, is_output=True)],
        name="laplace", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def reference(v, point, sizes):
    u = v["u"]
    return {"out": 4 * u[1:-1, 1:-1] - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]}
def inputs(point, sizes, rng):
    return {"u": rng.uniform(-1, 1, (sizes["n"] + 2,) * 2).astype(np.float32)}
SPEC = BenchmarkSpec(name="laplace", description="2-D 5-point Laplacian", program=program,
    reference=reference, inputs=inputs, sizes=lambda point, device, quick: {"n": 48})
"""

#: the same kernel with knobs bound to its inames by hand (work-group shape, register blocking)
LAPLACE_KNOBS = LAPLACE.replace(
    "from gencl.spec import BenchmarkSpec", "from gencl.spec import BenchmarkSpec, Knob").replace(
    '{"n": 48})', """{"n": 48},
    knobs={"block_x": Knob("register_block", (1, 2), {"iname": "j"}),
           "workgroup": Knob("workgroup", ((16, 4), (32, 2), (8, 8)), {"inames": ("j", "i")})})
""")


def write(folder: Path, text: str, name: str = "laplace") -> Path:
    path = folder / f"{name}.py"
    path.write_text(text)
    return path


def in_memory(text: str):
    """The SPEC a module of *text* defines, without a file behind it."""
    namespace: dict = {"__name__": "user_spec"}
    exec(compile(text, "<user spec>", "exec"), namespace)
    return namespace["SPEC"]


#: a 1-D heat step a user writes with a hand-made temporal form: ``sweeps`` = 2 computes two
#: steps per launch (the neighbours' first step recomputed: the halo), ping-ponged u → u_new. The
#: logical grid u[0..n+1] (boundary kept) sits at buffer index + 1; the pads at both ends hold
#: NaN, so a step that reads them where it should not cannot pass.
HEAT1D = """\
import loopy as lp
import numpy as np
from gencl.spec import ApplicationHooks, BenchmarkSpec, Knob
A = np.float32(0.2)
def step_at(b):
    return f"(u[{b}] + a * (u[{b} - 1] - 2 * u[{b}] + u[{b} + 1]))"
def program(point):
    if point["sweeps"] == 1:
        new = step_at("i + 2")
    else:
        mid = step_at("i + 2")
        left = f"(u[i + 1] if i == 0 else {step_at('i + 1')})"
        right = f"(u[i + 3] if i == n - 1 else {step_at('i + 3')})"
        new = f"{mid} + a * ({left} - 2 * {mid} + {right})"
    return lp.make_kernel("{[i]: 0 <= i < n}", f"u_new[i + 2] = {new}",
        [lp.GlobalArg("u", np.float32, shape=("n + 4",)),
         lp.GlobalArg("u_new", np.float32, shape=("n + 4",), is_input=True, is_output=True),
         lp.ValueArg("a", np.float32), lp.ValueArg("n", np.int32)],
        name="heat1d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def step(grid, a):
    new = grid.copy()
    new[1:-1] = grid[1:-1] + a * (grid[:-2] - 2 * grid[1:-1] + grid[2:])
    return new
def reference(v, point, sizes):
    grid = v["u"][1:-1]
    for _ in range(point["sweeps"]):
        grid = step(grid, v["a"])
    out = np.full_like(v["u"], np.nan)
    out[1:-1] = grid
    return {"u_new": out}
def inputs(point, sizes, rng):
    n = sizes["n"]
    u = np.full(n + 4, np.nan, np.float32)
    u[1:-1] = rng.uniform(-1, 1, n + 2)
    start = u.copy()
    start[2:-2] = np.nan
    return {"u": u, "u_new": start, "a": A}
SPEC = BenchmarkSpec(name="heat1d", description="1-D heat step, one or two per launch",
    program=program, reference=reference, inputs=inputs,
    sizes=lambda point, device, quick: {"n": 300}, params={"sweeps": (1, 2)},
    knobs={"workgroup": Knob("workgroup", ((32,), (64,)), {"inames": ("i",)})},
    tolerance={"float32": 1e-5}, group="application",
    hooks=ApplicationHooks(ping_pong=(("u_new", "u"),), steps=lambda point: point["sweeps"]))
"""


#: a 2-D gradient magnitude a user writes with squares (``x**2``) and a sqrt: no knobs. loopy's
#: code generator has no vector rule for a power; gencl writes squares as products for it
GRADMAG = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    return lp.make_kernel("{[j, i]: 0 <= j, i < n}",
        "g[j, i] = sqrt((u[j + 1, i + 2] - u[j + 1, i])**2 + (u[j + 2, i + 1] - u[j, i + 1])**2)",
        [lp.GlobalArg("u", np.float32, shape=("n + 2", "n + 4")), lp.ValueArg("n", np.int32),
         lp.GlobalArg("g", np.float32, shape=("n", "n"), is_input=False, is_output=True)],
        name="gradmag", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def reference(v, point, sizes):
    u = v["u"].astype(np.float64)
    dx = u[1:-1, 2:-2] - u[1:-1, :-4]
    dy = u[2:, 1:-3] - u[:-2, 1:-3]
    return {"g": np.sqrt(dx**2 + dy**2).astype(np.float32)}
def inputs(point, sizes, rng):
    return {"u": rng.uniform(-1, 1, (sizes["n"] + 2, sizes["n"] + 4)).astype(np.float32)}
SPEC = BenchmarkSpec(name="gradmag", description="2-D gradient magnitude", program=program,
    reference=reference, inputs=inputs, sizes=lambda point, device, quick: {"n": 128})
"""


#: a matrix-vector product a user writes as a loopy reduction: its rows are the space's one
#: axis, so each vector lane's copy of the update holds a whole reduction
MATVEC = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    return lp.make_kernel("{[i, k]: 0 <= i < n and 0 <= k < m}", "y[i] = sum(k, a[i, k] * x[k])",
        [lp.GlobalArg("a", np.float32, shape=("n", "m")), lp.GlobalArg("x", np.float32,
         shape=("m",)), lp.GlobalArg("y", np.float32, shape=("n",), is_input=False,
         is_output=True), lp.ValueArg("n", np.int32), lp.ValueArg("m", np.int32)],
        name="matvec", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def reference(v, point, sizes):
    return {"y": (v["a"].astype(np.float64) @ v["x"]).astype(np.float32)}
def inputs(point, sizes, rng):
    return {"a": rng.uniform(-1, 1, (sizes["n"], sizes["m"])).astype(np.float32),
            "x": rng.uniform(-1, 1, sizes["m"]).astype(np.float32)}
SPEC = BenchmarkSpec(name="matvec", description="matrix-vector product", program=program,
    reference=reference, inputs=inputs, sizes=lambda point, device, quick: {"n": 512, "m": 96})
"""


#: a threshold of a smoothed uint8 image into float: arrays of two types on the contiguous axis
THRESH = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    return lp.make_kernel("{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        '''
        <float32> s = (img[j, i] + img[j, i + 1] + img[j, i + 2]) * (1.0f / 3)
        out[j, i] = if(s > t, s, 0.0f)
        ''',
        [lp.GlobalArg("img", np.uint8, shape=("ny", "nx + 2")), lp.ValueArg("t", np.float32),
         lp.GlobalArg("out", np.float32, shape=("ny", "nx"), is_input=False, is_output=True),
         lp.ValueArg("ny", np.int32), lp.ValueArg("nx", np.int32)],
        name="thresh", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def reference(v, point, sizes):
    img = v["img"].astype(np.float32)
    s = (img[:, :-2] + img[:, 1:-1] + img[:, 2:]) * np.float32(1.0 / 3)
    return {"out": np.where(s > v["t"], s, np.float32(0)).astype(np.float32)}
def inputs(point, sizes, rng):
    return {"img": rng.integers(0, 256, (sizes["ny"], sizes["nx"] + 2), dtype=np.uint8),
            "t": np.float32(100)}
SPEC = BenchmarkSpec(name="thresh", description="threshold of a smoothed image", program=program,
    reference=reference, inputs=inputs, sizes=lambda point, device, quick: {"ny": 16, "nx": 256})
"""


#: the 5-point Laplacian on column-major arrays (order="F"): the first index is the contiguous one
LAPLACE_F = LAPLACE.replace('shape=("n + 2", "n + 2")', 'shape=("n + 2", "n + 2"), order="F"') \
    .replace('shape=("n", "n"), is_input=False', 'shape=("n", "n"), order="F", is_input=False') \
    .replace('return {"out": 4', 'return {"out": np.asfortranarray(4').replace(
        'u[1:-1, 2:]}', 'u[1:-1, 2:])}').replace(
        '{"u": rng.uniform(-1, 1, (sizes["n"] + 2,) * 2).astype(np.float32)}',
        '{"u": np.asfortranarray(rng.uniform(-1, 1, (sizes["n"] + 2,) * 2).astype(np.float32))}'
    ).replace('{"n": 48}', '{"n": 128}')


#: a 5-point smoothing over the whole grid, its boundary kept by a branch in the update
BRANCH = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    return lp.make_kernel("{[j, i]: 0 <= j, i < n}",
        "out[j, i] = if(j == 0 or i == 0 or j == n - 1 or i == n - 1, u[j, i], 0.2f * (u[j, i]"
        " + u[j - 1, i] + u[j + 1, i] + u[j, i - 1] + u[j, i + 1]))",
        [lp.GlobalArg("u", np.float32, shape=("n", "n")), lp.ValueArg("n", np.int32),
         lp.GlobalArg("out", np.float32, shape=("n", "n"), is_input=False, is_output=True)],
        name="smooth", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def reference(v, point, sizes):
    u = v["u"]
    out = u.copy()
    out[1:-1, 1:-1] = np.float32(0.2) * (u[1:-1, 1:-1] + u[:-2, 1:-1] + u[2:, 1:-1]
                                         + u[1:-1, :-2] + u[1:-1, 2:])
    return {"out": out}
def inputs(point, sizes, rng):
    return {"u": rng.uniform(-1, 1, (sizes["n"],) * 2).astype(np.float32)}
SPEC = BenchmarkSpec(name="smooth", description="5-point smoothing, a branch at the boundary",
    program=program, reference=reference, inputs=inputs,
    sizes=lambda point, device, quick: {"n": 128})
"""


#: a shift by a run-time amount: u read at i + s
SHIFT = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    return lp.make_kernel("{[j, i]: 0 <= j, i < n}", "out[j, i] = u[j, i + s] - u[j, i]",
        [lp.GlobalArg("u", np.float32, shape=("n", "n + 64")), lp.ValueArg("s", np.int32),
         lp.GlobalArg("out", np.float32, shape=("n", "n"), is_input=False, is_output=True),
         lp.ValueArg("n", np.int32)], name="shift", target=lp.PyOpenCLTarget(),
        lang_version=(2018, 2))
def reference(v, point, sizes):
    return {"out": v["u"][:, v["s"]:v["s"] + sizes["n"]] - v["u"][:, :sizes["n"]]}
def inputs(point, sizes, rng):
    return {"u": rng.uniform(-1, 1, (sizes["n"], sizes["n"] + 64)).astype(np.float32), "s": 5}
SPEC = BenchmarkSpec(name="shift", description="a run-time shift", program=program,
    reference=reference, inputs=inputs, sizes=lambda point, device, quick: {"n": 64})
"""

#: a 5 × 5 convolution whose weights are an array and whose window is a loopy sum over (a, b):
#: a streamed column of u is keyed by i + b, so b must be written out under streaming too
CONV2D = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    return lp.make_kernel("{[j, i, a, b]: 0 <= j < ny and 0 <= i < nx and 0 <= a, b < 5}",
        "out[j, i] = sum((a, b), w[a, b] * u[j + a, i + b])",
        [lp.GlobalArg("u", np.float32, shape=("ny + 4", "nx + 4")),
         lp.GlobalArg("w", np.float32, shape=(5, 5)), lp.ValueArg("ny, nx", np.int32),
         lp.GlobalArg("out", np.float32, shape=("ny", "nx"), is_input=False, is_output=True)],
        name="conv2d", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def reference(v, point, sizes):
    ny, nx = sizes["ny"], sizes["nx"]
    return {"out": sum(v["w"][a, b] * v["u"][a:a + ny, b:b + nx]
                       for a in range(5) for b in range(5))}
def inputs(point, sizes, rng):
    return {"u": rng.uniform(-1, 1, (sizes["ny"] + 4, sizes["nx"] + 4)).astype(np.float32),
            "w": rng.uniform(-1, 1, (5, 5)).astype(np.float32)}
SPEC = BenchmarkSpec(name="conv2d", description="5 x 5 convolution, weights an array",
    program=program, reference=reference, inputs=inputs,
    sizes=lambda point, device, quick: {"ny": 32, "nx": 64})
"""

#: the Laplacian written into the interior of an output padded like its input: its rows start
#: one element in
OFFSET_OUT = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    return lp.make_kernel("{[i, j]: 0 <= i, j < n}", "out[i + 1, j + 1] = 4 * u[i + 1, j + 1]"
        " - u[i, j + 1] - u[i + 2, j + 1] - u[i + 1, j] - u[i + 1, j + 2]",
        [lp.GlobalArg("u, out", np.float32, shape=("n + 2", "n + 2")), lp.ValueArg("n", np.int32)],
        name="laplace", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def reference(v, point, sizes):
    u, out = v["u"], v["out"].copy()
    out[1:-1, 1:-1] = (4 * u[1:-1, 1:-1] - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2]
                       - u[1:-1, 2:])
    return {"out": out}
def inputs(point, sizes, rng):
    return {"u": rng.uniform(-1, 1, (sizes["n"] + 2,) * 2).astype(np.float32),
            "out": rng.uniform(-1, 1, (sizes["n"] + 2,) * 2).astype(np.float32)}
SPEC = BenchmarkSpec(name="laplace", description="2-D 5-point Laplacian, padded output",
    program=program, reference=reference, inputs=inputs,
    sizes=lambda point, device, quick: {"n": 48})
"""

#: a 7-point Laplacian over a batch of 3-D fields: four axes
BATCH4D = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    u = lambda k, j, i: f"u[b, k + {k}, j + {j}, i + {i}]"
    return lp.make_kernel("{[b, k, j, i]: 0 <= b < nb and 0 <= k, j, i < n}",
        f"out[b, k, j, i] = {u(1, 1, 0)} + {u(1, 1, 2)} - 2 * {u(1, 1, 1)}",
        [lp.GlobalArg("u", np.float32, shape=("nb", "n + 2", "n + 2", "n + 2")),
         lp.GlobalArg("out", np.float32, shape=("nb", "n", "n", "n"), is_input=False,
                      is_output=True), lp.ValueArg("nb, n", np.int32)],
        name="batch", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def reference(v, point, sizes):
    u = v["u"]
    return {"out": u[:, 1:-1, 1:-1, :-2] + u[:, 1:-1, 1:-1, 2:] - 2 * u[:, 1:-1, 1:-1, 1:-1]}
def inputs(point, sizes, rng):
    return {"u": rng.uniform(-1, 1, (2,) + (sizes["n"] + 2,) * 3).astype(np.float32)}
SPEC = BenchmarkSpec(name="batch", description="a batch of 3-D fields", program=program,
    reference=reference, inputs=inputs, sizes=lambda point, device, quick: {"nb": 2, "n": 16})
"""

#: a Laplacian on a periodic grid, the wrap written as a modulo
PERIODIC = """\
import loopy as lp
import numpy as np
from gencl.spec import BenchmarkSpec
def program(point):
    return lp.make_kernel("{[j, i]: 0 <= j < ny and 0 <= i < nx}",
        "out[j, i] = u[(j + ny - 1) % ny, i] + u[(j + 1) % ny, i] + u[j, (i + nx - 1) % nx]"
        " + u[j, (i + 1) % nx] - 4 * u[j, i]",
        [lp.GlobalArg("u", np.float32, shape=("ny", "nx")), lp.ValueArg("ny, nx", np.int32),
         lp.GlobalArg("out", np.float32, shape=("ny", "nx"), is_input=False, is_output=True)],
        name="periodic", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
def reference(v, point, sizes):
    u = v["u"]
    return {"out": np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1)
            - 4 * u}
def inputs(point, sizes, rng):
    return {"u": rng.uniform(-1, 1, (sizes["ny"], sizes["nx"])).astype(np.float32)}
SPEC = BenchmarkSpec(name="periodic", description="periodic 5-point Laplacian", program=program,
    reference=reference, inputs=inputs, sizes=lambda point, device, quick: {"ny": 32, "nx": 64})
"""
