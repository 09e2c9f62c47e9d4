"""Small abstract programs the knob tests transform (each with a numpy reference)."""

from __future__ import annotations

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob


def _axpy(point):
    return lp.make_kernel(
        "{[i]: 0 <= i < n}",
        "y[i] = a * x[i] + y0[i]",
        [lp.GlobalArg("x", np.float32, shape=("n",)), lp.GlobalArg("y0", np.float32, shape=("n",)),
         lp.GlobalArg("y", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("a", np.float32), lp.ValueArg("n", np.int32)],
        name="axpy", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


AXPY = BenchmarkSpec(
    name="axpy", description="a*x + y", program=_axpy,
    knobs={"vector_width": Knob("vector", (1, 2, 4, 8, 16),
                                {"iname": "i", "arrays": ("x", "y0", "y"), "size": "n"}),
           "workgroup": Knob("workgroup", (32, 64), {"inames": ("i",)})},
    inputs=lambda p, s, rng: {"x": rng.standard_normal(s["n"]).astype(np.float32),
                              "y0": rng.standard_normal(s["n"]).astype(np.float32),
                              "a": np.float32(1.5)},
    reference=lambda v, p, s: {"y": v["a"] * v["x"] + v["y0"]},
    sizes=lambda p, d, q: {"n": 16 * 64 * 3},
    metrics={"bytes": lambda p, s: 12 * s["n"]},
)


def _chains(point):
    # independent accumulators x[c]: the ILP knob fixes their count and interleaves them
    return lp.make_kernel(
        "{[i, c, k, c2]: 0 <= i < n and 0 <= c, c2 < nchains and 0 <= k < 64}",
        """
        for i
            for c
                x[c] = x0[i] + c {id=init}
            end
            for k
                for c
                    x[c] = x[c] * a + b {id=step, dep=init}
                end
            end
            out[i] = sum(c2, x[c2]) {dep=step}
        end
        """,
        [lp.GlobalArg("x0", np.float32, shape=("n",)),
         lp.GlobalArg("out", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.TemporaryVariable("x", np.float32, shape=("nchains",)),
         lp.ValueArg("a", np.float32), lp.ValueArg("b", np.float32), lp.ValueArg("n", np.int32),
         lp.ValueArg("nchains", np.int32)],
        name="chains", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


def _chains_reference(v, p, s):
    x = np.stack([v["x0"] + c for c in range(p["ilp"])]).astype(np.float32)
    for _ in range(64):
        x = x * v["a"] + v["b"]
    return {"out": x.sum(axis=0)}


CHAINS = BenchmarkSpec(
    name="chains", description="independent madd chains", program=_chains,
    knobs={"ilp": Knob("ilp", (1, 2, 4), {"iname": "c", "param": "nchains"}),
           "unroll": Knob("unroll", ("none", "full", "hint", 8), {"iname": "k"}),
           "workgroup": Knob("workgroup", (32,), {"inames": ("i",)})},
    inputs=lambda p, s, rng: {"x0": rng.standard_normal(s["n"]).astype(np.float32),
                              "a": np.float32(0.5), "b": np.float32(0.25)},
    reference=_chains_reference,
    sizes=lambda p, d, q: {"n": 100},
    tolerance={"float32": 1e-5},
)


def _blur(point):
    # 1D three-point average on an interior-only domain: the prefetch bounding box works here
    return lp.make_kernel(
        "{[i]: 0 <= i < n}",
        "out[i] = (u[i] + u[i + 1] + u[i + 2]) / 3",
        [lp.GlobalArg("u", np.float32, shape=("n + 2",)),
         lp.GlobalArg("out", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("n", np.int32)],
        name="blur", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))


BLUR = BenchmarkSpec(
    name="blur", description="3-point average", program=_blur,
    knobs={"workgroup": Knob("workgroup", (16,), {"inames": ("i",)}),
           "local": Knob("local_memory", ("none", "static", "dynamic"),
                         {"array": "u", "sweep_inames": ("i_inner",)})},
    inputs=lambda p, s, rng: {"u": rng.standard_normal(s["n"] + 2).astype(np.float32)},
    reference=lambda v, p, s: {"out": (v["u"][:-2] + v["u"][1:-1] + v["u"][2:]) / 3},
    sizes=lambda p, d, q: {"n": 16 * 5},
    tolerance={"float32": 1e-5},
)
