"""Measure a spec's points: generate → build → verify → time, one Measurement each, never aborting."""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from gencl._json import dumps_json
from gencl._version import __version__
from gencl.generate import GenerationFailure, Variant, generate_many
from gencl.measure._build import BuildFailure
from gencl.measure._engine import OpenCLEngine, Timeout, check_assumptions, compare
from gencl.measure._measurement import Measurement, device_error_status
from gencl.spec import BenchmarkSpec

SCHEMA_VERSION = "1.0"


def _failed(variant_id: str, spec: BenchmarkSpec, point: Mapping, sizes: Mapping, status: str,
            reason: str, **extra: Any) -> Measurement:
    return Measurement(variant_id, spec.name, dict(point), dict(sizes), status, reason, **extra)


def tolerance(spec: BenchmarkSpec, dtype: np.dtype) -> float:
    return float(spec.tolerance.get(np.dtype(dtype).name, 0.0))


def verify_variant(engine: OpenCLEngine, spec: BenchmarkSpec, built: Any,
                   sizes: Mapping[str, int], values: Mapping[str, Any]) -> float:
    """Run once on *values* with outputs poisoned; return the scaled max error (≤ 1 passes)."""
    bound = engine.bind(built, sizes, values)
    try:
        engine.run_once(built, bound)
        got = engine.read_outputs(bound)
    finally:
        bound.release()
    expected = spec.reference(values, built.variant.point, sizes)
    worst = 0.0
    for name, exp in expected.items():
        exp = np.asarray(exp)
        out = got[name]
        if out.size != exp.size:  # the spec's bug, not the kernel's: an error, not wrong_answer
            raise ValueError(f"reference() gives {name} {exp.size} elements, the kernel writes "
                             f"{out.size} (spec {spec.path or spec.name})")
        error = compare(out.reshape(exp.shape), exp, tolerance(spec, exp.dtype) or 0.0)
        worst = error if not error <= worst else worst  # a NaN error must win, not vanish
    return worst


def measure_variant(engine: OpenCLEngine, spec: BenchmarkSpec, variant: Variant,
                    sizes: Mapping[str, int], *, seed: int = 0, verify: bool = True,
                    min_time_s: float | None = None) -> Measurement:
    """Build, verify once against numpy, and time one variant; failures become statuses."""
    point, sizes = variant.point, dict(sizes)
    base = dict(source_hash=variant.source_hash)
    reason = check_assumptions(variant, sizes)
    if reason:
        return _failed(variant.id, spec, point, sizes, "invalid_size", reason, **base)
    try:
        built = engine.build(variant)
    except BuildFailure as exc:
        return _failed(variant.id, spec, point, sizes, exc.status, exc.reason, build_log=exc.log,
                       **base)
    base.update(binary_hash=built.binary_hash, build_log=built.build_log[-4000:])
    rng = np.random.default_rng(seed)
    values = spec.inputs(point, sizes, rng)
    try:
        bound_check = engine.bind(built, sizes, values)
        problem = engine.check_resources(built, bound_check)
        bound_check.release()
        if problem:
            return _failed(variant.id, spec, point, sizes, "out_of_resources", problem, **base)
        max_error = None
        if verify:
            vsizes = spec.verify_sizes(point, engine.info) if spec.verify_sizes else sizes
            vvalues = spec.inputs(point, vsizes, rng) if spec.verify_sizes else values
            reason = check_assumptions(variant, vsizes)
            if reason:
                return _failed(variant.id, spec, point, sizes, "invalid_size", reason, **base)
            max_error = verify_variant(engine, spec, built, vsizes, vvalues)
            if not max_error <= 1.0:
                return _failed(variant.id, spec, point, sizes, "wrong_answer",
                               f"max scaled error {max_error:.3g} > 1 (tolerance "
                               f"{dict(spec.tolerance)})", max_error=max_error, **base)
        input_bytes = sum(np.asarray(v).nbytes for v in values.values() if not np.isscalar(v))
        copies = engine.rotation_copies(input_bytes) if spec.rotate_buffers else 1
        bound = engine.bind(built, sizes, values, copies=copies)
        try:
            timing = engine.time(built, bound, min_time_s=min_time_s)
        finally:
            bound.release()
    except Timeout as exc:
        engine.reset()
        return _failed(variant.id, spec, point, sizes, "timeout", str(exc), **base)
    except Exception as exc:  # noqa: BLE001 -- a device error on one variant must not end the run
        status = device_error_status(exc)
        engine.reset()
        return _failed(variant.id, spec, point, sizes, status,
                       f"{type(exc).__name__}: {str(exc).strip()[:300]}", **base)
    samples = timing.pop("samples_s")
    work = {name: float(f(point, sizes)) for name, f in spec.metrics.items()}
    return Measurement.timed(
        variant.id, spec.name, dict(point), sizes, samples, work=work, max_error=max_error,
        extra={"rotation_copies": copies, "build_s": built.build_s,
               "codegen_s": variant.codegen_s}, **timing, **base)


