"""Predictions counted on demand: the guided sampler's cold start, bounded whatever the space size.

Counting one variant (loopy's operation and memory counts) takes 0.1–1 s; a space of thousands
took minutes before trial 1. Instead the model predicts a first batch that covers every value of
every axis (so each family of variants has a member priced), and before each later trial one more
batch: the points an additive surrogate of the predictions so far (one effect per knob value,
ridge-fitted to the log predictions, gencl.model._calibrate's encoding) ranks fastest. The number
of programs counted before trial k is ``first + (k − 1) · batch`` at most (``programs_counted``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gencl.model import encode_points
from gencl.model._calibrate import one_hot

#: programs counted before trial 1, and before each later trial
FIRST_BATCH = 32
BATCH = 12


class LazyPredictions:
    """Log predicted times of *keys* (Optuna params keys), counted a batch at a time.

    Args:
        keys: every candidate point (params key, JSON of the Optuna params).
        predict: keys → predicted seconds (None where the model cannot count a point).
        penalty: params → log penalty added to the prediction (profile preferences).
        first, batch: points counted by the first and each later ``grow``.
        seed: order of the first batch beyond the values it must cover.
    """

    def __init__(self, keys: Sequence[str],
                 predict: Callable[[Sequence[str]], Sequence[float | None]] | None, *,
                 penalty: Callable[[Mapping[str, Any]], float] = lambda _: 0.0,
                 first: int = FIRST_BATCH, batch: int = BATCH, seed: int | None = None) -> None:
        self.keys = list(keys)
        self.points = [json.loads(k) for k in self.keys]
        # a work-group shape's components and size are axes too: the search's next shape
        # differs from those measured in what it is, not only in its name; and each pair of
        # knob values, as the model misjudges combinations (a width at one stream length)
        self.codes = encode_points(self.points, components=True)
        self.log_pred = np.full(len(self.keys), np.nan)
        self.counted = np.zeros(len(self.keys), bool)   # asked of the model (may be None)
        self._predict, self._penalty = predict, penalty
        self._first, self._batch = max(1, first), max(1, batch)
        self._rng = np.random.default_rng(seed)
        self.programs_counted = 0
        self.batches = 0

    @classmethod
    def table(cls, predicted: Mapping[str, float],
              penalty: Callable[[Mapping[str, Any]], float] = lambda _: 0.0
              ) -> LazyPredictions:
        """Every point already predicted (a precomputed table: nothing left to count)."""
        keys = sorted(k for k, v in predicted.items() if v > 0)
        lazy = cls(keys, None, penalty=penalty)
        lazy.log_pred = np.array([math.log(predicted[k]) + penalty(pt)
                                  for k, pt in zip(keys, lazy.points)])
        lazy.counted[:] = True
        return lazy

    @property
    def exhausted(self) -> bool:
        return bool(self.counted.all())

    @property
    def predicted(self) -> np.ndarray:
        """Indices of the points with a prediction."""
        return np.flatnonzero(~np.isnan(self.log_pred))

    def grow(self) -> int:
        """Count the next batch; returns how many points were counted."""
        if self._predict is None or self.exhausted:
            return 0
        rows = self._first_rows() if not self.counted.any() else self._next_rows()
        times = self._predict([self.keys[i] for i in rows])
        self.programs_counted += len(rows)
        self.batches += 1
        for i, t in zip(rows, times):
            self.counted[i] = True
            if t is not None and t > 0:
                self.log_pred[i] = math.log(t) + self._penalty(self.points[i])
        return len(rows)

    def _first_rows(self) -> list[int]:
        """Points covering every (axis, value) pair first, then random ones, up to *first*."""
        order = self._rng.permutation(len(self.keys))
        seen: set[tuple[int, int]] = set()
        chosen: list[int] = []
        for i in order:
            pairs = {(j, int(c)) for j, c in enumerate(self.codes[i])}
            if not pairs <= seen:
                chosen.append(int(i))
                seen |= pairs
            if len(chosen) >= self._first:
                return chosen
        rest = [int(i) for i in order if int(i) not in set(chosen)]
        return chosen + rest[:self._first - len(chosen)]

    def _next_rows(self) -> list[int]:
        """The uncounted points an additive surrogate of the predictions so far ranks fastest."""
        pending = np.flatnonzero(~self.counted)
        known = self.predicted
        if len(known) == 0:
            return [int(i) for i in self._rng.permutation(pending)[:self._batch]]
        features = one_hot(self.codes)
        x, y = features[known], self.log_pred[known]
        mean = float(y.mean())
        effects = np.linalg.solve(x.T @ x + np.eye(x.shape[1]), x.T @ (y - mean))
        score = mean + features[pending] @ effects
        return [int(pending[i]) for i in np.argsort(score, kind="stable")[:self._batch]]
