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
