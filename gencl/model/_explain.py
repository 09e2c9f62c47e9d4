"""The model applied: one variant explained, a whole space predicted, accuracy over a cache."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gencl.errors import GenclError
from gencl.model._params import ModelParams
from gencl.model._predict import Prediction, predict, with_refill_counts
from gencl.model._registers import with_build_log
from gencl.model._schedule import with_sass
from gencl.model._vector_rate import with_isa
from gencl.model._stats import KernelStats, variant_stats


def point_key(point: Mapping[str, Any]) -> str:
    """Canonical text of a point: the key of replay caches and prediction tables."""
    return json.dumps({k: point[k] for k in sorted(point)}, sort_keys=True, default=str)


def explain(spec: Any, point: Mapping[str, Any], sizes: Mapping[str, int],
            params: ModelParams) -> tuple[KernelStats, Prediction]:
    """Statistics and prediction of one point of *spec* at *sizes*, its counts with the first
    level's refills (``_predict.with_refill_counts``)."""
    stats = variant_stats(spec, point, sizes, subgroup_size=params.subgroup_size)
    return stats, with_refill_counts(predict_variant(spec, point, sizes, stats, params), stats,
                                     params)


def predict_variant(spec: Any, point: Mapping[str, Any], sizes: Mapping[str, int],
                    stats: KernelStats, params: ModelParams) -> Prediction:
    """The prediction of one point from its statistics: a launch of k sweeps
    (``steps_per_launch``) priced from its transform's traffic where it reports one
    (``gencl.measure._sweeps.temporal_traffic``), with the flops of one update from the spec's
    flops of one sweep over the grid's points."""
    from gencl.measure._sweeps import grid_points, one_sweep_form, temporal_traffic
    from gencl.spec import flops_per_launch, steps_per_launch

    steps = steps_per_launch(spec, point)
    traffic = temporal_traffic(spec, point, sizes) if steps > 1 else None
    per_update = None
    if traffic:
        flops = flops_per_launch(spec, one_sweep_form(point), sizes)
        grid = grid_points(spec, point, sizes)
        per_update = flops / grid if flops and grid else None
    return predict(stats, params, steps=steps, traffic=traffic, flops_per_update=per_update)


@dataclass(frozen=True)
class RankedPoint:
    """A point of a space as the model prices it (``rank_points``)."""

    point: dict[str, Any]
    sizes: dict[str, int]
    prediction: Prediction

    @property
    def predicted_s(self) -> float:
        """Per sweep: what the tuner compares (``model_pick`` reads it)."""
        return self.prediction.time_per_sweep_s

    @property
    def serial_s(self) -> float:
        return self.prediction.serial_per_sweep_s


def rank_points(spec: Any, points: Sequence[Mapping[str, Any]],
                sizes: Sequence[Mapping[str, int]], params: ModelParams, *,
                workers: int | None = None, progress: Any = None
                ) -> tuple[list[RankedPoint], list[tuple[dict[str, Any], str]]]:
    """Every point priced, fastest prediction per sweep first, and the points loopy could not
    count with the reason. Nothing is built or run: the ranking a guided search starts from,
    for a device that need not be here."""
    stats = points_stats(spec, points, sizes, params, workers=workers, progress=progress)
    preds = predict_from_stats(spec, points, sizes, stats, params)
    ranked = [RankedPoint(dict(p), dict(z), q) for p, z, q in zip(points, sizes, preds) if q]
    unpriced = [(dict(p), s) for p, s in zip(points, stats) if isinstance(s, str)]
    ranked.sort(key=lambda r: r.predicted_s)
    return ranked, unpriced


def _stats_in_worker(args: tuple[Any, dict[str, Any], dict[str, int], int]) -> Any:
    """Statistics of one point; *args* name the spec by path (a worker process) or hold it."""
    from gencl.spec import load_spec

    spec, point, sizes, sg = args
    if isinstance(spec, str):
        spec = load_spec(spec, check_program=False)
    try:
        return variant_stats(spec, point, sizes, subgroup_size=sg)
    except Exception as exc:  # noqa: BLE001 -- a knob that does not apply: no prediction
        return f"{type(exc).__name__}: {str(exc)[:200]}"


