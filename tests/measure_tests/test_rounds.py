"""Interleaved rounds (``gencl.measure._rounds``) on the real PoCL device: every variant timed
again a turn a round, its samples the rounds', its first measurement kept beside them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gencl.cli import main
from gencl.generate import generate_many
from gencl.measure import SharedInputs, measure_variant
from gencl.measure._rounds import layout_key, retime_in_rounds, retimed, turn_launches
from gencl.spec import load_spec

POINTS = [{"vector_width": w, "workgroup": wg} for w in (1, 4) for wg in ((16, 4), (32, 2))]


@pytest.fixture(scope="module")
def measured(engine):
    """Four Jacobi variants of two layouts (float and float4 arrays), measured as a space
    does, at a size whose launches take tens of µs."""
    spec = load_spec("jacobi")
    fixed = {"dtype": "float32", "boundary": "padded", "temporal": "none", "block_x": 1,
             "block_y": 1, "local": "none"}
    variants = generate_many(spec, [spec.complete({**fixed, **p}) for p in POINTS])
    shared = SharedInputs(spec)
    try:
        first = [measure_variant(engine, spec, v, {"n": 128}, timing=shared) for v in variants]
    finally:
        shared.release()
    assert all(m.ok for m in first), [m.reason for m in first]
    return spec, variants, first


@pytest.mark.parametrize("budget", [None, 1])
def test_every_variant_is_timed_once_a_round(engine, measured, budget):
    """Held together, or a layout at a time where the buffers exceed the budget (1 byte:
    every layout its own batch): one sample a round each, the median theirs."""
    spec, variants, first = measured
    assert len({layout_key(spec, v, m) for v, m in zip(variants, first)}) == 2
    again = retime_in_rounds(engine, spec, list(zip(variants, first)), 3,
                             budget_bytes=budget)
    assert [m.variant_id for m in again] == [m.variant_id for m in first]
    for before, after in zip(first, again):
        assert len(after.samples_s) == 3 and all(s > 0 for s in after.samples_s)
        assert after.median_s == pytest.approx(float(np.median(after.samples_s)))
        assert after.extra["rounds"] == {"rounds": 3, "back_to_back_median_s": before.median_s,
                                         "back_to_back_samples": len(before.samples_s)}
        assert after.launches_per_sample == turn_launches(before) >= before.launches_per_sample
        assert after.metrics["bytes"] == pytest.approx(after.work["bytes"] / after.median_s)
        # what the first measurement found of the variant stays
        assert (after.max_error, after.source_hash, after.binary_hash) == \
            (before.max_error, before.source_hash, before.binary_hash)


def test_a_turn_lasts_at_least_the_turn_time(measured):
    _, _, first = measured
    m = first[0]
    assert turn_launches(m) * m.median_s >= 2e-3 * (1 - 1e-9)
    long = retimed(m, [1.0, 3.0, 2.0], 3, 0.05)
    assert long.median_s == 2.0 and long.wide_spread and long.ci95_s > 0


def test_space_command_times_in_rounds_and_a_rerun_leaves_them(tmp_path):
    """``gencl space --rounds``: every ok record timed in rounds; a rerun (all done) adds no
    round to a record that has them, and the file holds each variant once."""
    out = tmp_path / "jacobi"
    argv = ["space", "jacobi", "--quick", "--size", "n=64", "--knob", "boundary=padded",
            "--knob", "block_x=1", "--knob", "block_y=1", "--knob", "local=none",
            "--knob", "vector_width=4", "--knob", "temporal=none", "--peers", "no",
            "--repeats", "3", "--rounds", "2", "--out", str(out)]
    assert main(argv) == 0
    first = json.loads((out / "space.json").read_text())["results"]
    ok = [r for r in first if r["status"] == "ok"]
    assert ok and all(r["extra"]["rounds"]["rounds"] == 2 and len(r["samples_s"]) == 2
                      for r in ok)
    assert len({r["variant_id"] for r in first}) == len(first)
    assert main(argv[:-4] + ["--rounds", "3", "--out", str(out)]) == 0
    again = json.loads((out / "space.json").read_text())["results"]
    assert [r["samples_s"] for r in again] == [r["samples_s"] for r in first]


def test_a_variant_that_cannot_run_keeps_its_first_measurement(engine, measured):
    """An entry whose inputs cannot be bound (its record says n = 0: Jacobi's inputs divide by
    the grid's spacing) is returned as it was, and the log says why; the others are timed in
    rounds."""
    import dataclasses

    spec, variants, first = measured
    broken = dataclasses.replace(first[0], sizes={"n": 0})
    lines: list[str] = []
    again = retime_in_rounds(engine, spec, [(variants[0], broken), (variants[1], first[1])], 2,
                             log=lines.append)
    assert again[0] == broken and "rounds" in again[1].extra
    assert any(broken.variant_id in line and "first measurement kept" in line
               for line in lines)


def test_a_benchmark_with_rounds_is_timed_in_them_by_gencl_run(tmp_path):
    """``row_streams`` asks for rounds (its shares are ratios between its points): every ok
    record of ``gencl run`` carries them, each variant once in the results file."""
    out = tmp_path / "rows.json"
    assert main(["run", "row_streams", "--all", "--device", "pocl", "--knob", "vector_width=4",
                 "--knob", "arrays=1", "--size", "m=64", "--size", "c=128",
                 "--json", str(out)]) == 0
    results = json.loads(out.read_text())["results"]
    ok = [r for r in results if r["status"] == "ok"]
    # the six heights of float4 groups (the float16 shapes are excluded: rows of 1 KiB)
    assert len(ok) == 6 and len({r["variant_id"] for r in results}) == len(results)
    rounds = load_spec("row_streams").rounds
    for r in ok:
        assert r["extra"]["rounds"]["rounds"] == rounds
        assert len(r["samples_s"]) == rounds
        assert r["median_s"] == pytest.approx(float(np.median(r["samples_s"])))
