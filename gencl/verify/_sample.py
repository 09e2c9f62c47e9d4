"""Which points to check: all of a small space, a pairwise covering sample of a large one.

Most faults in generated code come from one knob value or from two knobs meeting (a vector width
with a work-group size, local memory with unrolling); a sample in which every value of every axis
and every pair of values of two axes occurs at least once finds them at a fraction of the cost of
the whole space. Built greedily (AETG-style) over the valid points only, so spec constraints hold
and pairs that no valid point contains are not asked for.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Pair = tuple[int, int, int, int]  # (axis i, value index, axis j, value index), i < j

#: Spaces up to this many valid points are checked whole.
ALL_POINTS_UP_TO = 32


def _key(value: Any) -> Any:
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


def _cells(indices: Sequence[int]) -> set[tuple]:
    """Every single value and every pair of values of one point, as index tuples."""
    singles = {(i, v) for i, v in enumerate(indices)}
    pairs = {(i, indices[i], j, indices[j])
             for i, j in itertools.combinations(range(len(indices)), 2)}
    return singles | pairs


def covering_sample(axes: Mapping[str, Sequence[Any]], valid: Iterable[Mapping[str, Any]], *,
                    limit: int | None = None, first: Sequence[Mapping[str, Any]] = ()
                    ) -> list[dict[str, Any]]:
    """A small list of *valid* points covering every value and every pair of values.

    Args:
        axes: the space's axes in order (``spec.axes``).
        valid: every point of the space that is allowed (``spec.points(device)``).
        limit: stop after this many points even if some pairs remain uncovered.
        first: points to take first if valid (the spec's default point, say), for readability.

    Returns:
        Points in the order chosen; deterministic for the same inputs.
    """
    names = list(axes)
    index = [{_key(v): k for k, v in enumerate(axes[n])} for n in names]
    candidates: list[tuple[dict[str, Any], set[tuple]]] = []
    for point in valid:
        idx = [index[a][_key(point[n])] for a, n in enumerate(names)]
        candidates.append((dict(point), _cells(idx)))
    uncovered: set[tuple] = set().union(*(c for _, c in candidates)) if candidates else set()
    chosen: list[dict[str, Any]] = []
    taken: set[int] = set()
    preferred = [i for p in first for i, (c, _) in enumerate(candidates) if c == dict(p)]
    while uncovered and (limit is None or len(chosen) < limit):
        best, gain = -1, 0
        for i in preferred:
            if i not in taken:
                best, gain = i, len(candidates[i][1] & uncovered)
                break
        else:
            for i, (_, cells) in enumerate(candidates):
                if i in taken:
                    continue
                g = len(cells & uncovered)
                if g > gain:
                    best, gain = i, g
        if best < 0 or gain == 0:
            break
        taken.add(best)
        chosen.append(candidates[best][0])
        uncovered -= candidates[best][1]
    return chosen


def uncovered_pairs(axes: Mapping[str, Sequence[Any]], valid: Iterable[Mapping[str, Any]],
                    sample: Iterable[Mapping[str, Any]]) -> int:
    """How many value pairs that some valid point contains the sample misses (0: a full cover)."""
    names = list(axes)
    index = [{_key(v): k for k, v in enumerate(axes[n])} for n in names]

    def cells(points: Iterable[Mapping[str, Any]]) -> set[tuple]:
        out: set[tuple] = set()
        for p in points:
            out |= _cells([index[a][_key(p[n])] for a, n in enumerate(names)])
        return out

    return len(cells(valid) - cells(sample))


def choose_points(spec: Any, device: Any = None, *, sample: int | None = None,
                  exhaustive: bool = False, fixed: Mapping[str, Any] | None = None,
                  ) -> tuple[list[dict[str, Any]], str]:
    """The points to check for *spec* and how they were chosen (for the report).

    The whole space when it is small (≤ ``ALL_POINTS_UP_TO``, or ≤ *sample*) or when *exhaustive*;
    otherwise a pairwise covering sample, capped at *sample* points. *fixed* (``--knob``) keeps
    the points with those values (each checked against the space first: ``SpecError`` names an
    unknown knob or a value outside it) and chooses among them.
    """
    from gencl.spec import check_knob, knob_text, matches

    fixed = {name: check_knob(spec, name, value) for name, value in (fixed or {}).items()}
    valid = [p for p in spec.points(device, fixed) if matches(p, fixed)]
    within = "".join(f", {k}={knob_text(v)}" for k, v in fixed.items())
    threshold = ALL_POINTS_UP_TO if sample is None else sample
    if exhaustive or len(valid) <= threshold:
        return valid, f"all {len(valid)} points{within}"
    first = [p for p in spec.sweep_points(device)[:1] if p in valid]
    chosen = covering_sample(spec.axes, valid, limit=sample, first=first)
    missing = uncovered_pairs(spec.axes, valid, chosen)
    how = f"pairwise sample: {len(chosen)} of {len(valid)} points{within}"
    if missing:
        how += f" ({missing} value pairs not covered: --sample {sample} caps it)"
    return chosen, how