def predict_points(spec: Any, points: Sequence[Mapping[str, Any]],
                   sizes: Sequence[Mapping[str, int]], params: ModelParams, *,
                   workers: int | None = None, progress: Any = None,
                   build_logs: Sequence[str | None] | None = None,
                   built: Sequence[Mapping[str, Any] | None] | None = None
                   ) -> list[Prediction | None]:
    """Predictions for many points (None where loopy cannot count a point), stats in parallel;
    *progress* is called with the number of points counted so far. *build_logs* (one per point,
    where they were built: a Measurement's ``build_log``) give the compiler's registers and
    spills in place of the estimate (``gencl.model._registers.with_build_log``), and *built*
    (``built_facts``: what the build's code was counted to hold) the load rounds ptxas
    scheduled (``gencl.model._schedule.with_sass``) and whether a CPU runtime ran the items as
    lanes (``gencl.model._vector_rate.with_isa``)."""
    stats = points_stats(spec, points, sizes, params, workers=workers, progress=progress)
    return predict_from_stats(spec, points, sizes, stats, params, build_logs, built)


def predict_from_stats(spec: Any, points: Sequence[Mapping[str, Any]],
                       sizes: Sequence[Mapping[str, int]], stats: Sequence[KernelStats | str],
                       params: ModelParams, build_logs: Sequence[str | None] | None = None,
                       built: Sequence[Mapping[str, Any] | None] | None = None
                       ) -> list[Prediction | None]:
    """Predictions from counted statistics (``points_stats``), with the build logs' registers
    and what the builds' code was counted to hold (``built_facts``) where given; None where a
    point could not be counted."""
    logs = build_logs or [None] * len(points)
    facts = built or [None] * len(points)
    return [predict_variant(spec, p, z, with_built_code(with_build_log(s, log), code), params)
            if isinstance(s, KernelStats) else None
            for p, z, s, log, code in zip(points, sizes, stats, logs, facts)]


def with_built_code(stats: KernelStats, facts: Mapping[str, Any] | None) -> KernelStats:
    """*stats* with what the build's code was counted to hold (``built_facts``): NVIDIA's SASS
    load rounds, a CPU runtime's work-group machine code."""
    facts = facts or {}
    return with_isa(with_sass(stats, facts.get("sass")), facts.get("isa"))


def built_facts(records: Sequence[Mapping[str, Any]]
                ) -> tuple[list[str | None], list[Mapping[str, Any] | None]]:
    """What each record's build told: its build log, and what its code was counted to hold
    (``extra["sass"]``: NVIDIA's SASS; ``extra["isa"]``: a CPU runtime's work-group function),
    None where neither was counted."""
    extras = [r.get("extra") or {} for r in records]
    return ([r.get("build_log") for r in records],
            [{k: e[k] for k in ("sass", "isa") if e.get(k)} or None for e in extras])


def points_stats(spec: Any, points: Sequence[Mapping[str, Any]],
                 sizes: Sequence[Mapping[str, int]], params: ModelParams, *,
                 workers: int | None = None, progress: Any = None
                 ) -> list[KernelStats | str]:
    """Statistics of many points, in parallel (a string saying why where loopy cannot count
    a point)."""
    jobs = [(spec.path or spec, dict(p), dict(s), params.subgroup_size)
            for p, s in zip(points, sizes)]
    workers = workers or int(os.environ.get("GENCL_WORKERS", 0)) or os.cpu_count() or 1
    stats: list[Any] = []
    if workers <= 1 or len(jobs) < 8 or not spec.path:  # an in-memory spec: in this process
        results: Iterable[Any] = map(_stats_in_worker, jobs)
        for s in results:
            stats.append(s)
            if progress:
                progress(len(stats))
    else:
        import multiprocessing

        ctx = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            for s in pool.map(_stats_in_worker, jobs, chunksize=4):
                stats.append(s)
                if progress:
                    progress(len(stats))
    return stats


