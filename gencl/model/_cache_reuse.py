"""Reuse of stencil neighbours through the caches: re-reads of rows (2-D) and planes (3-D).

A stencil reads each element several times (its neighbours' reads: the rows above and below in
2-D, the planes before and after in 3-D). The re-reads beyond an array's footprint are served by
a cache only while the data between the first and the last use stays in it: the rows or planes
the resident wave of work-groups keeps live. That live set is the resident work items' distinct
bytes times the re-read factor (each re-read is one more row or plane held); where it exceeds
the largest measured cache level (``cache_levels`` of the profile), the share that does not fit
comes from DRAM again.
"""

from __future__ import annotations

from gencl.model._params import ModelParams


def live_bytes(resident_items: float, distinct_bytes_per_item: float, rereads: float) -> float:
    """Bytes the resident wave keeps live between an element's first and last read."""
    return resident_items * distinct_bytes_per_item * max(1.0, rereads)


def dram_bytes(moved: float, footprint: float, live: float, p: ModelParams) -> float:
    """DRAM bytes of one array read *moved* bytes over a *footprint*-byte array: the footprint
    once, plus the re-reads the largest cache level cannot hold."""
    if not p.cached or moved <= footprint:
        return min(moved, footprint) if p.cached else moved
    cache = max(p.cache_level_bytes, default=0) or p.cache_bytes
    miss = 0.0 if live <= cache else 1.0 - cache / live
    return footprint + (moved - footprint) * miss