class ResultsFile:
    """Measurements streamed to disk as they finish: ``<path>.partial.jsonl``, then ``<path>``.

    An interrupted run keeps every finished measurement; ``done_ids`` lets a rerun skip them.
    The partial file starts with the run's header; a rerun whose header differs in what was
    measured (spec, quick or full sizes, size overrides, device: ``run_identity``) is refused
    rather than mixed into the same file, and so is one over a finished file of another run.
    """

    def __init__(self, path: str | os.PathLike, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.partial = self.path.with_name(self.path.name + ".partial.jsonl")
        self.header = header
        self.results: list[dict[str, Any]] = []
        if self.partial.exists():
            for line in self.partial.read_text().splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # the line being written when the run was killed
                if isinstance(record, dict) and HEADER_KEY in record:
                    check_same_run(self.partial, record[HEADER_KEY], header)
                else:
                    self.results.append(record)
        elif self.path.is_file():
            check_same_run(self.path, read_results_header(self.path), header)

    @property
    def done_ids(self) -> set[str]:
        return {r["variant_id"] for r in self.results}

    def add(self, measurement: Measurement) -> None:
        record = measurement.to_json()
        self.results.append(record)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.partial.exists()
        with self.partial.open("a") as f:
            if fresh:
                f.write(dumps_json({HEADER_KEY: self.header}) + "\n")
            f.write(dumps_json(record) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def close(self) -> None:
        data = {**self.header, "results": self.results}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(dumps_json(data, indent=1))
        tmp.replace(self.path)
        self.partial.unlink(missing_ok=True)


#: first line of a partial results file: the run's header
HEADER_KEY = "results_header"
#: header fields that say what a results file measured: one file holds one value of each
RUN_IDENTITY = ("spec", "quick", "size_overrides")


def run_identity(header: Mapping[str, Any]) -> dict[str, Any]:
    """What was measured, by a results header: spec, quick, size overrides and device."""
    identity = {k: header.get(k) or None for k in RUN_IDENTITY}
    device = header.get("device")
    identity["device"] = device.get("name") if isinstance(device, Mapping) else device
    return identity


def read_results_header(path: Path) -> dict[str, Any]:
    """The header of a finished results file (everything but its results)."""
    from gencl.errors import GenclError

    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise GenclError(f"{path}: not a results file ({exc}); give another --json path or "
                         "delete it") from None
    if not isinstance(data, dict):
        raise GenclError(f"{path}: not a results file; give another --json path or delete it")
    return {k: v for k, v in data.items() if k != "results"}


def check_same_run(path: Path, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    """Refuse to add results of one run to a file holding another's (sizes, spec, device)."""
    from gencl.errors import GenclError

    before, now = run_identity(old), run_identity(new)
    differ = [k for k in now if before[k] != now[k]]
    if differ:
        said = "; ".join(f"{k} {before[k]!r} there, {now[k]!r} now" for k in differ)
        raise GenclError(f"{path}: holds results of another run ({said}); give another --json "
                         "path, or delete the file to start over")


def results_header(engine: OpenCLEngine, **extra: Any) -> dict[str, Any]:
    """What every results file says about where and when its numbers were measured."""
    return {"schema_version": SCHEMA_VERSION, "gencl_version": __version__,
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "device": engine.info.to_json(), **extra}


def run_points(spec: BenchmarkSpec, points: Iterable[dict[str, Any]], engine: OpenCLEngine, *,
               quick: bool = False, size_overrides: Mapping[str, int] | None = None,
               sink: ResultsFile | None = None, verify: bool = True,
               on_result: Callable[[Measurement], None] | None = None) -> list[Measurement]:
    """Measure every point in order; each result goes to *sink* as soon as it exists."""
    points = list(points)
    if spec.runner is not None:  # a benchmark of the runtime: the spec measures itself
        out = list(spec.runner(engine, spec, points, quick))
        for m in out:
            if sink:
                sink.add(m)
            if on_result:
                on_result(m)
        return out
    variants = generate_many(spec, points)
    done = sink.done_ids if sink else set()
    out: list[Measurement] = []
    for point, variant in zip(points, variants):
        sizes = {**spec.sizes(point, engine.info, quick), **(size_overrides or {})}
        if isinstance(variant, GenerationFailure):
            m = _failed(variant.id, spec, point, sizes, "excluded", variant.reason)
        elif variant.id in done:
            continue
        else:
            m = measure_variant(engine, spec, variant, sizes, verify=verify)
        out.append(m)
        if sink:
            sink.add(m)
        if on_result:
            on_result(m)
    return out
