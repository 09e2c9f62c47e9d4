"""What the terms miss on one device, learned from the other kernels measured on it.

The terms price every kernel from the profile alone, and on the H200 they still miss by
families: a kernel's ``float8`` streams 0.7–0.85× their time, its one-point items 0.85×, a
stream's length (docs/tuning.md). Those misses repeat across kernels as functions of the
prediction's own shape — which terms come near the top, how many load rounds an item waits,
how many items a compute unit holds — so they can be learned from kernels already measured on
the device and applied to one that was not, as TVM's and Ansor's cost models learn theirs.

A *residual table* holds, for every measured variant of the spaces it was built from, the
features below (from the prediction and the kernel's statistics: no knob or kernel name) and
log(measured / predicted) per sweep. To correct a kernel's predictions, a gradient-boosted
tree ensemble (scikit-learn's ``HistGradientBoostingRegressor``) is fitted on the rows of
every *other* kernel, each kernel weighted equally, and predicts the log ratio of each
variant: the kernel itself is never part of its own fit. With no other kernel in the table
there is no correction.

The ensemble's settings and the features were chosen on 2026-11-29 (fifteenth session) by the
mean leave-one-kernel-out accuracy over the H200's 19 committed exhaustive spaces (the suite,
both Jacobi spaces, helmholtz3d), and fixed before the H100's spaces were scored.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from gencl._json import read_json
from gencl.errors import GenclError
from gencl.model._params import ModelParams
from gencl.model._predict import Prediction
from gencl.model._stats import KernelStats

TABLE_VERSION = 1

#: the terms whose share of the predicted time is a feature (``Prediction.terms``)
TERMS = ("compute", "memory_bandwidth", "l2_bandwidth", "cache_requests", "memory_latency",
         "local_memory", "dispatch", "barriers", "wave_tail", "store_reload")

FEATURES = (*(f"share_{t}" for t in TERMS), "retouch_hit_share", "occupancy", "load_rounds",
            "first_level_miss_share", "waves", "widest_access_bytes", "lane_by_lane_share",
            "group_size")

#: the ensemble's settings (chosen as the module's docstring says)
SETTINGS = {"max_depth": 3, "max_iter": 200, "learning_rate": 0.05, "min_samples_leaf": 40,
            "l2_regularization": 1.0}


def residual_features(prediction: Prediction, stats: KernelStats,
                      params: ModelParams) -> list[float]:
    """The features of one prediction, in ``FEATURES`` order: each term's share of the
    predicted time (log, floored at 1e-3), the first level's re-touch hit share, the resident
    items per compute unit over 2,048 (log), the load rounds (log 1 + n), the share of
    first-level requests that miss, the waves of resident items (log), the widest global
    access an instruction makes (log₂ bytes), the share of global sites accessed lane by lane,
    and the work-group's size (log₂)."""
    whole = max(prediction.time_s, 1e-30)
    shares = [math.log(max(prediction.terms.get(t, 0.0) / whole, 1e-3)) for t in TERMS]
    counts = prediction.counts
    resident = max(float(counts.get("resident_items_per_cu") or 1.0), 1.0)
    requests = float(counts.get("first_level_requests") or 0.0)
    sites = [a for a in stats.accesses if a.space == "global"]
    waves = stats.work_items / max(params.compute_units, 1) / resident
    return [*shares,
            float(counts.get("retouch_hit_share", 1.0)),
            math.log(resident / 2048.0),
            math.log1p(float(counts.get("load_rounds") or 0.0)),
            float(counts.get("first_level_misses") or 0.0) / requests if requests else 0.0,
            math.log(max(waves, 1e-3)),
            math.log2(max([a.instruction_bytes for a in sites] or [4]) or 4),
            sum(1 for a in sites if a.per_lane) / len(sites) if sites else 0.0,
            math.log2(max(stats.group_size, 1))]


class Row(NamedTuple):
    """One measured variant of a table: its kernel, features, and times per sweep (the
    prediction, its terms summed, the measurement)."""

    spec: str
    features: tuple[float, ...]
    predicted_s: float
    serial_s: float
    measured_s: float

    @property
    def log_ratio(self) -> float:
        """log(measured / predicted): what the residual learns."""
        return math.log(self.measured_s / self.predicted_s)


@dataclass(frozen=True)
class ResidualTable:
    """The measured variants of one device's spaces, as ``Row``s."""

    device: str
    rows: tuple[Row, ...]
    sources: tuple[str, ...] = ()  # the results files the rows came from

    @property
    def kernels(self) -> list[str]:
        return sorted({row.spec for row in self.rows})

    def to_json(self) -> dict[str, Any]:
        return {"kind": "residual_table", "version": TABLE_VERSION, "device": self.device,
                "features": list(FEATURES), "sources": list(self.sources),
                "rows": [{"spec": r.spec, "features": list(r.features),
                          "predicted_s": r.predicted_s, "serial_s": r.serial_s,
                          "measured_s": r.measured_s} for r in self.rows]}


