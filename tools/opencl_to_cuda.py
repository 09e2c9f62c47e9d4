"""gencl's OpenCL variants as CUDA, timed with CuPy: so Nsight Compute can count what they do.

Nsight Compute profiles CUDA kernels only ("No kernels were profiled" for NVIDIA's OpenCL), so
hardware counters of a gencl variant (DRAM bytes, L1/L2 sectors and hits) come from its CUDA
translation: the same source with CUDA's names for work-item ids, ``floatN``/``doubleN`` as
aligned structs with ``.sN`` members and element-wise operators (so a vector load stays one
128-bit load per 16 bytes). NVRTC and NVIDIA's OpenCL compiler are not the same compiler: time
both and trust the counters of a variant only where the two times agree (docs/tuning.md lists
which Jacobi variants did, within 9 %, and which did not).

    gencl generate jacobi --knob … --out DIR          # OpenCL sources + manifest.json
    python tools/opencl_to_cuda.py DIR… --size n=8192  # CUDA times, one line per variant
    ncu --csv --metrics dram__bytes_read.sum,… \
        python tools/opencl_to_cuda.py DIR… --size n=8192 --reps 1  # counters, one launch each
    python tools/opencl_to_cuda.py DIR… --dump         # the CUDA sources

Only the constructs gencl's stencil variants emit are translated (``shuffle2`` of two named
vectors by a literal mask, loopy's shifted neighbour, included; a ``__local`` array the kernel
declares as ``__shared__``, a work-group barrier as ``__syncthreads()``, the temporal streams'
asynchronous copies as the same ``cp.async`` NVIDIA's OpenCL build emits); anything else
(``vload``, integer vectors, a ``__local`` kernel argument, images, atomics) stops with the
construct's name.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

LANES = "0123456789abcdef"
WIDTHS = (2, 3, 4, 8, 16)
#: OpenCL constructs this translation does not cover
UNSUPPORTED = ("shuffle(", "vload", "vstore", "read_image", "write_image", "atomic_",
               "convert_", "as_")
#: a work-group barrier (any fences: ``__syncthreads`` orders global and shared memory alike)
BARRIER = re.compile(r"\bbarrier\(\s*CLK_(?:LOCAL|GLOBAL)_MEM_FENCE(?:\s*\|\s*CLK_(?:LOCAL|GLOBAL)"
                     r"_MEM_FENCE)?\s*\)")
#: gencl's asynchronous copy (``gencl.generate.temporal._stream``): taken where the compiler is
#: NVIDIA's OpenCL, whose ``__local`` pointers are shared-window addresses; CUDA's are generic
ASYNC_COPY_GUARD = "#ifdef cl_nv_pragma_unroll"
SHARED_ADDRESS = "(uint) (size_t) (ring)"
SHUFFLE2 = re.compile(r"shuffle2\((\w+), (\w+), \(uint(\d+)\)\(([\d, ]+)\)\)")


def vector_header(scalar: str) -> str:
    """Aligned ``<scalar>N`` structs with ``.s0…`` members and element-wise + − * /."""
    out = []
    size = 4 if scalar == "float" else 8
    for w in WIDTHS:
        name, members = f"v{scalar}{w}", [f"s{LANES[i]}" for i in range(w)]
        align = size * (4 if w == 3 else w)
        out.append(f"struct __align__({align}) {name} {{ {scalar} {', '.join(members)}; }};")
        for op in "+-*/":
            for a, b, get_a, get_b in ((name, name, "a.{}", "b.{}"), (scalar, name, "a", "b.{}"),
                                       (name, scalar, "a.{}", "b")):
                body = "; ".join(f"r.{m} = {get_a.format(m)} {op} {get_b.format(m)}"
                                 for m in members)
                out.append(f"__device__ inline {name} operator{op}({a} a, {b} b) "
                           f"{{ {name} r; {body}; return r; }}")
    return "\n".join(out) + "\n"


def to_cuda(source: str) -> str:
    """The CUDA text of one gencl OpenCL kernel source (ValueError: a construct not covered)."""
    for token in UNSUPPORTED:
        if re.search(rf"\b{re.escape(token)}", source):
            raise ValueError(f"OpenCL construct {token!r} is not translated to CUDA")
    source = SHUFFLE2.sub(_shuffle2, source)
    source = BARRIER.sub("__syncthreads()", source)
    if re.search(r"\bbarrier\s*\(", source):
        raise ValueError("OpenCL construct 'barrier' is not translated to CUDA beyond "
                         "CLK_LOCAL_MEM_FENCE and CLK_GLOBAL_MEM_FENCE")
    signature = source[source.find("__kernel"):].split("{", 1)[0]
    if "__local" in signature:
        raise ValueError("OpenCL construct '__local' kernel argument is not translated to CUDA "
                         "(dynamic shared memory)")
    source = re.sub(r"\b__local\b", "__shared__", source)
    source = source.replace(ASYNC_COPY_GUARD, "#if 1  /* NVIDIA: cp.async */")
    source = source.replace(SHARED_ADDRESS, "(uint) __cvta_generic_to_shared(ring)")
    if "shuffle2" in source:
        raise ValueError("OpenCL construct 'shuffle2' is not translated to CUDA beyond two "
                         "named vectors and a literal mask")
    code = "\n".join(line for line in source.splitlines() if "MACRO_NAME(" not in line)
    if re.search(r"\b(u?(char|short|int|long))(2|3|4|8|16)\b", code):  # not loopy's macros
        raise ValueError("integer vector types are not translated to CUDA")
    src = source.replace("#define lid(N) ((int) get_local_id(N))",
                         "#define lid(N) ((int) ((N) == 0 ? threadIdx.x : (N) == 1 ? "
                         "threadIdx.y : threadIdx.z))")
    src = src.replace("#define gid(N) ((int) get_group_id(N))",
                      "#define gid(N) ((int) ((N) == 0 ? blockIdx.x : (N) == 1 ? blockIdx.y : "
                      "blockIdx.z))")
    src = re.sub(r"__kernel void __attribute__ \(\(reqd_work_group_size\((\d+), (\d+), (\d+)\)\)\)",
                 lambda m: 'extern "C" __global__ void '
                           f"__launch_bounds__({int(m[1]) * int(m[2]) * int(m[3])})", src)
    src = src.replace("__kernel void", 'extern "C" __global__ void')
    src = src.replace("__global ", "").replace("static inline", "static __device__ inline")
    src = src.replace("#pragma OPENCL EXTENSION cl_khr_fp64: enable", "")
    src = re.sub(r"\b(float|double)(2|3|4|8|16)\b", r"v\1\2", src)
    left = [t for t in ("get_local_id", "get_group_id", "get_global_id", "__kernel")
            if t in src]
    if left:
        raise ValueError(f"OpenCL construct {left[0]!r} is not translated to CUDA")
    header = "typedef unsigned int uint;\n" + vector_header("float") \
        + (vector_header("double") if "vdouble" in src else "")
    return header + src


def _shuffle2(m: re.Match) -> str:
    """``shuffle2(a, b, (uintN)(k…))`` (loopy's shifted neighbour of a vector) as the struct
    built lane by lane: lane k of a·b, a's lanes first."""
    a, b, width = m[1], m[2], int(m[3])
    lanes = [int(k) for k in m[4].split(",")]
    if len(lanes) != width:
        raise ValueError(f"shuffle2 mask of {len(lanes)} lanes for uint{width}")
    picks = [f"{a}.s{LANES[k]}" if k < width else f"{b}.s{LANES[k - width]}" for k in lanes]
    return f"decltype({a}){{{', '.join(picks)}}}"


def _evaluate(expression: str, sizes: dict[str, int]) -> int:
    """A manifest's size expression (loopy's Python syntax) at *sizes*."""
    return int(eval(expression, {"__builtins__": {}}, dict(sizes)))  # noqa: S307


def run(folder: Path, sizes: dict[str, int], reps: int) -> None:
    import cupy as cp
    import numpy as np

    manifest = json.loads((folder / "manifest.json").read_text())
    rng = np.random.default_rng(0)
    for v in manifest["variants"]:
        args = []
        for a in v["args"]:
            dtype = np.dtype(a["dtype"])
            if a["kind"] == "global":
                shape = tuple(_evaluate(s, sizes) for s in a["shape"])
                args.append(cp.asarray(rng.random(shape).astype(dtype)))
            elif a["name"] in sizes:
                args.append(dtype.type(sizes[a["name"]]))
            else:  # a coefficient: small, so no value overflows
                args.append(dtype.type(0.25))
        kernel = cp.RawKernel(to_cuda((folder / v["file"]).read_text()), v["kernel_name"])
        local = [_evaluate(s, sizes) for s in v["local_size"]]
        glob = [_evaluate(s, sizes) for s in v["global_size"]]
        block = tuple(local + [1] * (3 - len(local)))
        grid = tuple(g // b for g, b in zip(glob + [1] * (3 - len(glob)), block))
        times = []
        for _ in range(reps):
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            kernel(grid, block, tuple(args))
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) * 1e3)
        kept = times[min(3, reps - 1):]
        print(f"{v['id']}\t{json.dumps(v['point'], sort_keys=True)}\tregisters "
              f"{kernel.num_regs}\tmedian {float(np.median(kept)):.1f} us", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", type=Path, nargs="+", help="`gencl generate --out` folders")
    ap.add_argument("--size", action="append", default=[], metavar="NAME=INT")
    ap.add_argument("--reps", type=int, default=15, help="launches per variant (1 for ncu)")
    ap.add_argument("--dump", action="store_true", help="print the CUDA sources, run nothing")
    opts = ap.parse_args(argv)
    try:
        sizes = {k: int(v) for k, v in (s.split("=", 1) for s in opts.size)}
    except ValueError:
        print("opencl_to_cuda: --size takes NAME=INT", file=sys.stderr)
        return 2
    for folder in opts.folders:
        if not opts.dump:
            run(folder, sizes, opts.reps)
            continue
        for v in json.loads((folder / "manifest.json").read_text())["variants"]:
            print(f"// ===== {v['id']} {json.dumps(v['point'], sort_keys=True)}")
            print(to_cuda((folder / v["file"]).read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
