"""Wide stores and wide loads: a float8 or float16 store's line requests beyond one a line at the
rate the store_requests benchmark measured, joined by its exponent; a wide load's chunk
instructions counted as one request a line where that figure is measured; against closed forms
on a streaming kernel."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import loopy as lp
import numpy as np
import pytest

from gencl.generate.knobs.vector import vectorize
from gencl.model import compute_stats, params_from, predict
from gencl.model._predict import cache_requests, overlap, wide_store_requests

ROOT = Path(__file__).resolve().parents[2]
N = 1 << 20  # floats an array


def _stream(width: int, outputs: int = 1):
    """o_k[i] = a[i] · (k + 1), floatW an item, groups of 256 (the benchmark's kernel)."""
    outs = [f"o{k}" for k in range(outputs)]
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", "\n".join(f"{o}[i] = a[i] * {k + 1}.0f" for k, o in enumerate(outs)),
        [lp.GlobalArg("a", np.float32, shape=("n",)),
         *(lp.GlobalArg(o, np.float32, shape=("n",), is_output=True) for o in outs),
         lp.ValueArg("n", np.int32)],
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    knl = vectorize(knl, "i", width, arrays=["a", *outs], size="n")
    knl = lp.split_iname(knl, "i_outer" if width > 1 else "i", 256, inner_tag="l.0",
                         outer_tag="g.0")
    return compute_stats(knl, {"n": N}, subgroup_size=32)


def _h200():
    summary = json.loads((ROOT / "bench_results/nvidia-h200/summary.json").read_text())
    device = json.loads((ROOT / "bench_results/nvidia-h200/profile.json").read_text())["device"]
    return params_from(summary, device)


def _site(stats, direction):
    (site,) = [a for a in stats.accesses if a.direction == direction and a.array in ("a", "o0")]
    return site


@pytest.mark.parametrize("width, excess_per_line", [(1, 0), (4, 0), (8, 1), (16, 3)])
def test_a_wide_store_requests_a_line_a_chunk(width, excess_per_line):
    p = _h200()
    stats = _stream(width)
    store, load = _site(stats, "store"), _site(stats, "load")
    lines = N * 4 / 128
    assert wide_store_requests(store, p) == pytest.approx(lines * excess_per_line)
    assert wide_store_requests(load, p) == 0.0
    # the store's requests as the cache counts them: a line a chunk instruction's lanes span;
    # the load's: a line a vector, whatever its width
    assert cache_requests(store, stats, p) == pytest.approx(lines * (1 + excess_per_line))
    assert cache_requests(load, stats, p) == pytest.approx(lines)


def test_the_excess_is_priced_at_the_measured_rate_and_joined_by_its_exponent():
    p = _h200()
    assert 1e10 < p.store_requests_per_s < 2e11  # the committed H200 figure: 54.5·10⁹/s
    assert 1.0 <= p.store_request_overlap_exponent < 4.0
    stats = _stream(16, outputs=2)
    excess = 2 * N * 4 / 128 * 3
    with_term = predict(stats, p)
    nominal = dataclasses.replace(p, store_requests_per_s=0.0)
    without = predict(stats, nominal)
    # the excess leaves the cache-request term's count and is priced on its own: a line a
    # vector for the load, a line for each store, where without the figure every chunk
    # instruction's lines count (4 a line at float16: the load's merge goes with the term)
    lines = N * 4 / 128
    assert with_term.counts["first_level_requests"] == pytest.approx(3 * lines)
    assert without.counts["first_level_requests"] == pytest.approx(12 * lines)
    t_store = excess / p.store_requests_per_s
    assert with_term.terms["cache_requests"] - t_store == pytest.approx(
        without.terms["cache_requests"] - 9 * lines / p.cache_requests_per_s)
    # a float4 stream has no excess: the same prediction with or without the figure
    narrow = _stream(4, outputs=2)
    assert predict(narrow, p).time_s == pytest.approx(predict(narrow, nominal).time_s)
    # the term slows the wide stream: at least its p-norm share beside the rest
    assert with_term.time_s > without.time_s
    assert with_term.time_s >= overlap((t_store,), p.store_request_overlap_exponent)


def test_a_profile_without_the_benchmark_names_the_figure_nominal():
    summary = json.loads((ROOT / "bench_results/nvidia-h200/summary.json").read_text())
    device = json.loads((ROOT / "bench_results/nvidia-h200/profile.json").read_text())["device"]
    for key in ("store_requests_per_s", "store_request_overlap_exponent"):
        summary.pop(key)
    p = params_from(summary, device)
    assert p.store_requests_per_s == 0.0
    assert p.store_request_overlap_exponent == p.overlap_scalar_exponent
    assert p.sources["store_requests_per_s"] == "nominal"
