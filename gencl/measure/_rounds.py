"""Interleaved rounds: a space's variants timed again turn by turn, not each one back to back.

A machine whose speed drifts over seconds (a VM's neighbours, a shared host) gives each variant
timed back to back the machine's state at its turn: on the 2-core EPYC VM, 40 Jacobi variants of
one family timed that way in three processes ordered themselves at ρ 0.09–0.32 from process to
process. Timing every variant once a round, in a new random order each round, spreads the drift
over all of them, so each variant's median over the rounds was taken under the same mix of
states as every other's: the same 40 ordered themselves at ρ 0.93–0.97 (docs/tuning.md,
"Interleaved rounds"). A drift of the whole machine from one process to the next stays (one run
was 22–28 % faster than the others throughout): rounds make a run's times comparable with one
another, not with another run's.

Each turn is one launch to warm the variant's code (its data is the space's shared buffers, the
same for every variant of a layout, so no turn finds another variant's data in the caches) and
one sample of back-to-back launches, at least ``TURN_S`` long (a sample of one short launch is
mostly the runtime waking its threads: at n = 256, 51–190 µs launches, such samples read 1.3×
the back-to-back time).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from gencl.measure._engine import OpenCLEngine
from gencl.measure._inputs import SharedInputs, buffer_layout
from gencl.measure._measurement import Measurement
from gencl.measure._stats import launches_per_sample, summarize

#: the shortest sample a turn takes (launches back to back, as many as reach it)
TURN_S = 2e-3


def layout_key(spec: Any, variant: Any, m: Measurement) -> str:
    """The variants that share timing buffers: the same ``buffer_layout`` and program
    parameters (they set the data, as ``measure_space`` groups them). One ``SharedInputs`` per
    key: binding another layout to it would free the buffers the earlier variants' launches
    hold."""
    return json.dumps([buffer_layout(variant, m.sizes),
                       {k: m.point.get(k) for k in spec.params}], sort_keys=True, default=str)


def retime_in_rounds(engine: OpenCLEngine, spec: Any, entries: Sequence[tuple[Any, Measurement]],
                     rounds: int, *, seed: int = 0, budget_bytes: int | None = None,
                     log: Callable[[str], None] | None = None,
                     sink: Any = None) -> list[Measurement]:
    """Each (variant, ok measurement) of *entries* timed again in *rounds* interleaved rounds:
    the measurement with the rounds' samples in place of its own, its first median kept in
    ``extra["rounds"]``. A variant whose launch fails in a round keeps its first measurement.
    With *sink* (a ``ResultsFile``), each batch's re-timed records are streamed in place of
    their first as the batch ends.

    The layouts' buffers are held together while they fit *budget_bytes* (default: a quarter
    of the device's memory), so variants of different layouts interleave too; beyond it the
    layouts are taken a batch at a time."""
    budget = budget_bytes if budget_bytes is not None else engine.info.global_mem_bytes // 4
    groups: dict[str, list[tuple[Any, Measurement]]] = {}
    for variant, m in entries:
        groups.setdefault(layout_key(spec, variant, m), []).append((variant, m))
    rng = random.Random(seed)
    out: dict[str, Measurement] = {}

    def timed(batch: Sequence[tuple[Any, Any, Any, Measurement]]) -> None:
        done = _rounds(engine, batch, rounds, rng, log)
        out.update(done)
        for m in done.values() if sink is not None else ():
            sink.replace(m)

    batch: list[tuple[Any, Any, Any, Measurement]] = []
    inputs: list[SharedInputs] = []
    held = 0
    try:
        for members in groups.values():
            shared = SharedInputs(spec)
            bound = []
            for v, m in members:
                try:
                    built = engine.build(v)
                    bound.append((v, built, shared.bind(engine, built, m.sizes), m))
                except Exception as exc:  # noqa: BLE001 -- it keeps its first measurement
                    _kept(m, exc, log)
            size = sum(int(getattr(b, "size", 0)) for b in shared.buffers())
            if batch and held + size > budget:
                timed(batch)
                for s in inputs:
                    s.release()
                batch, inputs, held = [], [], 0
            batch += bound
            inputs.append(shared)
            held += size
        if batch:
            timed(batch)
    finally:
        for s in inputs:
            s.release()
    return [out.get(m.variant_id, m) for _, m in entries]


def _rounds(engine: OpenCLEngine, batch: Sequence[tuple[Any, Any, Any, Measurement]],
            rounds: int, rng: random.Random, log: Callable[[str], None] | None
            ) -> dict[str, Measurement]:
    samples: dict[str, list[float]] = {m.variant_id: [] for *_, m in batch}
    failed: set[str] = set()
    for r in range(rounds):
        order = list(batch)
        rng.shuffle(order)
        for _variant, built, bound, m in order:
            if m.variant_id in failed:
                continue
            try:
                engine.run_once(built, bound)  # warm: this variant's code on the shared data
                samples[m.variant_id].append(engine.sample(built, bound, turn_launches(m)))
            except Exception as exc:  # noqa: BLE001 -- one variant's fault ends only its turns
                failed.add(m.variant_id)
                engine.reset()
                _kept(m, exc, log)
        if log:
            log(f"  round {r + 1}/{rounds} of {len(batch)} variants")
    return {m.variant_id: retimed(m, samples[m.variant_id], rounds, engine.max_rel_spread)
            for *_, m in batch if m.variant_id not in failed}


def _kept(m: Measurement, exc: Exception, log: Callable[[str], None] | None) -> None:
    if log:
        log(f"  {m.variant_id}: {type(exc).__name__}: {str(exc).strip()[:200]}; its first "
            "measurement kept")


def turn_launches(m: Measurement) -> int:
    """Launches of one turn's sample: the first measurement's, or as many as last ``TURN_S``."""
    return max(m.launches_per_sample,
               launches_per_sample(float(m.median_s or TURN_S), min_sample_s=TURN_S))


def retimed(m: Measurement, samples: Sequence[float], rounds: int,
            max_rel_spread: float) -> Measurement:
    """*m* with *samples* (one a round) as its samples: median, interval and rates anew (as
    ``Measurement.timed`` makes them), its first median and sample count kept in
    ``extra["rounds"]``."""
    fresh = Measurement.timed(m.variant_id, m.spec, m.point, m.sizes,
                              tuple(float(s) for s in samples), work=m.work)
    first = {"rounds": rounds, "back_to_back_median_s": m.median_s,
             "back_to_back_samples": len(m.samples_s)}
    return dataclasses.replace(
        m, samples_s=fresh.samples_s, median_s=fresh.median_s, ci95_s=fresh.ci95_s,
        metrics=fresh.metrics, launches_per_sample=turn_launches(m),
        wide_spread=summarize(samples).relative_spread > max_rel_spread,
        extra={**m.extra, "rounds": first})
