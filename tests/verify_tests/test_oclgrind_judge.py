"""Which oclgrind findings fail a variant: the ones a spec does not declare, except an
uninitialized value reported written at a vector stored lane by lane (oclgrind's mark of the
compiler's undefined start; gradmag3d's `float64` sqrt lanes, and any hand-written kernel that
stores a vector so)."""

from __future__ import annotations

from gencl.verify._oclgrind import judge

MESSAGE = "Uninitialized value written to global memory address 0x…"
LANE = ("Kernel: gradmag3d | Entity: Global(0,0,0) Local(0,0,0) Group(0,0,0) | store <2 x double> "
        "poison, <2 x double> addrspace(1)* %arrayidx395, align 16, !dbg !166 | At line 44 "
        "(column 174) of input.cl: | g[(nx + 32) / 2 * (1 + lid(1)) + 8 + lid(0)].s1 = sqrt(d)")
WHOLE = ("Kernel: k | Entity: Global(0,0,0) Local(0,0,0) Group(0,0,0) | store float %x | At line "
         "9 (column 3) of input.cl: | out[lid(0)] = acc;")


def _finding(detail: str, kind: str = "uninitialized") -> dict:
    return {"kind": kind, "message": MESSAGE, "count": 1000, "detail": detail}


def test_an_uninitialized_value_at_a_lane_store_is_exempt_and_says_why():
    failures, exempted = judge([_finding(LANE)], frozenset())
    assert failures == [] and len(exempted) == 1
    assert "a vector stored lane by lane" in exempted[0]


def test_an_uninitialized_value_anywhere_else_fails_unless_the_spec_declares_it():
    assert judge([_finding(WHOLE)], frozenset()) == (
        [f"oclgrind uninitialized: {MESSAGE} (×1000) {WHOLE}"], [])
    assert judge([_finding(WHOLE)], frozenset({"uninitialized"}))[0] == []
    # a race at a lane store is no shadow of an undefined start
    assert judge([_finding(LANE, "race")], frozenset())[0] != []