@dataclass(frozen=True)
class Accuracy:
    """How well predicted times order and match measured ones over a measured space."""

    n: int
    spearman: float
    within_15pct: float
    median_ratio: float  # predicted / measured
    #: records of a results file whose point the space no longer holds (``space_records``)
    set_aside: int = 0
    #: axis (and ``bottleneck``) → value → n, median ratio, share within ±15 %
    #: (``accuracy_by_value``)
    by_value: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None
    #: a second run of the space against the first (``repeat_accuracy``) and the model against
    #: that second run: the repeatability ceiling beside the model's figures
    repeat: Mapping[str, Any] | None = None
    #: how far random scatter alone lowers ρ over these measured times (``scatter_reference``)
    scatter: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "spearman": self.spearman, "within_15pct": self.within_15pct,
                "median_ratio": self.median_ratio,
                **({"set_aside": self.set_aside} if self.set_aside else {}),
                **({"by_value": self.by_value} if self.by_value is not None else {}),
                **({"repeat": self.repeat} if self.repeat is not None else {}),
                **({"scatter": self.scatter} if self.scatter is not None else {})}


def accuracy(predicted: Iterable[float], measured: Iterable[float]) -> Accuracy:
    """Spearman ρ and share of predictions within ±15 % of the measured time."""
    import numpy as np
    from scipy.stats import spearmanr

    pred, meas = np.asarray(list(predicted), float), np.asarray(list(measured), float)
    if len(pred) < 3:
        raise GenclError(f"model accuracy needs at least 3 measured variants, got {len(pred)}")
    rho = float(spearmanr(pred, meas).statistic)
    ratio = pred / meas
    return Accuracy(len(pred), rho, float(np.mean(np.abs(ratio - 1) <= 0.15)),
                    float(np.median(ratio)))


#: random scatter (standard deviation of log predicted / measured) at which
#: ``scatter_reference`` reports the ρ it alone would leave
SCATTER_LEVELS = (0.03, 0.05, 0.10)
#: seeded draws whose median ρ ``scatter_reference`` reports
SCATTER_DRAWS = 64


def scatter_reference(predicted: Sequence[float], measured: Sequence[float], *,
                      draws: int = SCATTER_DRAWS, seed: int = 0) -> dict[str, Any]:
    """How demanding Spearman ρ is over these measured times, beside the model's scatter.

    ρ depends on the space as much as on the model: where the variants lie within a few per
    cent of one another, a few per cent of error reorders them (the H200's aniso2d, the middle
    half of its 210 variants within ±3 % of the median: random scatter of 3 % alone leaves ρ
    0.899), where they span a decade the same error barely moves it. So beside the model's ρ:
    the measured times' spread (slowest / fastest; interquartile range / median), the model's
    scatter (the standard deviation of log predicted / measured: its error once one scale is
    taken out), and the ρ that random log-normal scatter of each of ``SCATTER_LEVELS`` and of
    the model's own scatter would leave over these measured times (median of *draws* seeded
    draws). A model's ρ near the one its own scatter leaves misses at random; one far below it
    misses in a pattern (a family priced wrong), which a term can mend."""
    import numpy as np
    from scipy.stats import spearmanr

    pred, meas = np.asarray(predicted, float), np.asarray(measured, float)
    log_error = np.log(pred / meas)
    model_scatter = float(np.std(log_error - np.median(log_error)))
    rng = np.random.default_rng(seed)

    def rho_at(sd: float) -> float:
        return float(np.median([spearmanr(meas * np.exp(rng.normal(0.0, sd, len(meas))),
                                          meas).statistic for _ in range(draws)]))

    q1, median, q3 = np.percentile(meas, [25, 50, 75])
    return {"measured_spread": float(meas.max() / meas.min()),
            "measured_iqr_over_median": float((q3 - q1) / median),
            "model_log_scatter": model_scatter,
            "rho_at_model_scatter": rho_at(model_scatter),
            "rho_at_scatter": {f"{sd:g}": rho_at(sd) for sd in SCATTER_LEVELS}}


def load_results(path: str | os.PathLike) -> dict[str, Any]:
    """A results file (ResultsFile JSON: header + results); a one-line error when it is not.

    The partial stream of an interrupted run (``<file>.partial.jsonl``) reads as the part of
    the space it measured: ``sampled`` (a search prunes the points it lacks, a simulation
    reports the model's accuracy only) and ``partial``."""
    path = Path(path)
    if path.name.endswith(".partial.jsonl"):
        from gencl.measure._run import read_partial

        try:
            header, records = read_partial(path)
        except OSError as exc:
            raise GenclError(f"{path}: cannot read ({exc.strerror})") from None
        if header is None:
            raise GenclError(f"{path}: results_header: expected a partial results file whose "
                             "first line is its run's header")
        return {**header, "sampled": True, "partial": True, "results": records}
    from gencl._json import read_json

    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise GenclError(f"{path}: results: expected a results file with a 'results' list")
    return data


