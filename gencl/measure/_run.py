"""The one measure pipeline (run, space, tune, verify): generate → build → verify → time.

One Measurement per point, never aborting; what differs between the commands is a parameter
(correctness-only, shared timing buffers, check sizes and launches), not a copy of the loop.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gencl._json import dumps_json
from gencl._version import __version__
from gencl.generate import GenerationFailure, Variant, generate_many, variant_id
from gencl.measure._build import Built, BuildFailure
from gencl.measure._engine import OpenCLEngine, Timeout, check_assumptions, compare
from gencl.measure._inputs import FreshInputs, ReusedInputs, TimingInputs, draw_inputs
from gencl.measure._isa import work_group_isa
from gencl.measure._measurement import Measurement, device_error_status
from gencl.measure._rounds import retime_in_rounds
from gencl.measure._sweeps import one_sweep_form
from gencl.spec import BenchmarkSpec, steps_per_launch

SCHEMA_VERSION = "1.0"


#: launches a kernel with ping-pong buffers runs (output → input) before its answer is checked
PING_PONG_LAUNCHES = 3


def _failed(variant_id: str, spec: BenchmarkSpec, point: Mapping, sizes: Mapping, status: str,
            reason: str, **extra: Any) -> Measurement:
    return Measurement(variant_id, spec.name, dict(point), dict(sizes), status, reason, **extra)


def tolerance(spec: BenchmarkSpec, dtype: np.dtype) -> float:
    return float(spec.tolerance.get(np.dtype(dtype).name, 0.0))


def check_launches(spec: BenchmarkSpec) -> int:
    """Launches the correctness check runs: several when outputs feed inputs (a time step)."""
    return PING_PONG_LAUNCHES if spec.hooks.ping_pong else 1


def reference_after(spec: BenchmarkSpec, values: Mapping[str, Any], point: Mapping[str, Any],
                    sizes: Mapping[str, int], launches: int = 1) -> dict[str, Any]:
    """The numpy reference of *launches* launches: each ping-pong pair's output becomes the next
    launch's input, and the input's old content the output buffer's (as the swap on the device).
    A launch of k sweeps (``steps_per_launch``) is k sweeps of the point's one-sweep form."""
    steps = steps_per_launch(spec, point)
    form = point if steps == 1 else one_sweep_form(point)
    current = dict(values)
    expected = spec.reference(current, form, sizes)
    for _ in range(launches * steps - 1):
        for out, inp in spec.hooks.ping_pong:
            current[out], current[inp] = current.get(inp), expected[out]
        expected = spec.reference(current, form, sizes)
    return expected


