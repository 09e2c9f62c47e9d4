"""Statistics of timing samples (seed 000: 25 runs, 95 % CI = 1.96 σ)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SampleStats:
    n: int
    median: float
    mean: float
    std: float
    ci95: float  # half-width, 1.96 σ of the samples (seed 000's definition)

    @property
    def relative_spread(self) -> float:
        return self.ci95 / self.median if self.median > 0 else math.inf

    @property
    def median_relative_ci95(self) -> float:
        """Half-width of the 95 % interval of the *median* as a fraction of it (normal
        approximation: standard error √(π/2)·σ/√n): how well n samples pin the figure down,
        where ``relative_spread`` says how far one sample strays."""
        if self.median <= 0 or self.n < 2:
            return math.inf
        return 1.96 * math.sqrt(math.pi / 2) * self.std / math.sqrt(self.n) / self.median


def summarize(samples: Sequence[float]) -> SampleStats:
    """Median, mean, sample standard deviation and the 1.96 σ interval of *samples*."""
    a = np.asarray(samples, dtype=float)
    if a.size == 0:
        raise ValueError("no samples")
    std = float(a.std(ddof=1)) if a.size > 1 else 0.0
    return SampleStats(int(a.size), float(np.median(a)), float(a.mean()), std, 1.96 * std)


def launches_per_sample(probe_s: float, *, min_sample_s: float) -> int:
    """How many back-to-back launches one sample needs to last at least *min_sample_s*."""
    if probe_s <= 0:
        return 1024
    return max(1, min(1 << 20, math.ceil(min_sample_s / probe_s * (1 - 1e-12))))