def space_records(spec: Any, results: Sequence[Mapping[str, Any]]
                  ) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], str]]]:
    """The records of a results file as points of *spec*'s space today: (records, outside).

    A record measured before an axis joined the space stands at that axis's first value, the
    value that keeps the program as it was (a new knob's first value is the untransformed
    program: ``temporal`` "none", one sweep). A record whose value of an axis has left the
    space (renamed or dropped since) is set aside with the reason: the program it timed is not
    one the spec still builds."""
    records: list[dict[str, Any]] = []
    outside: list[tuple[dict[str, Any], str]] = []
    for record in results:
        reason = spec.outside(record["point"])
        if reason:
            outside.append((record["point"], reason))
            continue
        if set(spec.axes) - set(record["point"]):
            record = {**record, "point": {**spec.complete(record["point"]), **record["point"]}}
        records.append(dict(record))
    return records, outside


def cache_accuracy(spec: Any, results: Sequence[Mapping[str, Any]], params: ModelParams, *,
                   workers: int | None = None) -> tuple[Accuracy, list[AccuracyRow]]:
    """Model accuracy over the ok records of a results file (as ``space_records`` reads them:
    the records set aside are counted in ``Accuracy.set_aside``), with the compiler's
    registers and spills where a record's build log states them; and the rows it rests on.
    Per sweep on both sides, as the tuner compares variants and ``gencl tune --simulate``
    scores the model: per launch, a launch of 8 sweeps outranks one of 1 whatever the model
    says (the Xeon's Jacobi slice: ρ 0.978 per launch, 0.833 per sweep)."""
    from gencl.measure._sweeps import time_per_sweep

    records, outside = space_records(spec, results)
    ok = [r for r in records if r.get("status") == "ok" and r.get("median_s")]
    logs, built = built_facts(ok)
    preds = predict_points(spec, [r["point"] for r in ok], [r["sizes"] for r in ok], params,
                           workers=workers, build_logs=logs, built=built)
    rows = [AccuracyRow(r["point"], p.time_per_sweep_s, float(time_per_sweep(spec, r) or 0.0),
                        p.bottleneck)
            for r, p in zip(ok, preds) if p]
    if len(rows) < 3:
        why = f"; {len(outside)} records set aside: {outside[0][1]}" if outside else ""
        raise GenclError(f"model accuracy needs at least 3 measured variants the model "
                         f"predicts, got {len(rows)} of {len(ok)} ok records{why}")
    predicted, measured = [r.predicted_s for r in rows], [r.measured_s for r in rows]
    acc = accuracy(predicted, measured)
    return replace(acc, set_aside=len(outside), by_value=accuracy_by_value(rows),
                   scatter=scatter_reference(predicted, measured)), rows


def check_repeat(first: Mapping[str, Any], second: Mapping[str, Any],
                 first_path: str | os.PathLike, second_path: str | os.PathLike) -> None:
    """A second results file (its header, *second*) of the space *first* measured on the same
    device: its spec and device name must be *first*'s (one line naming the file and field)."""
    for field, a, b in (("spec", first.get("spec"), second.get("spec")),
                        ("device.name", (first.get("device") or {}).get("name"),
                         (second.get("device") or {}).get("name"))):
        if a != b:
            raise GenclError(f"{second_path}: {field}: {b!r} where {first_path} has {a!r}; a "
                             "repeat measures the same space on the same device")


