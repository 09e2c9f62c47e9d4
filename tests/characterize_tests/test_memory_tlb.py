"""TLB analysis on synthetic page-stride walks: a known two-level TLB and page size are recovered
even when the data caches step (L1 → L2) under the same walks."""

from __future__ import annotations

import numpy as np
import pytest

from gencl.characterize import get_analysis
from gencl.characterize.latency import miss_ratio
from gencl.characterize.tlb import page_size
from tests.characterize_tests._records import DEVICE, record

CLOCK = 2e9
KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
STRIDES = (128, 4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, MIB, 2 * MIB, 4 * MIB, 8 * MIB, 32 * MIB)
PAGES = sorted({1, *[2 ** k for k in range(1, 15)], *[3 * 2 ** k for k in range(0, 13)]})


def tlb_walks(page, entries, penalties, *, budget=16 * GIB, l1_lines=2000, noise=0.005,
              seed=0, strides=STRIDES):
    """CPMR of a random walk over N slots `stride` apart: an L1 → L2 data-cache cliff at
    *l1_lines* lines (the same for every stride) plus one eq. 6 step per TLB level."""
    rng = np.random.default_rng(seed)
    recs = []
    for stride in strides:
        for n in PAGES:
            if n * stride > budget:
                continue
            touched = n if stride >= page else max(1.0, n * stride / page)
            cpmr = 40 + 250 * float(miss_ratio(np.array([n]), l1_lines, 8.0)[0])
            for e, p in zip(entries, penalties):
                cpmr += p * max(0.0, 1 - e / touched)
            cpmr *= rng.normal(1, noise)
            steps = 16384
            recs.append(record({"stride": stride, "pages": n}, {"K": steps},
                               cpmr * steps / CLOCK, vid=f"tlb-{stride}-{n}"))
    return recs


@pytest.mark.parametrize("page,entries,penalties,strides", [
    (2 * MIB, (16, 2048), (60.0, 400.0), STRIDES),  # a GPU: 2 MiB pages, 32 MiB and 4 GiB reach
    (64 * KIB, (32, 1024), (80.0, 300.0), STRIDES[:7]),  # smaller pages, other counts
])
def test_page_size_and_levels_are_recovered(page, entries, penalties, strides):
    recs = tlb_walks(page, entries, penalties, strides=strides)
    result = get_analysis("tlb_chase")(recs, DEVICE, CLOCK)
    chars = {c.name: c.value for c in result.characteristics}
    assert chars["tlb_page_bytes"] == page
    levels = chars["tlb_levels"]
    assert len(levels) == 2
    for level, e, p in zip(levels, entries, penalties):
        assert level["entries"] == pytest.approx(e, rel=0.2)
        assert level["reach_bytes"] == pytest.approx(e * page, rel=0.2)
        assert level["miss_penalty_cycles"] == pytest.approx(p, rel=0.25)
    assert "tlb_chase_cpmr_vs_footprint" in result.series


def test_no_tlb_step_is_said_not_invented():
    recs = tlb_walks(2 * MIB, (10 ** 9,), (0.0,), budget=64 * MIB)
    result = get_analysis("tlb_chase")(recs, DEVICE, CLOCK)
    names = {c.name for c in result.characteristics}
    assert "tlb_page_bytes" not in names and "tlb_levels" not in names
    assert any("no TLB step" in n for n in result.notes)


def test_page_size_brackets():
    assert page_size({4096: 32e6, 65536: 33e6, 2 << 20: 32e6, 4 << 20: 64e6})[0] == 2 << 20
    assert page_size({})[0] is None
