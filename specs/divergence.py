"""Thread divergence (seed 000 §V-D, seed 003 §3.3): equal branches chosen by work-item index.

Work item i takes branch ``(i / convItems) % branches`` (the global index equals the paper's
``lid / convItems`` pattern when the work-group is a multiple of convItems × branches). Each
branch is its own loop (its own iname, so loopy cannot merge the branches into one loop and the
compiler cannot if-convert them) of dependent multiply-adds with a branch-specific constant.
convItems is fixed at compile time by the ``branch`` knob. Sweep: 4 branches × convItems 1…256
(seed 000 Fig. 5) and branch count × width (seed 003 Fig. 7).
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

CHAIN = 256


def program(point):
    nb = int(point["branches"])
    inames = ", ".join(f"k{j}" for j in range(nb))
    domain = " and ".join(f"0 <= k{j} < K" for j in range(nb))
    body = "\n".join(f"""
            if branch == {j}
                for k{j}
                    x = x * a + b * {j + 1} {{id=s{j}, dep=init}}
                end
            end""" for j in range(nb))
    deps = ":".join(f"s{j}" for j in range(nb))
    t = lp.make_kernel(
        f"{{[i, r, {inames}]: 0 <= i < n and 0 <= r < reps and {domain}}}",
        f"""
        for i
            <> branch = (i // conv) % {nb}
            <> x = src[i] {{id=init}}
            for r
                {body}
            end
            dst[i] = x {{dep={deps}}}
        end
        """,
        [lp.GlobalArg("src", np.float32, shape=("n",)),
         lp.GlobalArg("dst", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("a", np.float32), lp.ValueArg("b", np.float32),
         lp.ValueArg("conv", np.int32), lp.ValueArg("n", np.int32),
         lp.ValueArg("reps", np.int32)],
        name="divergence", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.fix_parameters(t, K=CHAIN)


def sizes(point, device, quick):
    """A full device of work-groups; each work item runs ``reps × 256`` steps of its branch."""
    gpu = device.device_type.upper() == "GPU"
    items = int(device.compute_units) * point["workgroup"] * (16 if gpu else 2)
    return {"n": items, "reps": (16 if gpu else 4) // (4 if quick else 1)}


def verify_sizes(point, device):
    return {"n": 2 * point["workgroup"] + 3, "reps": 1}


def inputs(point, sizes, rng):
    return {"src": rng.uniform(-1, 1, sizes["n"]).astype(np.float32),
            "a": np.float32(rng.uniform(0.5, 0.9)), "b": np.float32(rng.uniform(0.1, 0.5))}


def reference(values, point, sizes):
    a, b = np.float32(values["a"]), np.float32(values["b"])
    x = values["src"].copy()
    branch = (np.arange(sizes["n"]) // point["conv_items"]) % point["branches"]
    coef = (b * (branch + 1)).astype(np.float32)
    for _ in range(sizes["reps"] * CHAIN):
        x = (x * a + coef).astype(np.float32)
    return {"dst": x}


def ops(point, sizes):
    """Useful operations: each work item runs one branch (2 per multiply-add)."""
    return 2 * sizes["n"] * sizes["reps"] * CHAIN


CONV = (1, 2, 4, 8, 16, 32, 64, 128, 256)
#: up to 32: loopy needs ~1 s for 32 branch loops but 76 s for 128 (one iname per branch)
BRANCHES = (4, 1, 2, 8, 16, 32)

SPEC = BenchmarkSpec(
    name="divergence",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"branches": BRANCHES},
    knobs={
        "conv_items": Knob("branch", CONV, {"param": "conv"}),
        "workgroup": Knob("workgroup", (1024, 256), {"inames": ("i",)}),
    },
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"ops": ops},
    sweep=[{"branches": 4, "conv_items": c} for c in CONV]
    + [{"branches": nb, "conv_items": c}
       for nb in (1, 2, 8, 16, 32) for c in (1, 4, 32)],
    quick_sweep=[{"branches": 4, "conv_items": c, "workgroup": 256} for c in (1, 4, 16, 64)],
    analysis="divergence",
    group="compute",
    tolerance={"float32": 1e-4},
)
