"""The engine's statistics on known samples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gencl.measure import launches_per_sample, summarize


def test_summary_of_known_samples():
    s = summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s.median == 3.0
    assert s.mean == 22.0
    assert s.std == pytest.approx(np.std([1, 2, 3, 4, 100], ddof=1))
    assert s.ci95 == pytest.approx(1.96 * s.std)
    assert s.relative_spread == pytest.approx(1.96 * s.std / 3.0)


def test_the_medians_interval_narrows_with_more_samples_where_one_samples_does_not():
    # the first walk samples of the H200 profile: one early sample 1.5 % below the rest
    five = summarize([45.05, 45.66, 45.78, 45.74, 45.76])
    assert five.median_relative_ci95 == pytest.approx(
        1.96 * math.sqrt(math.pi / 2) * five.std / math.sqrt(5) / 45.74)
    twenty = summarize([45.05] + [45.66, 45.78, 45.74, 45.76] * 5)
    assert twenty.median_relative_ci95 < 0.005 < twenty.relative_spread
    assert summarize([1.0]).median_relative_ci95 == math.inf


def test_single_sample_has_zero_spread():
    s = summarize([5e-6])
    assert s.std == 0.0 and s.ci95 == 0.0 and s.median == 5e-6


def test_empty_samples_rejected():
    with pytest.raises(ValueError):
        summarize([])


@pytest.mark.parametrize("probe,minimum,expected", [
    (1e-6, 1e-4, 100), (3e-5, 1e-4, 4), (1e-3, 1e-4, 1), (0.0, 1e-4, 1024)])
def test_launches_per_sample_keeps_samples_above_timer_resolution(probe, minimum, expected):
    n = launches_per_sample(probe, min_sample_s=minimum)
    assert n == expected
    if probe > 0:
        assert n * probe >= minimum * (1 - 1e-9) or n == 1 and math.isclose(n, 1)
