"""PTX rules on machine-generated PTX samples (see fixtures/make_ptx.py for their origin)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gencl.spec import load_spec
from gencl.verify import check_ptx, rules_for
from gencl.verify.ptx import (
    LOCAL_TRAFFIC, SHARED_DECLARATION, SHARED_POINTER_PARAM, VECTOR_LOAD, VECTOR_STORE,
    check_build_log, is_ptx)

FIXTURES = Path(__file__).parent / "fixtures"


def _ptx(coefficients: str, width: int) -> str:
    return (FIXTURES / f"foldable_chain_coefficients-{coefficients}_vector_width-{width}"
            f"_workgroup-32.ptx").read_text()


@pytest.fixture(scope="module")
def chain():
    return load_spec(str(FIXTURES / "foldable_chain.py"))


@pytest.mark.parametrize("width", [1, 4])
def test_intact_chain_passes(chain, width):
    point = chain.complete({"coefficients": "runtime", "vector_width": width})
    assert check_ptx(_ptx("runtime", width), rules_for(chain, point)) == []


@pytest.mark.parametrize("width", [1, 4])
def test_folded_chain_is_caught(chain, width):
    point = chain.complete({"coefficients": "literal", "vector_width": width})
    problems = check_ptx(_ptx("literal", width), rules_for(chain, point))
    assert len(problems) == 1 and "fma" in problems[0] and "found 0" in problems[0]


def test_scalar_code_fails_vector_rules(chain):
    vector_point = chain.complete({"coefficients": "runtime", "vector_width": 4})
    rules = rules_for(chain, vector_point)
    assert rules[VECTOR_LOAD] == 1 and rules[VECTOR_STORE] == 1
    problems = check_ptx(_ptx("runtime", 1), {VECTOR_LOAD: 1, VECTOR_STORE: 1})
    assert len(problems) == 2


def test_local_memory_rules():
    ptx = (FIXTURES / "missing_barrier_variant-mirror.ptx").read_text()
    assert check_ptx(ptx, {SHARED_POINTER_PARAM: 1}) == []  # __local argument → .ptr .shared
    assert check_ptx(ptx, {SHARED_DECLARATION: 1})  # … and no static declaration
    assert check_ptx(ptx, {LOCAL_TRAFFIC: 0}) == []


def test_bans_comments_and_logs():
    ptx = "// ld.local.f32 in a comment\n.target sm_90\n\tst.local.u32 [%rd1], %r1;\n"
    assert is_ptx(ptx) and not is_ptx(b"\x7fELF")
    assert check_ptx(ptx, {LOCAL_TRAFFIC: 0}) == [f"{LOCAL_TRAFFIC!r}: found 1, none allowed"]
    assert check_ptx(ptx.replace("st.local", "st.global"), {LOCAL_TRAFFIC: 0}) == []
    assert check_ptx(ptx, {"(": 1})[0].startswith("rule '(' is not a regular expression")
    log = "ptxas info    : Used 40 registers, 16 bytes spill stores, 16 bytes spill loads"
    assert check_build_log(log) and not check_build_log(log, spills_allowed=True)
    assert not check_build_log(log.replace("16 bytes", "0 bytes"))


def test_ptx_step_is_skipped_off_nvidia():
    from gencl.verify import verify

    spec = load_spec(str(FIXTURES / "foldable_chain.py"))
    report = verify([spec], device="pocl", ptx=True, sample=1)
    assert report.ptx is False and any("PTX step skipped" in n for n in report.notes)
    assert all(c.ptx is None for c in report.checks) and report.ok


# Real PTX from NVIDIA's OpenCL on the H200 (driver 580.159.04), saved from the first
# `gencl verify --ptx` run: the compiler had shortened these chains, and the rules caught it.
H200 = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("fixture,point,expected", [
    # 16 add + 16 mul expected; NVIDIA fused each mul with the next add into fma.rn.f32
    ("h200_chain_sp_addmul_contracted.ptx",
     {"itype": "sp_addmul", "chain": 1024, "conc_wg": 1, "ilp": 1, "unroll": 16,
      "workgroup": 32, "local_pad": True}, ("add", "mul")),
    # 1 mad.lo.s32 where 128 were meant: a 64-bit accumulator, the affine steps composed
    ("h200_chain_int_madd_64bit.ptx",
     {"itype": "int_madd", "chain": 4096, "conc_wg": 4, "ilp": 4, "unroll": 32,
      "workgroup": 64, "local_pad": True}, ("mad",)),
])
def test_real_h200_shortened_chain_is_caught(fixture, point, expected):
    from gencl.spec import load_spec
    from gencl.verify.ptx import check_ptx, rules_for

    spec = load_spec("chain")
    ptx = (H200 / fixture).read_text(errors="replace")
    problems = check_ptx(ptx, rules_for(spec, spec.complete(point)))
    for instruction in expected:
        assert any(instruction in p for p in problems), problems
