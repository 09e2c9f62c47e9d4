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