def _launch_ping_pong(engine: OpenCLEngine, built: Any, bound: Any, launches: int,
                      pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Launch *launches* times, swapping each pair's buffers after every launch; return the
    buffer holding each paired output's last result."""
    import pyopencl as cl

    names = [a.name for a in built.variant.args]
    args = list(bound.arg_sets[0])
    slots = [(names.index(out), names.index(inp)) for out, inp in pairs]
    for _ in range(launches):
        built.kernel.set_args(*args)
        cl.enqueue_nd_range_kernel(engine.queue, built.kernel, bound.global_size,
                                   bound.local_size)
        for o, i in slots:
            args[o], args[i] = args[i], args[o]
    engine.queue.finish()
    # after the last swap the buffer written last sits in the input's slot
    return {out: args[i] for (out, _), (_, i) in zip(pairs, slots)}


class OutOfResources(Exception):
    """A launch the device cannot hold (``OpenCLEngine.check_resources``), refused before it
    runs: PoCL does not return CL_OUT_OF_RESOURCES for a kernel's ``__local`` arrays beyond its
    local memory, it aborts the process (an assertion in its pthread device)."""


def verify_variant(engine: OpenCLEngine, spec: BenchmarkSpec, built: Any,
                   sizes: Mapping[str, int], values: Mapping[str, Any], *,
                   launches: int = 1) -> float:
    """Run on *values* with outputs poisoned (over *launches* ping-pong launches when the spec
    declares pairs); return the scaled max error against numpy (≤ 1 passes). OutOfResources
    where the device cannot hold the launch."""
    pairs = spec.hooks.ping_pong if launches > 1 else ()
    bound = engine.bind(built, sizes, values)
    problem = engine.check_resources(built, bound)
    if problem:
        bound.release()
        raise OutOfResources(problem)
    try:
        if pairs:
            bound.outputs.update(_launch_ping_pong(engine, built, bound, launches, pairs))
        else:
            engine.run_once(built, bound)
        got = engine.read_outputs(bound)
    finally:
        bound.release()
    expected = reference_after(spec, values, built.variant.point, sizes, launches if pairs else 1)
    # rounding differences grow with the sweeps
    scale = launches * steps_per_launch(spec, built.variant.point) if pairs else 1
    worst = 0.0
    for name, exp in expected.items():
        exp = np.asarray(exp)
        if name not in got:
            return float("inf")
        out = got[name]
        if out.size != exp.size:  # the spec's bug, not the kernel's: an error, not wrong_answer
            raise ValueError(f"reference() gives {name} {exp.size} elements, the kernel writes "
                             f"{out.size} (spec {spec.path or spec.name})")
        error = compare(out.reshape(exp.shape), exp, tolerance(spec, exp.dtype) * scale)
        worst = error if not error <= worst else worst  # a NaN error must win, not vanish
    return worst


@dataclass
class Evaluation:
    """One variant through the pipeline: its Measurement, and the build when there was one."""

    measurement: Measurement
    built: Built | None = None


def evaluate_variant(engine: OpenCLEngine, spec: BenchmarkSpec, variant: Variant,
                     sizes: Mapping[str, int], *, seed: int = 0, verify: bool = True,
                     verify_sizes: Mapping[str, int] | None = None,
                     launches: int | None = None, timing: TimingInputs | None = None,
                     time: bool = True, min_time_s: float | None = None) -> Evaluation:
    """The one measure pipeline: assumptions → build → resources → verify vs numpy → time.

    Every failure becomes a status with its reason; nothing raises for a variant's fault.

    Args:
        sizes: the timing sizes.
        verify_sizes: the correctness sizes (default: the spec's ``verify_sizes``, else *sizes*).
        launches: launches of the correctness check (default ``check_launches(spec)``).
        timing: where the timing data comes from (default ``FreshInputs``: per variant, rotated
            when the spec asks); ``ReusedInputs`` keeps one draw for the next points of a run,
            ``SharedInputs`` shares buffers across a space.
        time: False for a correctness check only (``gencl verify``): an ok Measurement without
            samples.
    """
    point, sizes = variant.point, dict(sizes)
    base: dict[str, Any] = {"source_hash": variant.source_hash}
    if verify_sizes is None and spec.verify_sizes is not None:
        verify_sizes = spec.verify_sizes(point, engine.info)
    vsizes = dict(verify_sizes) if verify_sizes is not None else sizes
    launches = check_launches(spec) if launches is None else launches
    timing = timing or FreshInputs(spec, seed=seed)

    def failed(status: str, reason: str, **extra: Any) -> Evaluation:
        return Evaluation(_failed(variant.id, spec, point, sizes, status, reason, **base,
                                  **extra), built)

    built = None
    for size_set in ((sizes, vsizes) if time else (vsizes,)):
        reason = check_assumptions(variant, size_set)
        if reason:
            return failed("invalid_size", reason)
    try:
        built = engine.build(variant)
    except BuildFailure as exc:
        return failed(exc.status, exc.reason, build_log=exc.log)
    base.update(binary_hash=built.binary_hash, build_log=built.build_log[-4000:])
    max_error = None
    try:
        check_draw = draw_inputs(spec, point, vsizes, seed=seed)
        check_values = check_draw.values
        check = engine.bind(built, vsizes, check_values)
        problem = engine.check_resources(built, check)
        check.release()
        if problem:
            return failed("out_of_resources", problem)
        if verify:
            max_error = verify_variant(engine, spec, built, vsizes, check_values,
                                       launches=launches)
            if not max_error <= 1.0:
                return failed("wrong_answer", f"max scaled error {max_error:.3g} > 1 after "
                              f"{launches} launch{'es' if launches > 1 else ''} at {vsizes} "
                              f"(tolerance {dict(spec.tolerance)})", max_error=max_error)
        if not time:
            return Evaluation(Measurement(variant.id, spec.name, dict(point), sizes, "ok",
                                          max_error=max_error, **base), built)
        bound = timing.bind(engine, built, sizes, check_draw)  # its data, where the same
        try:
            timed = engine.time(built, bound, min_time_s=min_time_s)
        finally:
            timing.done(bound)
        # what a CPU runtime compiled for the timed work-group (PoCL: its kernel cache holds
        # the function since the first launch); the model reads whether the items ran as lanes
        isa = work_group_isa(built.binary, variant.kernel_name, bound.local_size) \
            if engine.info.device_type == "CPU" else None
    except Timeout as exc:
        engine.reset()
        _forget(timing)
        return failed("timeout", str(exc))
    except Exception as exc:  # noqa: BLE001 -- a device error on one variant must not end the run
        status = device_error_status(exc)
        engine.reset()
        _forget(timing)
        return failed(status, f"{type(exc).__name__}: {str(exc).strip()[:300]}")
    samples = timed.pop("samples_s")
    work = {name: float(f(point, sizes)) for name, f in spec.metrics.items()}
    m = Measurement.timed(
        variant.id, spec.name, dict(point), sizes, samples, work=work, max_error=max_error,
        extra={"rotation_copies": timing.rotation_copies(), "build_s": built.build_s,
               "codegen_s": variant.codegen_s, "verify_launches": launches,
               "verify_sizes": vsizes,
               **({"steps": steps} if (steps := steps_per_launch(spec, point)) > 1 else {}),
               # the load rounds ptxas scheduled, where the CUDA toolkit is here (the model
               # reads them as it reads the build log's registers)
               **({"sass": built.sass} if built.sass else {}),
               **({"isa": isa} if isa else {})},
        **timed, **base)
    return Evaluation(m, built)


def _forget(timing: TimingInputs) -> None:
    """Drop buffers kept for later variants: after a device error they may be lost with it."""
    import contextlib

    with contextlib.suppress(Exception):
        timing.release()


def measure_variant(engine: OpenCLEngine, spec: BenchmarkSpec, variant: Variant,
                    sizes: Mapping[str, int], **options: Any) -> Measurement:
    """Build, verify against numpy, and time one variant (``evaluate_variant``'s Measurement)."""
    return evaluate_variant(engine, spec, variant, sizes, **options).measurement


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
            found, self.results = read_partial(self.partial)
            if found is not None:
                check_same_run(self.partial, found, header)
        elif self.path.is_file():
            check_same_run(self.path, read_results_header(self.path), header)
        #: record key (``_record_key``) → its place in ``results``
        self._at = {_record_key(r): k for k, r in enumerate(self.results)}

    @property
    def done_ids(self) -> set[str]:
        return {r["variant_id"] for r in self.results}

    def add(self, measurement: Measurement) -> None:
        """A new record; one of the same point under another variant id (code an older
        generator or loopy made, measured into this file before) is superseded by it."""
        record = measurement.to_json()
        key = _record_key(record)
        if key in self._at:
            self.results[self._at[key]] = record
        else:
            self._at[key] = len(self.results)
            self.results.append(record)
        self._stream(record)

    def replace(self, measurement: Measurement) -> None:
        """A record measured again (interleaved rounds) in place of its first: streamed after
        it, so an interrupted run reads the later one (``read_partial``)."""
        record = measurement.to_json()
        self.results[self._at[_record_key(record)]] = record
        self._stream(record)

    def _stream(self, record: dict[str, Any]) -> None:
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


def read_partial(path: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """(header, records) of a partial results stream: what an interrupted run measured. A line
    cut off by the kill (the one being written) is skipped; a point streamed twice (measured
    again in interleaved rounds, or under a new variant id) is its later record, in its first
    one's place."""
    header: dict[str, Any] | None = None
    records: dict[str, dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and HEADER_KEY in record:
            header = record[HEADER_KEY]
        elif isinstance(record, dict):
            records[_record_key(record)] = record  # a later record of a point supersedes
    return header, list(records.values())


def _record_key(record: Mapping[str, Any]) -> str:
    """What one record of a results file stands for: its point (one record a point: the
    variant id changes with the generator's code, the point does not), else its variant id."""
    point = record.get("point")
    return json.dumps(point, sort_keys=True, default=str) if isinstance(point, dict) \
        else str(record.get("variant_id"))


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
        mine = list(spec.runner(engine, spec, points, quick))
        for m in mine:
            if sink:
                sink.add(m)
            if on_result:
                on_result(m)
        return mine
    # points this device excludes (a device without images, a work-group above its limit) are
    # recorded as excluded with the reason, not generated or run
    excluded = [spec.excluded(p, engine.info) for p in points]
    runnable = iter(generate_many(spec, [p for p, why in zip(points, excluded) if not why]))
    variants: list[Variant | GenerationFailure | str] = [
        why if why else next(runnable) for why in excluded]
    done = sink.done_ids if sink else set()
    # compiles in threads first (the OpenCL compiler runs without the GIL): a sweep's builds
    # were its largest host cost after the inputs (chain: 138 builds, 24 s one after another)
    engine.prebuild([v for v in variants if isinstance(v, Variant) and v.id not in done])
    timing = ReusedInputs(spec)  # consecutive points that draw the same data share it
    out: list[Measurement] = []
    try:
        for point, variant in zip(points, variants):
            if isinstance(variant, str):  # the reason this device excludes the point
                m = _failed(variant_id(spec, point), spec, point, {}, "excluded", variant)
                if m.variant_id in done:
                    continue
            else:
                sizes = {**spec.sizes(point, engine.info, quick), **(size_overrides or {})}
                if isinstance(variant, GenerationFailure):
                    m = _failed(variant.id, spec, point, sizes, "excluded", variant.reason)
                elif variant.id in done:
                    continue
                else:
                    m = measure_variant(engine, spec, variant, sizes, verify=verify,
                                        timing=timing)
            out.append(m)
            if sink:
                sink.add(m)
            if on_result:
                on_result(m)
    finally:
        _forget(timing)
    if spec.rounds:
        out = _in_rounds(spec, engine, variants, out, sink)
    return out


def _in_rounds(spec: BenchmarkSpec, engine: OpenCLEngine, variants: Sequence[Any],
               measured: list[Measurement], sink: ResultsFile | None) -> list[Measurement]:
    """*measured*, its ok records timed again in the spec's interleaved rounds, each streamed
    in place of its first record. Only this call's: a resumed run's earlier records keep their
    times (run it again without the file to time them all together)."""
    made = {v.id: v for v in variants if isinstance(v, Variant)}
    entries = [(made[m.variant_id], m) for m in measured
               if m.status == "ok" and m.variant_id in made]
    again = {m.variant_id: m for m in retime_in_rounds(engine, spec, entries, spec.rounds,
                                                      sink=sink)}
    return [again.get(m.variant_id, m) for m in measured]
