"""Each knob's emitted source shows what it promises, and every variant matches numpy on PoCL."""

from __future__ import annotations

import re

import pytest

from gencl.generate import lower
from gencl.measure import measure_variant
from tests.generate_tests._programs import AXPY, BLUR, CHAINS


def _body(source: str) -> str:
    return source[source.index("__kernel"):]


@pytest.mark.parametrize("width", [1, 2, 4, 8, 16])
def test_vector_width_emits_vector_types_and_is_right(engine, width):
    v = lower(AXPY, {"vector_width": width, "workgroup": 32})
    body = _body(v.source)
    if width == 1:
        assert "float2" not in body and "float4" not in body
    else:
        assert f"__global float{width} const *__restrict__ x" in body
        assert re.search(r"y\[[^\]]+\] = a \* x\[[^\]]+\] \+ y0\[", body), body  # whole vectors
        assert ".s0" not in body  # no per-lane fallback
    m = measure_variant(engine, AXPY, v, {"n": 16 * 64 * 3})
    assert m.status == "ok", m.reason


def test_vector_width_needs_divisible_size(engine):
    v = lower(AXPY, {"vector_width": 4, "workgroup": 32})
    m = measure_variant(engine, AXPY, v, {"n": 16 * 64 * 3 + 2})
    assert m.status == "invalid_size" and "mod 4" in m.reason


def test_full_unroll_is_straight_line(engine):
    v = lower(CHAINS, {"ilp": 1, "unroll": "full", "workgroup": 32})
    body = _body(v.source)
    assert "for (" not in body
    assert body.count("* a + b") == 64
    assert measure_variant(engine, CHAINS, v, {"n": 100}).status == "ok"


def test_unroll_factor_and_hint(engine):
    factor = _body(lower(CHAINS, {"ilp": 1, "unroll": 8, "workgroup": 32}).source)
    assert factor.count("* a + b") == 8 and "for (" in factor
    hint = _body(lower(CHAINS, {"ilp": 1, "unroll": "hint", "workgroup": 32}).source)
    assert "opencl_unroll_hint" in hint
    for unroll in (8, "hint", "none"):
        v = lower(CHAINS, {"ilp": 2, "unroll": unroll, "workgroup": 32})
        assert measure_variant(engine, CHAINS, v, {"n": 100}).status == "ok"


@pytest.mark.parametrize("chains", [1, 2, 4])
def test_ilp_interleaves_independent_chains(engine, chains):
    v = lower(CHAINS, {"ilp": chains, "unroll": "none", "workgroup": 32})
    body = _body(v.source)
    loop = body[body.index("for (int k"):]
    updates = re.findall(r"x\[(\d)\] = x\[\1\] \* a \+ b", loop)
    # one update per chain inside the k loop, each chain reading only itself
    assert sorted(set(updates)) == [str(c) for c in range(chains)]
    m = measure_variant(engine, CHAINS, v, {"n": 100})
    assert m.status == "ok", m.reason


def test_static_local_memory_is_a_sized_local_array(engine):
    v = lower(BLUR, {"workgroup": 16, "local": "static"})
    body = _body(v.source)
    assert re.search(r"__local float u_local\[\d+\];", body)
    assert "barrier(CLK_LOCAL_MEM_FENCE)" in body
    assert measure_variant(engine, BLUR, v, {"n": 80}).status == "ok"


def test_dynamic_local_memory_is_a_local_argument(engine):
    v = lower(BLUR, {"workgroup": 16, "local": "dynamic"})
    body = _body(v.source)
    assert re.search(r"__local float \*__restrict__ u_local", body)
    assert not re.search(r"__local float u_local\[", body)
    assert "barrier(CLK_LOCAL_MEM_FENCE)" in body
    assert [a.kind for a in v.args if a.name == "u_local"] == ["local"]
    m = measure_variant(engine, BLUR, v, {"n": 80})
    assert m.status == "ok", m.reason


def test_no_local_memory_reads_global(engine):
    body = _body(lower(BLUR, {"workgroup": 16, "local": "none"}).source)
    assert "__local" not in body