def load_table(path: str | os.PathLike[str]) -> ResidualTable:
    """A residual table from its JSON file; a one-line error naming the file and field."""
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict) or data.get("kind") != "residual_table":
        raise GenclError(f"{path}: kind: expected 'residual_table'")
    if data.get("version") != TABLE_VERSION:
        raise GenclError(f"{path}: version: {data.get('version')!r}, this gencl reads "
                         f"{TABLE_VERSION} (rebuild it: gencl residual)")
    if data.get("features") != list(FEATURES):
        raise GenclError(f"{path}: features: not this gencl's {len(FEATURES)} features "
                         "(rebuild it: gencl residual)")
    rows = []
    for i, row in enumerate(data.get("rows") or []):
        try:
            rows.append(Row(str(row["spec"]), tuple(float(v) for v in row["features"]),
                            float(row["predicted_s"]), float(row["serial_s"]),
                            float(row["measured_s"])))
        except (KeyError, TypeError, ValueError):
            raise GenclError(f"{path}: rows[{i}]: expected spec, features, predicted_s, "
                             "serial_s, measured_s") from None
        if len(rows[-1].features) != len(FEATURES):
            raise GenclError(f"{path}: rows[{i}].features: {len(rows[-1].features)} values, "
                             f"expected {len(FEATURES)}")
        if min(rows[-1][2:]) <= 0:
            raise GenclError(f"{path}: rows[{i}]: times must be positive")
    return ResidualTable(str(data.get("device") or ""), tuple(rows),
                         tuple(data.get("sources") or ()))


def table_of_device(name: str, root: str | os.PathLike[str] | None = None) -> Path | None:
    """A committed residual table of the device called *name* (``<root>/*/residual.json``,
    root the results root), the first in name order; None where there is none."""
    from gencl.model._params import results_root

    for path in sorted(Path(root or results_root()).glob("*/residual.json")):
        try:
            device = json.loads(path.read_text()).get("device")
        except (OSError, ValueError):
            continue
        if device == name:
            return path
    return None


@dataclass(frozen=True)
class Residual:
    """An ensemble fitted on the table's rows of every kernel but one."""

    model: Any
    trained_on: tuple[str, ...]
    rows: int

    def factors(self, features: Sequence[Sequence[float]]) -> list[float]:
        """exp(predicted log ratio) of each feature row: what to multiply a prediction by."""
        import numpy as np

        if not len(features):
            return []
        return [float(v) for v in np.exp(self.model.predict(np.asarray(features, float)))]


def fit_residual(table: ResidualTable, held_out: str) -> Residual | None:
    """The ensemble fitted on every row of *table* whose kernel is not *held_out*, each kernel
    weighted equally; None where no other kernel's rows are there."""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingRegressor

    rows = [r for r in table.rows if r.spec != held_out]
    if not rows:
        return None
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.spec] = counts.get(row.spec, 0) + 1
    x = np.asarray([r.features for r in rows], float)
    y = np.asarray([r.log_ratio for r in rows], float)
    weight = np.asarray([1.0 / counts[r.spec] for r in rows])
    model = HistGradientBoostingRegressor(**SETTINGS, random_state=0)
    model.fit(x, y, sample_weight=weight)
    return Residual(model, tuple(sorted(counts)), len(rows))


def table_rows(spec_name: str, predictions: Sequence[Prediction | None],
               stats: Sequence[KernelStats | str], measured: Sequence[float | None],
               params: ModelParams) -> list[Row]:
    """Rows of one space: each variant with a prediction and a measured time per sweep."""
    return [Row(spec_name, tuple(residual_features(p, s, params)), p.time_per_sweep_s,
                p.serial_per_sweep_s, float(m))
            for p, s, m in zip(predictions, stats, measured)
            if p is not None and isinstance(s, KernelStats) and m and m > 0
            and p.time_per_sweep_s > 0]


