"""ModelGuidedSampler: an Optuna sampler that searches where the model, corrected by the
measurements so far, predicts the fastest variants.

The model (gencl.model) predicts the points of the space before they are measured: that is the
prior. Predicting is slow (loopy counts each variant), so a sampler given a ``predictor`` counts
them on demand (gencl.tune._lazy): a first batch covering every knob value before trial 1, one
more batch before each later trial, the points the predictions so far rank fastest first.
Each measured trial says how wrong the model is *there*; gencl.model._calibrate
learns from those residuals one correction per knob value and per pair of knob values, and the
next proposal is the untried point with the lowest corrected prediction, less a small bonus for
knob values and pairs rarely measured (an optimistic lower bound, so a family the model
underrates still gets looked at).
Profile-derived knob ranges (seed 003 §4) rank points outside them behind the rest.
Where the model ranks the best family far down, its corrections may never lift it: after
``PATIENCE`` trials without a new best, every second trial goes to the base sampler (TPE, over
every trial so far) until one improves the best again.

It is an Optuna ``BaseSampler`` (``sample_relative`` returns a whole point), so storages, the
dashboard and distributed workers work unchanged; points the model could not predict are left to
the base sampler (TPE by default) once every predicted point has been tried.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler, TPESampler
from optuna.study import Study
from optuna.trial import FrozenTrial, TrialState

from gencl.model import corrected_log_times
from gencl.tune._lazy import BATCH, FIRST_BATCH, LazyPredictions
from gencl.tune._experimental import experimental_class


#: measured trials without a new best (one ``STALL_GAIN`` faster than the best before) after
#: which the search takes the model's ranking as stuck: every second trial is then the base
#: sampler's (perona2d, H200: the model ranks the three variants within 3 % of the best
#: 105th-111th of 210, and the search walked the others for a median 186 trials; docs/tuning.md,
#: "When the search stalls")
PATIENCE = 5
STALL_GAIN = 0.01


def params_key(params: Mapping[str, Any]) -> str:
    return json.dumps(dict(sorted(params.items())), sort_keys=True, default=str)


class WholePointSampler(BaseSampler):
    """A sampler that proposes whole points (``sample_relative``) of a categorical *space*,
    leaving any parameter it does not propose to *base* (the guided sampler, the point grid)."""

    def __init__(self, space: Mapping[str, BaseDistribution], base: BaseSampler) -> None:
        self._space = dict(space)
        self._base = base

    @staticmethod
    def proposed(study: Study, number: int | None = None) -> list[FrozenTrial]:
        """The trials of *study* that hold a point, but trial *number* (the one proposing)."""
        return [t for t in study._get_trials(deepcopy=False, use_cache=True)
                if t.number != number and t.params and t.state != TrialState.WAITING]

    def reseed_rng(self) -> None:
        self._base.reseed_rng()

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial
                                    ) -> dict[str, BaseDistribution]:
        return dict(self._space)

    def sample_independent(self, study: Study, trial: FrozenTrial, param_name: str,
                           param_distribution: BaseDistribution) -> Any:
        return self._base.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: Study, trial: FrozenTrial) -> None:
        self._base.before_trial(study, trial)

    def after_trial(self, study: Study, trial: FrozenTrial, state: TrialState,
                    values: Sequence[float] | None) -> None:
        self._base.after_trial(study, trial, state, values)


@experimental_class("0.1.0")
class ModelGuidedSampler(WholePointSampler):
    """Propose the untried point with the lowest model prediction corrected by nearby residuals.

    Args:
        space: the search space's distributions (all categorical), name → distribution.
        predicted: Optuna params key (``params_key``) → predicted seconds (all up front).
        candidates, predictor: instead of *predicted*, every point's params key and a function
            keys → predicted seconds (None: cannot count), called a batch at a time
            (*first_batch* before trial 1, *batch* before each later trial).
        base_sampler: proposes points the model did not predict, once the predicted ones are
            exhausted (default ``TPESampler(seed=seed)``).
        ridge: prior weight shrinking each knob value's residual effect towards zero.
        optimism: standard deviations of residual uncertainty subtracted from the log score.
        preferred: axis → values the profile recommends (others rank behind, not excluded).
        seed: for the base sampler and the order of equal predictions.
        patience: trials without a new best after which every second trial is the base
            sampler's (0: never).
    """

    def __init__(self, space: Mapping[str, BaseDistribution],
                 predicted: Mapping[str, float] | None = None, *,
                 base_sampler: BaseSampler | None = None, ridge: float = 1.0,
                 optimism: float = 0.5,
                 preferred: Mapping[str, Sequence[Any]] | None = None,
                 seed: int | None = None,
                 candidates: Sequence[str] | None = None,
                 predictor: Callable[[Sequence[str]], Sequence[float | None]] | None = None,
                 first_batch: int = FIRST_BATCH, batch: int = BATCH,
                 patience: int = PATIENCE) -> None:
        super().__init__(space, base_sampler or TPESampler(seed=seed))
        self._ridge, self._optimism = ridge, optimism
        self._patience = patience
        self._preferred = {k: set(v) for k, v in (preferred or {}).items()}
        if predictor is not None:  # predicted on demand: a bounded cold start
            self.lazy = LazyPredictions(sorted(candidates or ()), predictor,
                                        penalty=self._penalty, first=first_batch, batch=batch,
                                        seed=seed)
        else:
            self.lazy = LazyPredictions.table(predicted or {}, penalty=self._penalty)
        self._keys = self.lazy.keys
        self._index = {k: i for i, k in enumerate(self._keys)}
        # equal predictions (many variants sit on the same roof) are taken in a seeded random
        # order, not in the order of their keys
        self._tiebreak = np.random.default_rng(seed).random(len(self._keys)) * 1e-9
        #: programs counted when trial 1 was proposed (the cold start's cost)
        self.counted_before_first_trial: int | None = None

    def _penalty(self, params: Mapping[str, Any]) -> float:
        outside = sum(1 for k, allowed in self._preferred.items()
                      if k in params and params[k] not in allowed)
        return outside * math.log(2.0)

    def scores(self, measured: Mapping[str, float]) -> np.ndarray:
        """Corrected log predictions (lower is better) of every candidate point (inf where not
        predicted yet), given params key → measured seconds."""
        rows = self.lazy.predicted
        out = np.full(len(self._keys), np.inf)
        if len(rows) == 0:
            return out
        where = {int(r): i for i, r in enumerate(rows)}
        known = [(where[self._index[k]], v) for k, v in measured.items()
                 if k in self._index and self._index[k] in where and v > 0]
        out[rows] = corrected_log_times(
            self.lazy.codes[rows], self.lazy.log_pred[rows], [i for i, _ in known],
            np.log([v for _, v in known]), ridge=self._ridge, optimism=self._optimism)
        return out

    def sample_relative(self, study: Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        if not search_space or not self._keys:
            return {}
        others = self.proposed(study, trial.number)
        tried = {params_key(t.params) for t in others}
        measured = {params_key(t.params): float(t.value) for t in others
                    if t.state == TrialState.COMPLETE and t.value is not None}
        if len(tried) % 2 == 1 and stalled(others, self._patience):
            return {}  # the base sampler's turn: the model's ranking has found nothing better
        open_ = np.array([k not in tried for k in self._keys])
        self.lazy.grow()  # one more batch counted (the first: before trial 1)
        while not (open_ & ~np.isnan(self.lazy.log_pred)).any() and self.lazy.grow():
            pass  # every predicted point tried: count more before handing over
        if self.counted_before_first_trial is None:
            self.counted_before_first_trial = self.lazy.programs_counted
        if not (open_ & ~np.isnan(self.lazy.log_pred)).any():
            return {}  # every predicted point tried: the base sampler takes over
        scores = np.where(open_, self.scores(measured) + self._tiebreak, np.inf)
        return json.loads(self._keys[int(np.argmin(scores))])


def stalled(trials: Sequence[FrozenTrial], patience: int, gain: float = STALL_GAIN) -> bool:
    """Whether the last *patience* complete *trials* (in trial order) found no time *gain*
    faster than the best before them (never, for *patience* 0)."""
    if patience <= 0:
        return False
    best, since = math.inf, 0
    for t in sorted(trials, key=lambda t: t.number):
        if t.state != TrialState.COMPLETE or t.value is None:
            continue
        if t.value < best * (1 - gain):
            best, since = t.value, 0
        else:
            since += 1
    return since >= patience


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


