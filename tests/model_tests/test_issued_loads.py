"""Which loads the compiler issues, against closed forms on the real generator's code and the
counts of the SASS of the H200 suite: of a vector, only the 16-byte chunks holding a lane that
something reads (a shifted neighbour's side vector is one 32-bit load where the PTX has two
16-byte ones); of a row a register block reads twice, one load."""

from __future__ import annotations

import pytest

from gencl.model import compute_stats, params_from
from gencl.model._predict import cache_requests, issued_chunk_share

GPU = {"name": "gpu", "device_type": "GPU", "compute_units": 4, "max_clock_hz": 1e9,
       "warp_size": 32, "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 128}
CPU = {"name": "cpu", "device_type": "CPU", "compute_units": 2, "max_clock_hz": 2e9,
       "global_cache_bytes": 1 << 20, "global_cacheline_bytes": 64}


def _stats(kernel: str, sizes: dict, **point):
    from gencl.api import load
    from gencl.generate import transform_program

    spec = load(f"tuning/{kernel}.py")
    return compute_stats(transform_program(spec, spec.complete(point)), sizes, subgroup_size=32)


def _load_instructions(stats, p) -> float:
    """Sub-group load instructions per work item: cache requests over lines per instruction
    (one sub-group row of lanes 4·width bytes apart: lines = width · 32 · 4 / 128)."""
    loads = [a for a in stats.accesses if a.space == "global" and a.direction == "load"]
    lines = {a.array: max(1, a.vec_width * 32 * a.itemsize // 128) for a in loads}
    per_group = sum(cache_requests(a, stats, p) / lines[a.array] for a in loads)
    return per_group / (stats.work_items / 32)


@pytest.mark.parametrize("width, instructions", [(1, 9), (4, 9), (8, 12)])
def test_a_box_loads_its_side_vectors_for_the_lane_the_shuffle_picks(width, instructions):
    """box2d9 unstreamed: three rows of a left, centre and right vector. The side vectors'
    shuffles read one lane each (lane width−1 of the left, 0 of the right). At float8 a vector
    is two chunks and a side vector issues one: 3 × 2 + 6 × 1 = 12 loads, the SASS's six
    ``LDG.E.128`` and six ``LDG.E``; at float4 and below a vector is one chunk anyway."""
    stats = _stats("box2d9", {"ny": 256, "nx": 256}, vector_width=width, stream=1,
                   workgroup=[32, 4])
    if width > 1:
        last = str(width - 1)
        assert stats.extra["load_lanes"]["u"] == {
            f"{width}:{last}": 3.0, f"{width}:0": 3.0,
            f"{width}:{','.join(map(str, range(width)))}": 3.0}
    p = params_from({}, GPU)
    assert _load_instructions(stats, p) == pytest.approx(instructions)
    u = next(a for a in stats.accesses if a.array == "u")
    # a CPU's lane access is 64 bytes: a float8 is one chunk, every vector loaded whole
    assert issued_chunk_share(stats, u, params_from({}, CPU).lane_access_bytes) == 1.0


def test_a_lane_by_lane_neighbour_loads_the_chunk_of_its_one_lane():
    """Jacobi's padded float8 form reads its west and east neighbours lane by lane
    (``w.s0 = u[… − 1].s7``); the compiler loads the vectors those lanes reach once each, and of
    the vectors beside the centre only the chunk of lane 7 (west) and lane 0 (east): centre,
    north, south and f whole (8 chunks) and two one-chunk loads, the SASS's eight
    ``LDG.E.128`` and two ``LDG.E``."""
    stats = _stats("jacobi", {"n": 512}, boundary="padded", vector_width=8, block_x=1,
                   block_y=1, workgroup=[16, 4], local="none")
    assert stats.extra["load_lanes"]["u"]["8:7"] == 1.0
    assert stats.extra["load_lanes"]["u"]["8:0"] == 1.0
    assert _load_instructions(stats, params_from({}, GPU)) == pytest.approx(10)


def test_a_load_nothing_reads_issues_nothing_and_a_whole_read_all():
    """The share counts chunks per pattern, weighted by how often each is loaded."""
    from gencl.model import Access, KernelStats

    a = Access("u", "global", "load", 4, 16, 1024.0, 16.0)
    stats = KernelStats(64, 64, 1, {}, (a,), {}, 0.0, 0.0, local_size=(64,),
                        extra={"load_lanes": {"u": {"16:": 1.0, "16:0,15": 1.0,
                                                    "16:" + ",".join(map(str, range(16))): 2.0}}})
    # 16 lanes = four 16-byte chunks: none, two (lanes 0 and 15), four and four
    assert issued_chunk_share(stats, a, 16) == pytest.approx((0 + 2 + 2 * 4) / (4 * 4))
    assert issued_chunk_share(stats, a, 64) == pytest.approx(3 / 4)


@pytest.mark.parametrize("block, loads", [(1, 7), (2, 12)])
def test_a_blocked_row_the_next_copy_reads_again_is_loaded_once(block, loads):
    """laplace3d unstreamed, block_j rows per item: of plane k the rows j−1 … j+block once
    each (one copy's north row is the next copy's centre) and each block row's west and east
    points, of planes k±1 the block's rows: (block + 2) + 4·block loads, 7 at block 1, 12 at
    block 2 (the SASS's twelve ``LDG.E``; one per copy would be 14)."""
    stats = _stats("laplace3d", {"nz": 32, "ny": 32, "nx": 64}, vector_width=1, block_j=block,
                   stream_k=1, local_u="none", workgroup=[32, 4, 1])
    assert _load_instructions(stats, params_from({}, GPU)) == pytest.approx(loads)


@pytest.mark.parametrize("width", [2, 4, 8])
def test_a_coefficient_read_under_a_vector_width_is_one_load_an_instruction(width):
    """star3d_r4's ``c[s] * (ring)``: c is a scalar array read at an index free of the vector's
    lanes, one load broadcast to a ``floatN`` instruction (loopy counts it once a lane: a 5 × 5
    convolution's weights, 25 a point, came to twice its arithmetic at float4). An item of any
    width loads c[0..4] once a plane, as the scalar item does; u's counts stay loopy's."""
    sizes = {"nz": 16, "ny": 16, "nx": 64}
    scalar = _stats("star3d_r4", sizes, vector_width=1, unroll_s="full", stream_k=1,
                    workgroup=[32, 4, 1], dtype="float32", temporal="none")
    vector = _stats("star3d_r4", sizes, vector_width=width, unroll_s="full", stream_k=1,
                    workgroup=[32, 4, 1], dtype="float32", temporal="none")

    def per_item(stats, array):
        return sum(a.count for a in stats.accesses if a.array == array) / stats.work_items

    assert per_item(scalar, "c") == pytest.approx(5)
    assert per_item(vector, "c") == pytest.approx(5)
    assert per_item(vector, "u") > per_item(scalar, "u")  # the lanes' reads, as loopy counts