def build_table(spaces: Sequence[str | os.PathLike[str]], params: ModelParams,
                device: str, *, workers: int | None = None,
                progress: Any = None) -> ResidualTable:
    """A table from measured spaces of *device* (results files), predicted with *params* and
    each record's build facts, as ``cache_accuracy`` predicts them. A file measured on another
    device is an error naming it."""
    from gencl.measure._sweeps import time_per_sweep
    from gencl.model._explain import (
        built_facts, load_results, points_stats, predict_from_stats, space_records)
    from gencl.spec import load_spec

    rows: list[Row] = []
    for path in spaces:
        data = load_results(path)
        theirs = (data.get("device") or {}).get("name")
        if theirs != device:
            raise GenclError(f"{path}: device.name: {theirs!r}; the table is {device!r}'s")
        try:
            spec = load_spec(data["spec"])
        except KeyError:
            raise GenclError(f"{path}: spec: missing") from None
        records, _ = space_records(spec, data["results"])
        ok = [r for r in records if r.get("status") == "ok" and r.get("median_s")]
        points, sizes = [r["point"] for r in ok], [r["sizes"] for r in ok]
        stats = points_stats(spec, points, sizes, params, workers=workers)
        logs, code = built_facts(ok)
        preds = predict_from_stats(spec, points, sizes, stats, params, logs, code)
        measured = [float(time_per_sweep(spec, r) or 0.0) for r in ok]
        rows += table_rows(spec.name, preds, stats, measured, params)
        if progress:
            progress(os.fspath(path), len(ok))
    return ResidualTable(device, tuple(rows), tuple(os.fspath(p) for p in spaces))


def scored(rows: Sequence[Any]) -> dict[str, Any]:
    """ρ, share within ±15 %, median predicted/measured and the measured gap of the model's
    pick (``gencl.model._pick``) of ``AccuracyRow``s."""
    from gencl.model._explain import accuracy
    from gencl.model._pick import model_pick

    acc = accuracy([r.predicted_s for r in rows], [r.measured_s for r in rows])
    best = min(r.measured_s for r in rows)
    return {"spearman": acc.spearman, "within_15pct": acc.within_15pct,
            "median_ratio": acc.median_ratio,
            "predicted_best_gap": model_pick(rows).measured_s / best - 1}


def residual_accuracy(spec_name: str, rows: Sequence[Any], features: Sequence[Sequence[float]],
                      table: ResidualTable, table_path: str) -> dict[str, Any] | None:
    """The model corrected by the residual fitted without *spec_name*, scored over *rows*
    (``AccuracyRow``: predicted and measured per sweep; *features* one per row): ``scored``'s
    figures and what it was fitted on. None where the table holds no other kernel."""
    from dataclasses import replace

    residual = fit_residual(table, spec_name)
    if residual is None or len(rows) < 3:
        return None
    fixed = [replace(r, predicted_s=r.predicted_s * f, serial_s=r.serial_s * f)
             for r, f in zip(rows, residual.factors(features))]
    return {**scored(fixed), "table": table_path, "trained_on": list(residual.trained_on),
            "rows": residual.rows}


def score_table(table: ResidualTable, table_path: str) -> dict[str, Any]:
    """Leave one kernel out over the table: each kernel's rows scored as the terms price them
    and corrected by the residual fitted on the others (``residual_accuracy``), and the means
    over the kernels."""
    from gencl.model._explain import AccuracyRow

    kernels: dict[str, Any] = {}
    for name in table.kernels:
        own = [r for r in table.rows if r.spec == name]
        if len(own) < 3:
            continue
        rows = [AccuracyRow({"row": i}, r.predicted_s, r.measured_s, "", r.serial_s)
                for i, r in enumerate(own)]
        learned = residual_accuracy(name, rows, [r.features for r in own], table, table_path)
        kernels[name] = {"variants": len(own), "terms": scored(rows),
                         **({"residual": {k: learned[k] for k in
                                          ("spearman", "within_15pct", "median_ratio",
                                           "predicted_best_gap")}} if learned else {})}
    both = [k for k in kernels.values() if "residual" in k]

    def mean(which: str, key: str) -> float | None:
        return float(sum(k[which][key] for k in both) / len(both)) if both else None

    return {"table": table_path, "device": table.device, "kernels": kernels,
            "mean": {which: {key: mean(which, key) for key in ("spearman", "within_15pct")}
                     for which in ("terms", "residual")}}


def feature_rows(predictions: Sequence[Prediction | None], stats: Sequence[KernelStats | str],
                 params: ModelParams, keep: Sequence[bool] | None = None
                 ) -> list[list[float]]:
    """``residual_features`` of every prediction (where *keep* says so)."""
    keep = keep if keep is not None else [True] * len(predictions)
    return [residual_features(p, s, params) for p, s, k in zip(predictions, stats, keep)
            if k and p is not None and isinstance(s, KernelStats)]


def read_table(path: str | os.PathLike[str] | None, device: str
               ) -> tuple[ResidualTable, str] | None:
    """The table at *path*, else the committed one of *device*; None where neither is."""
    found = Path(path) if path else table_of_device(device)
    if found is None:
        return None
    # as a summary names its cache: relative to the working directory where it lies below it
    here = Path.cwd()
    name = os.path.relpath(found, here) if found.resolve().is_relative_to(here.resolve()) \
        else os.fspath(found)
    return load_table(found), name
