"""tools/opencl_to_cuda.py: what gencl's stencil variants emit becomes CUDA with no OpenCL left
(so Nsight Compute can profile it), local tiles and the temporal streams' copies included, and a
construct it does not cover stops with its name.
Compiling the CUDA needs nvcc (the GPU machine); here the translation is checked as text."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from gencl.generate import generate
from gencl.spec import load_spec

TOOL = Path(__file__).resolve().parents[2] / "tools" / "opencl_to_cuda.py"
_spec = importlib.util.spec_from_file_location("opencl_to_cuda", TOOL)
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

OPENCL_ONLY = ("__global ", "__kernel", "get_local_id", "get_group_id", "reqd_work_group_size")


def jacobi(**knobs):
    point = {"dtype": "float32", "boundary": "padded", "temporal": "none", "sweeps": 1,
             "temporal_points": (1, 1), "vector_width": 1, "block_y": 1, "block_x": 1,
             "workgroup": [32, 4], "local": "none", **knobs}
    return generate(load_spec("jacobi"), point).source


@pytest.mark.parametrize("knobs", [
    {},                                                           # scalar
    {"vector_width": 4, "block_x": 2},                            # float4 loads, lane moves
    {"vector_width": 16, "block_y": 2},                           # float16
    {"boundary": "branch", "vector_width": 8},                    # lane by lane (.sN)
    {"dtype": "float64", "vector_width": 4},                      # double4
])
def test_jacobi_variants_become_cuda(knobs):
    cuda = tool.to_cuda(jacobi(**knobs))
    assert 'extern "C" __global__ void __launch_bounds__(128) jacobi(' in cuda
    assert not [t for t in OPENCL_ONLY if t in cuda]
    assert "threadIdx.x" in cuda and "blockIdx.y" in cuda
    width = knobs.get("vector_width", 1)
    scalar = "double" if knobs.get("dtype") == "float64" else "float"
    if width > 1:  # the vector type is the aligned struct, its loads whole
        assert re.search(rf"\b{scalar}{width}\b", cuda.split("extern")[1]) is None
        assert f"struct __align__({width * (8 if scalar == 'double' else 4)}) v{scalar}{width}" \
            in cuda
        assert f"v{scalar}{width} const *__restrict__ u" in cuda


def test_a_shuffled_neighbour_is_built_lane_by_lane():
    spec = load_spec("laplace3d")  # its float4 neighbours are shuffle2s of two vectors
    source = generate(spec, {**spec.sweep_points(None, quick=True)[0], "vector_width": 4}).source
    masks = re.findall(r"shuffle2\((\w+), (\w+), \(uint4\)\(([\d, ]+)\)\)", source)
    assert masks
    cuda = tool.to_cuda(source)
    assert "shuffle2" not in cuda and "uint4" not in cuda.split("extern")[1]
    a, b, lanes = masks[0]
    picks = [f"{a}.s{k}" if k < 4 else f"{b}.s{k - 4}" for k in map(int, lanes.split(","))]
    assert f"decltype({a}){{{', '.join(picks)}}}" in cuda


def test_a_local_tile_becomes_shared_memory_and_its_barriers_syncthreads():
    source = jacobi(local="static")
    assert "__local" in source and "barrier(" in source
    cuda = tool.to_cuda(source)
    assert "__shared__ float" in cuda and "__syncthreads()" in cuda
    assert "__local" not in cuda and "barrier(" not in cuda


def test_a_temporal_streams_asynchronous_copies_stay_cp_async():
    spec = load_spec("box2d9")
    point = {"dtype": "float32", "temporal": "stream_async", "sweeps": 2,
             "temporal_points": [1, 128], "vector_width": 1, "stream": 1, "workgroup": [128, 1]}
    source = generate(spec, point).source
    assert "cp.async" in source and "#ifdef cl_nv_pragma_unroll" in source
    cuda = tool.to_cuda(source)
    # the cp.async branch is taken, with the ring's shared-window address CUDA's way
    assert "#ifdef cl_nv_pragma_unroll" not in cuda
    assert '"r"((uint) __cvta_generic_to_shared(ring)' in cuda
    assert "(size_t) (ring)" not in cuda
    assert cuda.startswith("typedef unsigned int uint;")
    assert not [t for t in OPENCL_ONLY if t in cuda]


def test_a_local_kernel_argument_is_refused():
    with pytest.raises(ValueError, match="'__local' kernel argument"):
        tool.to_cuda(jacobi(local="dynamic"))


@pytest.mark.parametrize("construct, named", [
    ("vload4(0, p)", "'vload'"), ("atomic_add(p, 1)", "'atomic_'"),
    ("barrier(CLK_IMAGE_MEM_FENCE)", "'barrier'"),
    ("shuffle2(a + b, c, (uint4)(1, 2, 3, 4))", "'shuffle2'")])
def test_an_uncovered_construct_names_itself(construct, named):
    source = jacobi().replace("{\n", "{\n  " + construct + ";\n", 1)
    with pytest.raises(ValueError, match=named):
        tool.to_cuda(source)
