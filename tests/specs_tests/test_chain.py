"""Every chain itype × ILP variant matches numpy on PoCL; the PTX rules ask for what they should."""

from __future__ import annotations

import numpy as np
import pytest

from gencl.generate import lower
from gencl.measure import OpenCLEngine, verify_variant
from gencl.spec import load_spec

ITYPES = ("sp_addmul", "sp_madd", "int_madd", "dp_madd", "native_sf", "sf")


@pytest.fixture(scope="module")
def spec():
    return load_spec("chain")


@pytest.fixture(scope="module")
def engine():
    return OpenCLEngine()


@pytest.mark.parametrize("itype", ITYPES)
def test_chain_matches_numpy(spec, engine, itype):
    for ilp in (1, 2, 4):
        point = spec.complete({"itype": itype, "ilp": ilp, "workgroup": 16, "chain": 256})
        variant = lower(spec, point)
        built = engine.build(variant)
        sizes = {"n": 35, "reps": 2, "local_pad_bytes": 64}  # a partial work-group too
        values = spec.inputs(point, sizes, np.random.default_rng(ilp))
        assert verify_variant(engine, spec, built, sizes, values) <= 1.0, (itype, ilp)


def test_wrong_coefficient_is_caught(spec, engine):
    point = spec.complete({"itype": "int_madd", "ilp": 2, "workgroup": 16, "chain": 256})
    built = engine.build(lower(spec, point))
    sizes = {"n": 16, "reps": 1, "local_pad_bytes": 64}
    values = spec.inputs(point, sizes, np.random.default_rng(0))
    bad = dict(values, b=values["b"] + np.uint32(1))
    bound = engine.bind(built, sizes, bad)
    engine.run_once(built, bound)
    got = engine.read_outputs(bound)["dst"].reshape(2, 16)
    bound.release()
    assert not np.array_equal(got, spec.reference(values, point, sizes)["dst"])


def test_pad_argument_reaches_the_kernel(spec):
    variant = lower(spec, spec.complete({"itype": "sp_madd", "workgroup": 16}))
    assert "__local" in variant.source and "gencl_local_pad" in variant.source
    assert [a.name for a in variant.args if a.kind == "local"] == ["gencl_local_pad"]


def test_native_cos_is_emitted(spec):
    variant = lower(spec, spec.complete({"itype": "native_sf", "workgroup": 16}))
    assert "native_cos(" in variant.source


def test_ptx_rules_scale_with_unroll_and_ilp(spec):
    rules = spec.ptx_rules(spec.complete({"itype": "sp_madd", "ilp": 4, "unroll": 16}))
    assert list(rules.values()) == [64]
    rules = spec.ptx_rules(spec.complete({"itype": "sp_addmul", "ilp": 2, "unroll": "none"}))
    assert sorted(rules.values()) == [2, 2]


def test_sizes_follow_eq2(spec, engine):
    point = spec.complete({"itype": "sp_madd", "conc_wg": 4, "workgroup": 64})
    sizes = spec.sizes(point, engine.info, False)
    pad = sizes["local_pad_bytes"]
    # eq. 2 less a little slack for the kernel's own local memory: still caps concurrency at 4
    assert engine.info.local_mem_bytes // 5 < pad <= engine.info.local_mem_bytes // 4
    assert sizes["n"] == engine.info.compute_units * 4 * 64


def test_chains_the_compiler_cannot_shorten(spec):
    """NVIDIA's PTX showed both shortcuts: add+mul fused into fma, affine int steps composed."""
    from gencl.generate import lower

    addmul = lower(spec, spec.complete({"itype": "sp_addmul"})).source
    assert "#pragma OPENCL FP_CONTRACT OFF" in addmul
    madd = lower(spec, spec.complete({"itype": "sp_madd"})).source
    assert "FP_CONTRACT" not in madd
    integer = lower(spec, spec.complete({"itype": "int_madd"})).source
    assert "x[0] * x[0] + b" in integer
    assert "uint x[1];" in integer  # 32-bit, not an inferred long


VECTOR_TYPES = {"sp_madd": "float", "sp_addmul": "float", "dp_madd": "double", "int_madd": "uint"}


@pytest.mark.parametrize("itype", sorted(VECTOR_TYPES))
@pytest.mark.parametrize("width", (4, 16))
def test_vector_chain_matches_numpy(spec, engine, itype, width):
    """floatW/doubleW/uintW chains (clpeak's shape) agree with numpy lane by lane."""
    point = spec.complete({"itype": itype, "vector_width": width, "ilp": 2, "workgroup": 16,
                           "chain": 256, "runs": 4})
    variant = lower(spec, point)
    assert f"{VECTOR_TYPES[itype]}{width} x[2];" in variant.source
    built = engine.build(variant)
    sizes = {"n": (2 * 16 + 5) * width, "reps": 2, "local_pad_bytes": 64}  # a partial group
    values = spec.inputs(point, sizes, np.random.default_rng(width))
    assert len(np.unique(values["src"])) > sizes["n"]  # random data, a row per chain
    assert verify_variant(engine, spec, built, sizes, values) <= 1.0, (itype, width)


def test_vector_chains_stay_interleaved(spec):
    """The ILP chains of a vector variant interleave inside the unrolled body (loopy would
    otherwise nest the vector iname around the chain loops and run the chains one by one)."""
    source = lower(spec, spec.complete({"itype": "sp_madd", "vector_width": 8, "ilp": 4,
                                        "unroll": 16})).source
    body = [line.strip() for line in source.splitlines() if "* a + b;" in line]
    assert body[:4] == [f"x[{c}] = x[{c}] * a + b;" for c in range(4)]
    assert len(body) == 64  # 16 unrolled steps × 4 chains, in one loop


def test_sizes_count_lanes_and_runs(spec, engine):
    point = spec.complete({"itype": "sp_madd", "vector_width": 8, "ilp": 4, "workgroup": 16,
                           "runs": 8})
    sizes = spec.sizes(point, engine.info, False)
    assert sizes["n"] == engine.info.compute_units * 8 * 16 * 8
    assert spec.metrics["instructions"](point, sizes) * 8 * 2 == spec.metrics["ops"](point, sizes)
