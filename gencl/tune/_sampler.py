"""ModelGuidedSampler: an Optuna sampler that spends the first evaluations where the model points.

It wraps a base sampler (TPE by default) the way Optuna's ``PartialFixedSampler`` does, so the rest
of Optuna (storages, pruning of excluded points, the dashboard, distributed workers) works
unchanged:

1. the first ``n_model_first`` trials take the best-predicted points not yet in the study
   (``sample_relative`` returns a whole point);
2. after that the base sampler proposes a point; the sampler scores it and its one-axis
   neighbours with the model and takes the best-predicted one not yet tried (the base sampler
   explores, the model refines);
3. points predicted hopeless (slower than ``hopeless_factor`` × the best prediction) are never
   proposed while others remain;
4. profile-derived knob ranges (seed 003 §4) rank points outside them behind the rest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution
from optuna.samplers import BaseSampler, TPESampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from gencl.tune._experimental import experimental_class


def params_key(params: Mapping[str, Any]) -> str:
    return json.dumps(dict(sorted(params.items())), sort_keys=True, default=str)


@experimental_class("0.1.0")
class ModelGuidedSampler(BaseSampler):
    """Propose points in the order of a model's predicted time, refined by a base sampler.

    Args:
        space: the search space's distributions (all categorical), name → distribution.
        predicted: Optuna params key (``params_key``) → predicted seconds; points without a
            prediction are treated as unknown (after every predicted point, before hopeless ones).
        base_sampler: explores after the model phase (default ``TPESampler(seed=seed)``).
        n_model_first: trials proposed purely from the ranking.
        hopeless_factor: predicted slower than this × the best prediction → never proposed while
            anything else remains.
        preferred: axis → values the profile recommends (others rank behind, not excluded).
        seed: for the base sampler.
    """

    def __init__(self, space: Mapping[str, BaseDistribution], predicted: Mapping[str, float], *,
                 base_sampler: BaseSampler | None = None, n_model_first: int = 5,
                 hopeless_factor: float = 3.0, preferred: Mapping[str, Sequence[Any]] | None = None,
                 seed: int | None = None) -> None:
        self._space = dict(space)
        self._base = base_sampler or TPESampler(seed=seed)
        self._n_first = n_model_first
        self._preferred = {k: set(v) for k, v in (preferred or {}).items()}
        best = min(predicted.values()) if predicted else 0.0
        self._hopeless = {k for k, v in predicted.items() if best and v > hopeless_factor * best}
        self._score = {k: self._rank_time(json.loads(k), v) for k, v in predicted.items()}
        self._ranking = sorted(self._score, key=lambda k: self._score[k])
        self._unknown = max(self._score.values()) if self._score else 0.0

    def _rank_time(self, params: Mapping[str, Any], t: float) -> float:
        outside = sum(1 for k, allowed in self._preferred.items()
                      if k in params and params[k] not in allowed)
        return t * (2.0 ** outside)

    def score(self, params: Mapping[str, Any]) -> float:
        """Ranking value of a point (predicted time, penalized outside the preferred ranges)."""
        return self._score.get(params_key(params), self._unknown)

    # {{{ BaseSampler

    def reseed_rng(self) -> None:
        self._base.reseed_rng()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial
                                    ) -> dict[str, BaseDistribution]:
        return dict(self._space)

    def sample_relative(self, study: Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        if not search_space:
            return {}
        trials = study._get_trials(deepcopy=False, use_cache=True)
        tried = {params_key(t.params) for t in trials
                 if t.number != trial.number and t.state != TrialState.WAITING and t.params}
        fresh = sum(1 for t in trials if t.number != trial.number and
                    t.state in (TrialState.COMPLETE, TrialState.FAIL, TrialState.RUNNING))
        if fresh < self._n_first:
            for key in self._ranking:
                if key not in tried and key not in self._hopeless:
                    return json.loads(key)
            return {}
        proposal = {name: self._base.sample_independent(study, trial, name, dist)
                    for name, dist in search_space.items()}
        candidates = [proposal]
        for name, dist in search_space.items():
            if isinstance(dist, CategoricalDistribution):
                candidates += [{**proposal, name: c} for c in dist.choices
                               if c != proposal[name]]
        keyed = [(params_key(c), c) for c in candidates]
        open_ = [(k, c) for k, c in keyed if k not in tried and k not in self._hopeless]
        if not open_:
            open_ = [(k, c) for k, c in keyed if k not in tried] or keyed
        return min(open_, key=lambda kc: self._score.get(kc[0], self._unknown))[1]

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


