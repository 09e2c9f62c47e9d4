"""Measure every point of a space on one device, through the one measure pipeline.

What a space adds to ``gencl.measure``: the points (sharded, sampled with the named variants
kept), resuming from a finished or partial file, builds in parallel chunks, and timing buffers
shared by every variant of one buffer layout (``SharedInputs``); on request, the measured
variants timed again in interleaved rounds (``gencl.measure._rounds``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gencl.generate import GenerationFailure, Variant, generate_many, variant_id
from gencl.errors import GenclError
from gencl.measure import (
    HEADER_KEY, Measurement, ResultsFile, SharedInputs, measure_variant, read_partial,
    read_results_header)
from gencl.spec import matches, steps_per_launch

#: variants built together in threads before they are measured one by one (NVIDIA's OpenCL
#: compiler takes ~1 s per variant; 16 at a time keep an exhaustive space to minutes)
PREBUILD_CHUNK = 64


def space_points(spec: Any, device: Any, *, fixed: Mapping[str, Any] | None = None,
                 shard: tuple[int, int] = (0, 1), sample: int | None = None,
                 always: Sequence[Mapping[str, Any]] = (), seed: int = 0,
                 every: Sequence[Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The space on *device* with *fixed* axes, optionally sampled, then cut to one shard.

    A sample keeps one point of each of *always* (the named variants: the variant's axes, the
    rest at their defaults where that point is in the space) and *sample* random others; where
    the space has points of several steps per launch (temporal blocking) and points of one,
    half of the random others are drawn from each (so one run measures both and their ratio).
    *every*: the points of a slice at least as wide as *fixed* where the caller holds them
    already, so one walk serves several cuts of it (a space run's slice, its shard, its
    sample); without it the slice alone is walked (``spec.points`` with *fixed*: Jacobi's
    whole walk is 3.6 M candidate points, 10-50 s on 2 cores, a slice's a fraction of it).
    """
    fixed = dict(fixed or {})
    points = [dict(p) for p in (spec.points(device, fixed) if every is None else every)
              if matches(p, fixed)]
    if sample is not None and sample < len(points):
        keep: list[dict[str, Any]] = []
        for partial in always:
            mine = [p for p in points if matches(p, partial)]
            default = spec.complete({**fixed, **partial})
            pick = next((p for p in mine if p == default), mine[0] if mine else None)
            if pick is not None and pick not in keep:
                keep.append(pick)
        rest = [p for p in points if p not in keep]
        points = keep + _stratified(spec, rest, max(0, min(len(rest), sample - len(keep))),
                                    random.Random(seed))
    index, count = shard
    return points[index::count]


