"""`gencl profile --only A --only B --out <existing>` adds benchmarks to a profile folder and
rewrites summary.json keeping what was measured before."""

from __future__ import annotations

import json

from gencl.cli import _load_plugins, build_parser
from gencl.profile import load_profile, run_profile


def test_repeated_only_accumulates():
    _load_plugins()
    args = build_parser().parse_args(
        ["profile", "--only", "workgroup_dispatch", "--only", "cache_requests", "memory"])
    assert args.only == ["workgroup_dispatch", "cache_requests", "memory"]


def test_second_run_adds_and_keeps(tmp_path):
    run_profile(tmp_path, quick=True, only=["workgroup_dispatch"], progress=False)
    before = json.loads((tmp_path / "summary.json").read_text())
    # >= 0, not > 0: on a CPU whose launches are flat the slope through noisy points can come
    # out negative and is clipped to 0 (workgroup_dispatch.dispatch_cost); this test is about
    # keeping what was measured, whatever it measured.
    assert before["group_dispatch_s"] >= 0 and before["cache_requests_per_s"] is None
    log: list[str] = []
    run_profile(tmp_path, quick=True, only=["cache_requests"], progress=False, log=log.append)
    after = json.loads((tmp_path / "summary.json").read_text())
    assert after["group_dispatch_s"] == before["group_dispatch_s"]
    assert after["group_dispatch_cycles_per_cu"] == before["group_dispatch_cycles_per_cu"]
    assert after["cache_requests_per_s"] > 0 and after["cache_requests_per_cycle_per_cu"] > 0
    assert not any(line.startswith("workgroup_dispatch") for line in log)  # not re-run
    assert set(load_profile(tmp_path).benchmarks) == {"workgroup_dispatch", "cache_requests"}
