"""The load rounds ptxas scheduled: what a build's SASS says about how often an item waits.

A Measurement on NVIDIA keeps its kernel's SASS counts where the CUDA toolkit was there
(``extra["sass"]``, ``gencl.measure._sass``). ptxas issues straight-line loads in batches as
register pressure lets it, each waited for before the next: the ``float64`` Jacobi rows of one
source take 3 rounds at 54 registers and 5 at 44 (376 against 441 µs on the H200), where the
model's own count (``_stats._item_trace``) is one round for loads outside a kept loop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from gencl.model._stats import KernelStats


def with_sass(stats: KernelStats, sass: Mapping[str, Any] | None) -> KernelStats:
    """*stats* with the load rounds of *sass* (a Measurement's ``extra["sass"]``) for a kernel
    whose SASS keeps no loop (``extra["sass_rounds"]``, which ``_predict`` prices where the
    model counts no kept loop either); unchanged without them, or where a loop is kept: a pass's
    rounds at the full latency over-priced every stream they were tried on (docs/tuning.md,
    "The load rounds ptxas scheduled")."""
    if not sass or sass.get("loop") or not sass.get("rounds"):
        return stats
    return dataclasses.replace(stats, extra={**stats.extra, "sass_rounds": int(sass["rounds"])})
