"""Sparse matrix × vector in ELLPACK form, a 3-D 7-point matrix: y = A x, x gathered through
an index array.

Row i of A has ``K`` = 8 slots: the 7-point Laplacian's columns i, i ± 1, i ± nx, i ± nx·ny
(mod n: the grid wraps) and one padding slot (column i, value 0), stored slot-major
(``val[k, i]``, ``col[k, i]``) so that neighbouring rows' slots are neighbouring words. Each
work item computes one row: ``j = col[k, i]`` then ``x[j]``, a load whose address is another
load's value. A user kernel of another shape than the stencils: no grid, an index read from
memory. Knobs: the work-group and how far the slot loop is unrolled.
"""

import loopy as lp
import numpy as np

from gencl.spec import BenchmarkSpec, Knob

K = 8
#: the grid the matrix discretizes, per size class (n = nz·ny·nx rows)
GRIDS = {"GPU": (128, 128, 256), "CPU": (32, 64, 128), "quick": (8, 16, 128),
         "verify": (4, 8, 64)}


def program(point):
    t = lp.make_kernel(
        "{[i, k]: 0 <= i < n and 0 <= k < K}",
        """
        for i
            <> acc = 0 {id=zero}
            for k
                <> j = col[k, i] {id=index}
                acc = acc + val[k, i] * x[j] {id=add, dep=index:zero}
            end
            y[i] = acc {dep=add}
        end
        """,
        [lp.GlobalArg("val", np.float32, shape=("K", "n")),
         lp.GlobalArg("col", np.int32, shape=("K", "n")),
         lp.GlobalArg("x", np.float32, shape=("n",)),
         lp.GlobalArg("y", np.float32, shape=("n",), is_input=False, is_output=True),
         lp.ValueArg("n", np.int32)],
        name="spmv_ell", target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    t = lp.fix_parameters(t, K=K)
    return lp.assume(t, f"n mod {point['workgroup']} = 0 and n >= {point['workgroup']}")


def _sizes(kind):
    nz, ny, nx = GRIDS[kind]
    return {"n": nz * ny * nx, "ny": ny, "nx": nx}


def sizes(point, device, quick):
    kind = "quick" if quick else ("GPU" if device.device_type.upper() == "GPU" else "CPU")
    return _sizes(kind)


def verify_sizes(point, device):
    return _sizes("verify")


def columns(sizes):
    """col[k, i] of the 7-point matrix on the wrapped grid, then the padding slot."""
    n, plane, row = sizes["n"], sizes["ny"] * sizes["nx"], sizes["nx"]
    i = np.arange(n, dtype=np.int64)
    offsets = (0, -1, 1, -row, row, -plane, plane, 0)
    return np.stack([(i + d) % n for d in offsets]).astype(np.int32)


def inputs(point, sizes, rng):
    n = sizes["n"]
    val = rng.standard_normal((K, n)).astype(np.float32)
    val[K - 1] = 0.0  # the padding slot
    return {"val": val, "col": columns(sizes),
            "x": rng.standard_normal(n).astype(np.float32)}


def reference(values, point, sizes):
    acc = np.zeros(sizes["n"], dtype=np.float32)
    for k in range(K):  # the kernel's order of additions
        acc = (acc + values["val"][k] * values["x"][values["col"][k]]).astype(np.float32)
    return {"y": acc}


def bytes_moved(point, sizes):
    """val and col once, x once (its gathers hit the cache after the first), y once."""
    return float(sizes["n"]) * (K * 8 + 4 + 4)


def flops(point, sizes):
    return 2.0 * K * sizes["n"]


SPEC = BenchmarkSpec(
    name="spmv_ell",
    description=__doc__.strip().splitlines()[0],
    program=program,
    knobs={"workgroup": Knob("workgroup", (128, 64, 256, 512), {"inames": ("i",)}),
           "unroll": Knob("unroll", ("none", 2, 4, "full"), {"iname": "k"})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved, "flops": flops},
    group="application",
    tolerance={"float32": 1e-5},
)
