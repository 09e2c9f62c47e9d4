"""ModelGuidedSampler: an Optuna sampler that searches where the model, corrected by the
measurements so far, predicts the fastest variants.

The model (gencl.model) predicts every point of the space before a single measurement: that is
the prior. Each measured trial then tells how wrong the model is *there*: its residual
r = log(measured / predicted). Residuals are local — the model misjudges a whole family of
variants (a vector width, a boundary form) in the same way — so the residual of an untried point
is estimated from the measured points that share most of its knob values (a kernel over the
number of differing knobs, shrunk towards the mean residual), and the next proposal is the untried
point with the lowest corrected prediction, less a small bonus for points far from anything
measured (an optimistic lower bound, so a family the model underrates still gets looked at).
Profile-derived knob ranges (seed 003 §4) rank points outside them behind the rest.

It is an Optuna ``BaseSampler`` (``sample_relative`` returns a whole point), so storages, the
dashboard and distributed workers work unchanged; points the model could not predict are left to
the base sampler (TPE by default) once every predicted point has been tried.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, TPESampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from gencl.tune._experimental import experimental_class


def params_key(params: Mapping[str, Any]) -> str:
    return json.dumps(dict(sorted(params.items())), sort_keys=True, default=str)


@experimental_class("0.1.0")
class ModelGuidedSampler(BaseSampler):
    """Propose the untried point with the lowest model prediction corrected by nearby residuals.

    Args:
        space: the search space's distributions (all categorical), name → distribution.
        predicted: Optuna params key (``params_key``) → predicted seconds.
        base_sampler: proposes points the model did not predict, once the predicted ones are
            exhausted (default ``TPESampler(seed=seed)``).
        length: knobs of difference at which a measured residual's weight falls by e.
        prior_weight: weight of the mean residual in a point's residual estimate.
        optimism: standard deviations of residual uncertainty subtracted from the log score.
        preferred: axis → values the profile recommends (others rank behind, not excluded).
        seed: for the base sampler.
    """

    def __init__(self, space: Mapping[str, BaseDistribution], predicted: Mapping[str, float], *,
                 base_sampler: BaseSampler | None = None, length: float = 1.0,
                 prior_weight: float = 0.5, optimism: float = 0.5,
                 preferred: Mapping[str, Sequence[Any]] | None = None,
                 seed: int | None = None) -> None:
        self._space = dict(space)
        self._base = base_sampler or TPESampler(seed=seed)
        self._length, self._w0, self._optimism = length, prior_weight, optimism
        self._preferred = {k: set(v) for k, v in (preferred or {}).items()}
        self._keys = sorted(k for k, v in predicted.items() if v > 0)
        self._index = {k: i for i, k in enumerate(self._keys)}
        points = [json.loads(k) for k in self._keys]
        self._log_pred = np.array([math.log(predicted[k]) + self._penalty(pt)
                                   for k, pt in zip(self._keys, points)])
        axes = sorted({a for pt in points for a in pt})
        codes: list[dict[str, int]] = [{} for _ in axes]
        self._codes = np.array(
            [[codes[j].setdefault(json.dumps(pt.get(a), default=str), len(codes[j]))
              for j, a in enumerate(axes)] for pt in points], dtype=np.int32
        ).reshape(len(points), len(axes))

    def _penalty(self, params: Mapping[str, Any]) -> float:
        outside = sum(1 for k, allowed in self._preferred.items()
                      if k in params and params[k] not in allowed)
        return outside * math.log(2.0)

    def scores(self, measured: Mapping[str, float]) -> np.ndarray:
        """Corrected log predictions (lower is better) of every predicted point, given
        params key → measured seconds."""
        idx = [(self._index[k], v) for k, v in measured.items() if k in self._index and v > 0]
        if not idx:
            return self._log_pred.copy()
        rows = np.array([i for i, _ in idx])
        resid = np.log([v for _, v in idx]) - self._log_pred[rows]
        # the model's overall bias, itself shrunk towards "no bias" while few points are known,
        # so that one bad measurement drags its neighbours down more than the rest
        mean = float(resid.sum()) / (len(resid) + 3.0)
        spread = float(resid.std()) if len(resid) > 1 else 0.5
        spread = max(spread, 0.05)
        distance = (self._codes[:, None, :] != self._codes[None, rows, :]).sum(axis=2)
        weight = np.exp(-distance / self._length)
        total = weight.sum(axis=1) + self._w0
        estimate = (weight @ resid + self._w0 * mean) / total
        return self._log_pred + estimate - self._optimism * spread / np.sqrt(total)

    # {{{ BaseSampler

    def reseed_rng(self) -> None:
        self._base.reseed_rng()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial
                                    ) -> dict[str, BaseDistribution]:
        return dict(self._space)

    def sample_relative(self, study: Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        if not search_space or not self._keys:
            return {}
        trials = study._get_trials(deepcopy=False, use_cache=True)
        others = [t for t in trials if t.number != trial.number and t.params
                  and t.state != TrialState.WAITING]
        tried = {params_key(t.params) for t in others}
        measured = {params_key(t.params): float(t.value) for t in others
                    if t.state == TrialState.COMPLETE and t.value is not None}
        open_ = np.array([k not in tried for k in self._keys])
        if not open_.any():
            return {}  # every predicted point tried: the base sampler takes over
        scores = np.where(open_, self.scores(measured), np.inf)
        return json.loads(self._keys[int(np.argmin(scores))])

    def sample_independent(self, study: Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        return self._base.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        self._base.before_trial(study, trial)

    def after_trial(self, study: Study, trial: FrozenTrial, state: TrialState,
                    values: Sequence[float] | None) -> None:
        self._base.after_trial(study, trial, state, values)

    # }}}


def knob_preferences(spec: Any, params: Any) -> dict[str, list[Any]]:
    """Knob ranges from the profile (seed 003 §4), as encoded Optuna choices.

    - local-memory caching only where global accesses are not cached (no measured cache);
    - branch elimination (the padded boundary) where work items diverge in groups narrower than
      a sub-group would hide (the measured divergence width is below the sub-group size);
    - vectorization is left to the model: the access-granularity term already prices it.
    """
    prefs: dict[str, list[Any]] = {}
    for name, knob in spec.knobs.items():
        if knob.transform in ("local_tile", "local_memory", "cache_in_local") and params.cached:
            prefs[name] = [v for v in knob.values if v in ("none", False, 0)]
    if "boundary" in spec.params and params.divergence_width < params.subgroup_size:
        prefs["boundary"] = [v for v in spec.params["boundary"] if v != "branch"]
    return {k: v for k, v in prefs.items() if v}


