"""PointGridSampler: every valid point of the space once, in a seeded random order.

Optuna's ``GridSampler`` walks the cartesian product of the axes. A spec's constraints leave
few of those combinations valid (Jacobi's temporal axes: 12 valid points of 552 in one
work-group's slice), and each invalid one still costs a pruned trial, while the grid's own
bookkeeping grows with every trial the study holds (quadratic over the walk: 96 s of
bookkeeping for those 12 points on a 2-core machine). This sampler walks the points the space
itself yields (``SearchSpace.points``: the constraints applied on the device), so every trial
is a point that can be measured.

Like the guided sampler it returns a whole point from ``sample_relative``, so storages and
workers work unchanged. Workers sharing a study skip what any trial of it holds; two that
propose at the same instant may pick one point twice, which the objective answers from the
earlier trial (``repeat_of``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import RandomSampler
from optuna.study import Study
from optuna.trial import FrozenTrial

from gencl.tune._sampler import WholePointSampler, params_key


class PointGridSampler(WholePointSampler):
    """Propose, at random, a point of *points* (Optuna params) that no trial holds yet.

    Args:
        space: the search space's distributions, name → distribution.
        points: every valid point's Optuna params.
        seed: the order in which the points are taken.
    """

    def __init__(self, space: Mapping[str, BaseDistribution],
                 points: Sequence[Mapping[str, Any]], *, seed: int | None = None) -> None:
        super().__init__(space, RandomSampler(seed=seed))  # an axis the points do not name
        self._keys = sorted({params_key(p) for p in points})
        self._order = np.random.default_rng(seed).permutation(len(self._keys))

    def _tried(self, study: Study, number: int | None = None) -> set[str]:
        return {params_key(t.params) for t in self.proposed(study, number)}

    def is_exhausted(self, study: Study) -> bool:
        """Every point held by a trial of *study*."""
        return not set(self._keys) - self._tried(study)

    def sample_relative(self, study: Study, trial: FrozenTrial,
                        search_space: dict[str, BaseDistribution]) -> dict[str, Any]:
        if not search_space or not self._keys:
            return {}
        tried = self._tried(study, trial.number)
        for i in self._order:
            if self._keys[i] not in tried:
                return json.loads(self._keys[i])
        return json.loads(self._keys[self._order[0]])  # exhausted: a repeat, answered as one
