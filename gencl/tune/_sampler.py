"""ModelGuidedSampler: an Optuna sampler that searches where the model, corrected by the
measurements so far, predicts the fastest variants.

The model (gencl.model) predicts every point of the space before a single measurement: that is
the prior. Each measured trial says how wrong the model is *there*; gencl.model._calibrate
learns from those residuals one correction per knob value, and the next proposal is the untried
point with the lowest corrected prediction, less a small bonus for knob values rarely measured
(an optimistic lower bound, so a family the model underrates still gets looked at).
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

from gencl.model import corrected_log_times, encode_points
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
        ridge: prior weight shrinking each knob value's residual effect towards zero.
        optimism: standard deviations of residual uncertainty subtracted from the log score.
        preferred: axis → values the profile recommends (others rank behind, not excluded).
        seed: for the base sampler and the order of equal predictions.
    """

    def __init__(self, space: Mapping[str, BaseDistribution], predicted: Mapping[str, float], *,
                 base_sampler: BaseSampler | None = None, ridge: float = 1.0,
                 optimism: float = 0.5,
                 preferred: Mapping[str, Sequence[Any]] | None = None,
                 seed: int | None = None) -> None:
        self._space = dict(space)
        self._base = base_sampler or TPESampler(seed=seed)
        self._ridge, self._optimism = ridge, optimism
        self._preferred = {k: set(v) for k, v in (preferred or {}).items()}
        self._keys = sorted(k for k, v in predicted.items() if v > 0)
        self._index = {k: i for i, k in enumerate(self._keys)}
        points = [json.loads(k) for k in self._keys]
        self._log_pred = np.array([math.log(predicted[k]) + self._penalty(pt)
                                   for k, pt in zip(self._keys, points)])
        self._codes = encode_points(points)
        # equal predictions (many variants sit on the same roof) are taken in a seeded random
        # order, not in the order of their keys
        self._tiebreak = np.random.default_rng(seed).random(len(self._keys)) * 1e-9

    def _penalty(self, params: Mapping[str, Any]) -> float:
        outside = sum(1 for k, allowed in self._preferred.items()
                      if k in params and params[k] not in allowed)
        return outside * math.log(2.0)

    def scores(self, measured: Mapping[str, float]) -> np.ndarray:
        """Corrected log predictions (lower is better) of every predicted point, given
        params key → measured seconds."""
        known = [(self._index[k], v) for k, v in measured.items() if k in self._index and v > 0]
        return corrected_log_times(
            self._codes, self._log_pred, [i for i, _ in known], np.log([v for _, v in known]),
            ridge=self._ridge, optimism=self._optimism)

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
        scores = np.where(open_, self.scores(measured) + self._tiebreak, np.inf)
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
    - branch elimination (the values the spec's ``divergent`` hook does not name) where work
      items diverge in groups narrower than a sub-group would hide (the measured divergence
      width is below the sub-group size);
    - vectorization is left to the model: the access-granularity term already prices it.
    """
    prefs: dict[str, list[Any]] = {}
    for name, knob in spec.knobs.items():
        if knob.transform in ("local_tile", "local_memory", "cache_in_local") and params.cached:
            prefs[name] = [v for v in knob.values if v in ("none", False, 0)]
    if params.divergence_width < params.subgroup_size:
        for name, divergent in spec.hooks.divergent.items():
            prefs[name] = [v for v in spec.axes.get(name, ()) if v not in divergent]
    return {k: v for k, v in prefs.items() if v}


