"""The load rounds ptxas scheduled: what a build's SASS says about how often an item waits.

A Measurement on NVIDIA keeps its kernel's SASS counts where the CUDA toolkit was there
(``extra["sass"]``, ``gencl.measure._sass``). ptxas issues straight-line loads in batches as
register pressure lets it, each waited for before the next: the ``float64`` Jacobi rows of one
source take 3 rounds at 54 registers and 5 at 44 (376 against 441 µs on the H200), where the
model's own count (``_stats._item_trace``) is one round for loads outside a kept loop.

In a loop the code keeps, the model counts a round an iteration; ptxas may wait more often in a
pass (star3d_r4's streams 3–5.5 times an iteration) or less (box2d9's scalar stream 3 times in a
pass of 4 iterations). Only the first batch brings a row new to the caches; the later ones
re-read lines the item's neighbours brought in, each at the ``cached_rounds`` benchmark's round
(``scheduled_loop_rounds``, priced in ``_predict``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from gencl.model._stats import KernelStats


def with_sass(stats: KernelStats, sass: Mapping[str, Any] | None) -> KernelStats:
    """*stats* with the load rounds of *sass* (a Measurement's ``extra["sass"]``): for a kernel
    whose SASS keeps no loop its rounds (``extra["sass_rounds"]``, which ``_predict`` prices
    where the model counts no kept loop either); for one that keeps a loop the counts of its
    longest loop's pass (``extra["sass_loop"]``: ``scheduled_loop_rounds``); unchanged without
    them."""
    if not sass or not sass.get("rounds"):
        return stats
    if not sass.get("loop"):
        return dataclasses.replace(stats,
                                   extra={**stats.extra, "sass_rounds": int(sass["rounds"])})
    one_pass = sass.get("loop_pass") or {}
    if not one_pass.get("stores") or not one_pass.get("rounds"):
        return stats  # a pass that stores nothing: its passes an item cannot be told
    loop = {"rounds": int(sass["rounds"]), "stores": int(sass.get("stores") or 0),
            "pass_rounds": int(one_pass["rounds"]), "pass_stores": int(one_pass["stores"])}
    return dataclasses.replace(stats, extra={**stats.extra, "sass_loop": loop})


def scheduled_loop_rounds(stats: KernelStats, stores_per_item: float) -> float | None:
    """Load rounds an item of a kernel whose SASS keeps a loop waits, by that SASS: the rounds
    outside the loop's pass plus a pass's rounds × the passes an item runs, which its store
    instructions give (*stores_per_item*, in SASS instructions: a ``float4`` one, a ``float8``
    two; the pass holds ``pass_stores`` of them, the code outside the rest). None without the
    counts (``with_sass``) or where no pass runs."""
    loop = stats.extra.get("sass_loop")
    if not loop:
        return None
    passes = (stores_per_item - (loop["stores"] - loop["pass_stores"])) / loop["pass_stores"]
    if passes <= 0:
        return None
    return loop["rounds"] - loop["pass_rounds"] + passes * loop["pass_rounds"]
