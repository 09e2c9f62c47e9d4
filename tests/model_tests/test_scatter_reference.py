"""``scatter_reference``: how far random scatter alone lowers Spearman ρ over a space's measured
times, beside the model's own scatter (``gencl explain --accuracy`` prints and writes it)."""

from __future__ import annotations

import numpy as np
import pytest

from gencl.model._explain import SCATTER_LEVELS, scatter_reference


def _times(rng: np.random.Generator, low: float, high: float, n: int = 200) -> np.ndarray:
    """*n* measured times spread log-uniformly between *low* and *high* seconds, shuffled."""
    return rng.permutation(np.exp(rng.uniform(np.log(low), np.log(high), n)))


def test_spread_and_interquartile_range_of_known_times():
    ref = scatter_reference([2.0, 4.0, 6.0, 8.0, 10.0], [1.0, 2.0, 3.0, 4.0, 5.0])
    assert ref["measured_spread"] == pytest.approx(5.0)
    assert ref["measured_iqr_over_median"] == pytest.approx((4.0 - 2.0) / 3.0)


def test_a_model_off_by_one_scale_has_no_scatter_and_leaves_rho_one():
    """Predictions twice every measured time: the scale is taken out, no scatter is left, and
    no scatter reorders nothing."""
    measured = _times(np.random.default_rng(1), 1e-4, 3e-4)
    ref = scatter_reference(2.0 * measured, measured)
    assert ref["model_log_scatter"] == pytest.approx(0.0, abs=1e-12)
    assert ref["rho_at_model_scatter"] == pytest.approx(1.0)


def test_the_model_scatter_is_the_spread_of_its_log_errors():
    rng = np.random.default_rng(2)
    measured = _times(rng, 1e-4, 1e-3, 4000)
    errors = rng.normal(0.0, 0.08, len(measured))
    ref = scatter_reference(1.3 * measured * np.exp(errors), measured)
    assert ref["model_log_scatter"] == pytest.approx(float(np.std(errors - np.median(errors))))
    assert ref["model_log_scatter"] == pytest.approx(0.08, rel=0.05)


def test_the_same_scatter_costs_a_narrow_space_more_rho_than_a_wide_one():
    """A space whose variants lie within ±2 % of one another is reordered by 5 % scatter; one
    spanning a decade is not. More scatter never ranks better."""
    rng = np.random.default_rng(3)
    narrow, wide = _times(rng, 0.98e-4, 1.02e-4), _times(rng, 1e-4, 1e-3)
    at_narrow = scatter_reference(narrow, narrow)["rho_at_scatter"]
    at_wide = scatter_reference(wide, wide)["rho_at_scatter"]
    assert list(at_wide) == [f"{sd:g}" for sd in SCATTER_LEVELS]
    assert at_wide["0.05"] > 0.99
    assert at_narrow["0.05"] < 0.6
    for levels in (at_narrow, at_wide):
        rhos = list(levels.values())
        assert rhos == sorted(rhos, reverse=True)


def test_seeded_and_the_same_on_every_call():
    rng = np.random.default_rng(4)
    measured = _times(rng, 1e-4, 2e-4)
    predicted = measured * np.exp(rng.normal(0.0, 0.05, len(measured)))
    assert scatter_reference(predicted, measured) == scatter_reference(predicted, measured)
