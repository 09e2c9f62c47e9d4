"""The model corrected by measurements: residuals of measured variants carried to the others.

A variant's residual is r = log(measured / predicted). The model misjudges whole families of
variants alike (a vector width, a boundary form: an effect it does not price), so residuals are
shared by the variants that share a knob value: the residual of an unmeasured point is the
model's overall bias (shrunk towards zero while few points are known) plus one learned effect per
knob value it has (for the guided search, a work-group shape's components and size too:
``correction_axes``, and each pair of knob values: ``pair_axes``), fitted to the measured
residuals by ridge regression (Bayesian linear regression with a Gaussian prior on each effect).
The guided sampler ranks by these corrected predictions, less a bonus for values (and pairs)
rarely measured that scales with the model's error where it was measured;
``calibrated_accuracy`` says how good they are on the variants not measured.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def _numbers(value: Any) -> tuple[float, ...] | None:
    """The components of a knob value that is a tuple of numbers (a work-group shape), also as
    the JSON text a search space gives Optuna (``gencl.tune._space``); None for any other."""
    if isinstance(value, str) and value.startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if isinstance(value, list | tuple) and value and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return tuple(value)
    return None


def correction_axes(point: Mapping[str, Any]) -> dict[str, Any]:
    """A point's knob values as the axes residuals are shared along: every knob, and for a
    knob whose value is a tuple of numbers also each component and their product. A 128×1
    work-group's residual then says something of the other one-row groups, the other
    128-wide ones and every 128-item group, not only of 128×1 itself, and the bonus for values
    rarely measured goes to shapes unlike those measured: the guided search's next group shape
    differs from the last in its width, height or size, not merely in its name.

    The search alone uses them (``gencl.tune._lazy``). They do not make the correction predict
    better: ``calibrated_accuracy`` with them, over the committed H200 spaces, read equal or
    lower (box2d9 ρ 0.58 → 0.48, aniso2d 0.66 → 0.62), so a shape's residual is mostly its
    own; their worth is where the search looks next (docs/tuning.md, "The search's
    exploration")."""
    axes = dict(point)
    for name, value in point.items():
        parts = _numbers(value)
        if parts is not None and len(parts) > 1:
            axes.update({f"{name}[{i}]": v for i, v in enumerate(parts)})
            axes[f"{name}[*]"] = float(np.prod(parts))
    return axes


def pair_axes(points: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each point's pairs of knob values, one axis a pair of the knobs that take more than one
    value over *points* (a knob fixed over them would only repeat the other's own axis).

    The model misjudges combinations as well as values: perona2d's and star3d_r4's fastest
    variants are a vector width at one stream length, priced over while the same width at
    other lengths is priced right (docs/tuning.md, "When the search stalls"). One effect per
    value cannot carry that from one to the other; an effect per pair can, and a pair never
    measured keeps its whole prior spread, so the search's bonus for what it has not seen
    reaches combinations too, not only values (docs/tuning.md, "Knob pairs in the search's
    correction")."""
    names = sorted({k for pt in points for k in pt})
    varying = [k for k in names if len({json.dumps(p.get(k), default=str) for p in points}) > 1]
    return [{f"{a}|{b}": [pt.get(a), pt.get(b)]
             for i, a in enumerate(varying) for b in varying[i + 1:]} for pt in points]


def encode_points(points: Sequence[Mapping[str, Any]], *, components: bool = False
                  ) -> np.ndarray:
    """Integer codes (points × axes) of categorical knob values; *components*: along
    ``correction_axes`` and ``pair_axes`` (the guided search's encoding)."""
    expanded = [correction_axes(pt) if components else dict(pt) for pt in points]
    if components:
        expanded = [{**axes, **pairs} for axes, pairs in zip(expanded, pair_axes(points))]
    axes = sorted({a for pt in expanded for a in pt})
    codes: list[dict[str, int]] = [{} for _ in axes]
    return np.array([[codes[j].setdefault(json.dumps(pt.get(a), default=str), len(codes[j]))
                      for j, a in enumerate(axes)] for pt in expanded],
                    dtype=np.int32).reshape(len(points), len(axes))


def one_hot(codes: np.ndarray) -> np.ndarray:
    """One column per (axis, value) of integer-coded points."""
    cols = [(codes[:, j:j + 1] == np.arange(codes[:, j].max() + 1)[None, :])
            for j in range(codes.shape[1])]
    return np.concatenate(cols, axis=1).astype(float) if cols else np.zeros((len(codes), 0))


def corrected_log_times(codes: np.ndarray, log_pred: np.ndarray,
                        rows: Sequence[int] | np.ndarray,
                        log_measured: Sequence[float] | np.ndarray, *, ridge: float = 1.0,
                        optimism: float = 0.0, bias_prior: float = 3.0) -> np.ndarray:
    """log(predicted time) of every point corrected by the residuals of the measured *rows*.

    A family the model misjudges (every variant with vector width 16, say) is corrected as a
    whole from a few of its members. ``optimism`` > 0 subtracts that many standard deviations
    of the estimate (a lower confidence bound: points whose knob values were rarely measured
    look better, so a search looks at them)."""
    if len(rows) == 0:
        return log_pred.copy()
    index = np.asarray(rows)
    resid = np.asarray(log_measured, float) - log_pred[index]
    bias = float(resid.sum()) / (len(resid) + bias_prior)
    features = one_hot(codes)
    known = features[index]
    precision = known.T @ known + ridge * np.eye(features.shape[1])
    effects = np.linalg.solve(precision, known.T @ (resid - bias))
    estimate = bias + features @ effects
    if not optimism:
        return log_pred + estimate
    # the scale of the model's error where it was measured, its bias included: when every
    # measured point is 30 % slower than predicted, a family not measured yet may be off by as
    # much. (The residuals' standard deviation, 0.10 in log where their root-mean-square was
    # 0.31, left star3d_r4's H200 search 10–22 trials in 19 of 20 seeds, most of them in the
    # one family the model overrates.)
    spread = max(float(np.sqrt(np.mean(resid ** 2))), 0.05)
    variance = np.einsum("ij,ji->i", features, np.linalg.solve(precision, features.T))
    return log_pred + estimate - optimism * spread * np.sqrt(variance)


def calibrated_accuracy(points: Sequence[Mapping[str, Any]], predicted: Sequence[float],
                        measured: Sequence[float], *, known: int = 20, seeds: int = 20
                        ) -> dict[str, Any]:
    """Accuracy of the corrected model on held-out variants: for each seed, *known* random
    variants are measured, the rest predicted; medians over seeds."""
    from gencl.model._explain import accuracy

    log_pred = np.log(np.asarray(predicted, float))
    meas = np.asarray(measured, float)
    codes = encode_points(points)
    if len(meas) < known + 3:
        raise ValueError(f"{len(meas)} variants: too few to hold out beyond {known} known")
    rhos, within = [], []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        rows = rng.choice(len(meas), size=known, replace=False)
        rest = np.setdiff1d(np.arange(len(meas)), rows)
        corrected = np.exp(corrected_log_times(codes, log_pred, rows, np.log(meas[rows])))
        acc = accuracy(corrected[rest], meas[rest])
        rhos.append(acc.spearman)
        within.append(acc.within_15pct)
    return {"known_variants": known, "seeds": seeds, "spearman": float(np.median(rhos)),
            "within_15pct": float(np.median(within)),
            "how": "residuals of `known` random measured variants carried to the rest by one "
                   "ridge-fitted effect per knob value (gencl.model._calibrate); accuracy on the "
                   "rest; median over seeds"}