def repeat_accuracy(spec: Any, first: Sequence[Mapping[str, Any]],
                    second: Sequence[Mapping[str, Any]]) -> tuple[Accuracy, list[AccuracyRow]]:
    """A second measurement of the same space scored against the first as the model is (per
    sweep, Spearman ρ, share within ±15 %, per knob value): what a model that foresaw the second
    run exactly would score: a model's figures near these are held by the measurement's own
    noise, figures far below them by the model's terms (the H200's spaces repeat within 1–2 %
    hours to days apart; the 2-core EPYC VM's Jacobi slice, 24 % within ±15 % two hours apart).
    Rows: ``predicted_s`` the second run's time, ``measured_s`` the first's, over the points
    (at the same sizes) both measured ok."""
    from gencl.measure._sweeps import time_per_sweep

    def timed(results: Sequence[Mapping[str, Any]]) -> dict[str, tuple[dict[str, Any], float]]:
        records, _ = space_records(spec, results)
        return {point_key(r["point"]) + point_key(r["sizes"]):
                (r["point"], float(time_per_sweep(spec, r) or 0.0))
                for r in records if r.get("status") == "ok" and r.get("median_s")}

    a, b = timed(first), timed(second)
    rows = [AccuracyRow(a[k][0], b[k][1], a[k][1], "") for k in a
            if k in b and a[k][1] > 0 and b[k][1] > 0]
    if len(rows) < 3:
        raise GenclError(f"measurement agreement needs at least 3 variants both runs measured "
                         f"ok at the same sizes, got {len(rows)}")
    acc = accuracy([r.predicted_s for r in rows], [r.measured_s for r in rows])
    return replace(acc, by_value=accuracy_by_value(rows)), rows


def repeat_summary(spec: Any, first: Sequence[Mapping[str, Any]],
                   second: Sequence[Mapping[str, Any]], file: str | os.PathLike, *,
                   model_rows: Sequence[AccuracyRow] | None = None,
                   by_value: bool = True) -> dict[str, Any]:
    """``repeat_accuracy`` as JSON (``file``: the second run's), and with *model_rows* (the
    model's rows over the first run, ``cache_accuracy``) the model scored against the second
    run over the points both runs measured: ``model_spearman``, ``model_within_15pct``,
    ``model_median_ratio``."""
    agree, pairs = repeat_accuracy(spec, first, second)
    out = {"file": os.fspath(file), **agree.to_json()}
    if not by_value:
        out.pop("by_value", None)
    if model_rows is not None:
        model = {point_key(r.point): r.predicted_s for r in model_rows}
        both = [(model[point_key(pair.point)], pair.predicted_s) for pair in pairs
                if point_key(pair.point) in model]
        versus = accuracy(*zip(*both)) if len(both) >= 3 else None
        out.update(model_spearman=versus.spearman if versus else None,
                   model_within_15pct=versus.within_15pct if versus else None,
                   model_median_ratio=versus.median_ratio if versus else None)
    return out


@dataclass(frozen=True)
class AccuracyRow:
    """One measured variant beside its prediction (seconds, both per launch or both per
    sweep)."""

    point: dict[str, Any]
    predicted_s: float
    measured_s: float
    bottleneck: str
    serial_s: float = 0.0  # the prediction's terms summed (``Prediction.serial_s``), same unit

    @property
    def ratio(self) -> float:
        return self.predicted_s / self.measured_s


def accuracy_by_value(rows: Sequence[AccuracyRow]) -> dict[str, dict[str, dict[str, Any]]]:
    """Where the model misses: for every axis with more than one value among *rows*, and for
    the predicted bottleneck (``bottleneck``), each value's variants: n, median
    predicted/measured and the share within ±15 %. A family the model misjudges as a whole
    (every ``vector_width`` 8 variant 20 % fast) shows as one value far from 1."""
    import numpy as np

    def family(ratios: list[float]) -> dict[str, Any]:
        r = np.asarray(ratios)
        return {"n": len(r), "median_ratio": float(np.median(r)),
                "within_15pct": float(np.mean(np.abs(r - 1) <= 0.15))}

    def text(value: Any) -> str:
        return value if isinstance(value, str) else json.dumps(value, default=str)

    def order(value: Any) -> tuple[str, Any]:  # numbers and shapes in their own order
        if isinstance(value, list | tuple):
            return ("shape", tuple(value))
        return (type(value).__name__, value if isinstance(value, int | float | str)
                else text(value))

    groups: dict[str, dict[str, tuple[Any, list[float]]]] = {}
    for row in rows:
        for name, value in [*row.point.items(), ("bottleneck", row.bottleneck)]:
            values = groups.setdefault(name, {})
            values.setdefault(text(value), (value, []))[1].append(row.ratio)
    return {name: {key: family(ratios) for key, (_, ratios) in
                   sorted(values.items(), key=lambda item: order(item[1][0]))}
            for name, values in groups.items() if len(values) > 1}
