"""Sparse matrix × vector in ELLPACK form: y = A x, x gathered through an index array.

Row i of A has ``K`` = 8 slots, stored slot-major (``val[k, i]``, ``col[k, i]``) so that
neighbouring rows' slots are neighbouring words; the last is a padding slot (column i, value
0). ``pattern`` says where the other seven columns are: ``stencil``, a 3-D 7-point matrix
(columns i, i ± 1, i ± nx, i ± nx·ny, mod n: the grid wraps), whose gathers of x are nearly
coalesced; ``random``, the diagonal and six columns drawn uniformly, whose gathers touch a
line a lane; ``window``, the diagonal and six columns drawn uniformly within ``WINDOWS``
rows either side (1,024: a mesh renumbered to keep its bandwidth small): a line a lane too, but
lines the work-group's other rows come back to; ``wide``, the same within 65,536 rows, which
the work-group's rows seldom share. Each work item computes one row: ``j = col[k, i]`` then
``x[j]``, a load whose address is another load's value. A user kernel of another shape than
the stencils: no grid, an index read from memory. Knobs: the work-group and how far the slot
loop is unrolled. Peers: the ELL kernel a user writes by hand (OpenCL on the run's device; CUDA
through CuPy) and cuSPARSE's CSR product through CuPy, on the same matrix (the default point's:
banded).
"""

import loopy as lp
import numpy as np

from gencl.peers import cupy_call_peer, cupy_kernel_peer, opencl_kernel_peer
from gencl.spec import ApplicationHooks, BenchmarkSpec, Knob

K = 8
#: rows either side of the diagonal that a windowed pattern's columns fall within
WINDOWS = {"window": 1024, "wide": 65536}
#: the grid the matrix discretizes, per size class (n = nz·ny·nx rows)
GRIDS = {"GPU": (128, 128, 256), "CPU": (32, 64, 128), "quick": (8, 16, 128),
         "verify": (4, 8, 64)}


#: the product's loopy instructions: row i sums its K slots, each gathering x at its column
INSTRUCTIONS = """
for i
    <> acc = 0 {id=zero}
    for k
        <> j = col[k, i] {id=index}
        acc = acc + val[k, i] * x[j] {id=add, dep=index:zero}
    end
    y[i] = acc {dep=add}
end
"""


def program(point):
    t = lp.make_kernel(
        "{[i, k]: 0 <= i < n and 0 <= k < K}",
        INSTRUCTIONS,
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


def columns(pattern, sizes, rng):
    """col[k, i]: the diagonal, six more columns (the wrapped grid's neighbours, drawn
    uniformly, or drawn uniformly within ``WINDOWS[pattern]`` rows of i, mod n), then the
    padding slot (the diagonal again)."""
    n, plane, row = sizes["n"], sizes["ny"] * sizes["nx"], sizes["nx"]
    i = np.arange(n, dtype=np.int64)
    if pattern == "stencil":
        others = [(i + d) % n for d in (-1, 1, -row, row, -plane, plane)]
    elif pattern in WINDOWS:
        w = WINDOWS[pattern]
        others = list((i + rng.integers(-w, w + 1, size=(K - 2, n))) % n)
    else:
        others = list(rng.integers(0, n, size=(K - 2, n)))
    return np.stack([i, *others, i]).astype(np.int32)


def inputs(point, sizes, rng):
    n = sizes["n"]
    val = rng.standard_normal((K, n)).astype(np.float32)
    val[K - 1] = 0.0  # the padding slot
    return {"val": val, "col": columns(point["pattern"], sizes, rng),
            "x": rng.standard_normal(n).astype(np.float32)}


def reference(values, point, sizes):
    acc = np.zeros(sizes["n"], dtype=np.float32)
    for k in range(K):  # the kernel's order of additions
        acc = (acc + values["val"][k] * values["x"][values["col"][k]]).astype(np.float32)
    return {"y": acc}


# {{{ peers: the same matrix and x

#: the ELL product as a user writes it by hand: one work item a row
HAND_OPENCL = """
__kernel void spmv_ell(__global const float *val, __global const int *col,
                       __global const float *x, __global float *y, const int n)
{
    const int i = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < 8; ++k)
        acc += val[k * n + i] * x[col[k * n + i]];
    y[i] = acc;
}
"""
HAND_CUDA = """
extern "C" __global__ void spmv_ell(const float *val, const int *col, const float *x, float *y,
                                    const int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < 8; ++k)
        acc += val[k * n + i] * x[col[k * n + i]];
    y[i] = acc;
}
"""
ARGS = ("val", "col", "x", "y", "n")


def _cusparse_csr(ctx, cp):
    """The matrix in CSR on the device (row i's eight slots in order), cuSPARSE's y = A x."""
    from cupyx.scipy import sparse

    n = ctx.sizes["n"]
    data = cp.asarray(np.ascontiguousarray(ctx.inputs["val"].T).ravel())
    indices = cp.asarray(np.ascontiguousarray(ctx.inputs["col"].T).ravel())
    indptr = cp.arange(0, K * n + 1, K, dtype=cp.int32)
    matrix = sparse.csr_matrix((data, indices, indptr), shape=(n, n))
    x = cp.asarray(ctx.inputs["x"])
    return lambda: {"y": matrix @ x}


PEERS = {
    "hand_opencl": opencl_kernel_peer(HAND_OPENCL, "spmv_ell", args=ARGS,
                                      global_size=lambda ctx: (ctx.sizes["n"],)),
    "cuda_naive": cupy_kernel_peer(HAND_CUDA, "spmv_ell", args=ARGS,
                                   launch=lambda ctx: ((-(-ctx.sizes["n"] // 256),), (256,))),
    "cusparse_csr": cupy_call_peer(_cusparse_csr),
}
# }}}


def bytes_moved(point, sizes):
    """val and col once, x once (the least its gathers can move), y once."""
    return float(sizes["n"]) * (K * 8 + 4 + 4)


def flops(point, sizes):
    return 2.0 * K * sizes["n"]


SPEC = BenchmarkSpec(
    name="spmv_ell",
    description=__doc__.strip().splitlines()[0],
    program=program,
    params={"pattern": ("stencil", "random", "window", "wide")},
    knobs={"workgroup": Knob("workgroup", (128, 64, 256, 512), {"inames": ("i",)}),
           "unroll": Knob("unroll", ("none", 2, 4, "full"), {"iname": "k"})},
    inputs=inputs,
    reference=reference,
    sizes=sizes,
    verify_sizes=verify_sizes,
    metrics={"bytes": bytes_moved, "flops": flops},
    group="application",
    hooks=ApplicationHooks(peers=PEERS),
)