def _stratified(spec: Any, points: Sequence[dict[str, Any]], count: int,
                rng: random.Random) -> list[dict[str, Any]]:
    """*count* of *points* at random; half from points of several steps per launch when there
    are both kinds (the other kind fills what one cannot)."""
    multi = [p for p in points if steps_per_launch(spec, p) > 1]
    if not multi or len(multi) == len(points):
        return rng.sample(list(points), count)
    single = [p for p in points if steps_per_launch(spec, p) == 1]
    n_multi = min(len(multi), max(count - len(single), (count + 1) // 2))
    return rng.sample(single, count - n_multi) + rng.sample(multi, n_multi)


def stored_header(path: Path) -> dict[str, Any]:
    """The header of the results at *path*: its partial JSONL's (the newer state), else the
    finished file's; {} where neither exists or can be read."""
    partial = path.with_name(path.name + ".partial.jsonl")
    try:
        if partial.is_file():
            return read_partial(partial)[0] or {}
        if path.is_file():
            return read_results_header(path)
    except (OSError, GenclError):
        pass
    return {}


def previously_sampled(path: Path) -> bool:
    """Whether the results at *path* (finished, or its partial JSONL) hold a sample of the
    space: a folder that holds random points stays sampled when a later run adds a whole
    slice or only re-times the peers (it is still not the whole space)."""
    return bool(stored_header(path).get("sampled"))


def shared_slice(fixed: Mapping[str, Any], records: Iterable[Mapping[str, Any]]
                 ) -> dict[str, Any]:
    """The axes of *fixed* at which every record's point has that same value: the slice a
    results file holds once a run has added its slice to a folder holding another (adding
    ``boundary=padded`` to a folder of ``boundary=branch`` leaves a file of both boundaries)."""
    def text(value: Any) -> str:  # a JSON round trip makes tuples lists
        return json.dumps(value, default=str)

    records = list(records)
    return {k: v for k, v in fixed.items()
            if all(text((r.get("point") or {}).get(k)) == text(v) for r in records)}


def open_results(path: Path, header: dict[str, Any]) -> ResultsFile:
    """A ResultsFile that resumes from its partial JSONL *or* from a finished file (shards);
    a finished file's header stays the partial's first line, as a run's own partial has it."""
    partial = path.with_name(path.name + ".partial.jsonl")
    if path.is_file() and not partial.exists():
        data = json.loads(path.read_text())
        done = data.get("results", [])
        before = {k: v for k, v in data.items() if k != "results"}
        partial.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text("".join(json.dumps(r, default=str) + "\n"
                                   for r in [{HEADER_KEY: before}, *done]))
    return ResultsFile(path, header)


def measure_space(spec: Any, engine: Any, points: Iterable[dict[str, Any]],
                  sizes_of: Callable[[dict[str, Any]], dict[str, int]], sink: ResultsFile, *,
                  on_result: Callable[[Measurement], None] | None = None, rounds: int = 0,
                  log: Callable[[str], None] | None = None) -> int:
    """Measure every point not yet in *sink*; each result is streamed as soon as it exists.
    With *rounds*, then every ok record of *sink* not yet timed in rounds (this call's and an
    interrupted call's) is timed again in that many interleaved rounds (``retime_in_rounds``),
    each streamed in place of its first record.

    Returns the number of points measured in this call.
    """
    done = sink.done_ids
    todo = [p for p in points if variant_id(spec, p) not in done]
    variants = generate_many(spec, todo)
    # grouped by the program parameters (they set the buffer layout), so the shared timing
    # buffers are made once per layout
    order = sorted(range(len(todo)), key=lambda k: (json.dumps(
        {name: todo[k].get(name) for name in spec.params}, default=str), k))
    shared = SharedInputs(spec)
    count = 0
    try:
        for position, k in enumerate(order):
            if position % PREBUILD_CHUNK == 0:  # the next chunk's builds run in parallel
                engine.prebuild([v for j in order[position:position + PREBUILD_CHUNK]
                                 if isinstance(v := variants[j], Variant)])
            v, sizes = variants[k], sizes_of(todo[k])
            if isinstance(v, GenerationFailure):
                m = Measurement(v.id, spec.name, dict(v.point), dict(sizes), "excluded",
                                v.reason)
            else:
                m = measure_variant(engine, spec, v, sizes, timing=shared)
            sink.add(m)
            count += 1
            if on_result:
                on_result(m)
    finally:
        shared.release()
    if rounds:
        retime_space(spec, engine, sink, rounds, log=log,
                     generated=[v for v in variants if isinstance(v, Variant)])
    return count


def retime_space(spec: Any, engine: Any, sink: ResultsFile, rounds: int, *,
                 log: Callable[[str], None] | None = None,
                 generated: Sequence[Variant] = ()) -> int:
    """Every ok record of *sink* without rounds timed again in *rounds* interleaved rounds;
    returns how many were. *generated*: variants this call made already (the others, records
    of an interrupted call, are generated again)."""
    from gencl.measure._rounds import retime_in_rounds

    first = [Measurement.from_json(r) for r in sink.results
             if r.get("status") == "ok" and "rounds" not in (r.get("extra") or {})]
    if not first:
        return 0
    made = {v.id: v for v in generated}
    missing = [m for m in first if m.variant_id not in made]
    made.update({v.id: v for v in generate_many(spec, [m.point for m in missing])
                 if isinstance(v, Variant)})
    entries = [(made[m.variant_id], m) for m in first if m.variant_id in made]
    if log:
        kept = len(first) - len(entries)  # records of a program the generator no longer makes
        log(f"{spec.name}: {len(entries)} variants timed again in {rounds} interleaved rounds"
            + (f" ({kept} records of programs no longer generated keep their times)"
               if kept else ""))
    retime_in_rounds(engine, spec, entries, rounds, log=log, sink=sink)
    return len(entries)
