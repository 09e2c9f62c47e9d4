"""The microbenchmark suite: which specs it runs, and running them with resume.

The suite is every spec with an ``analysis`` whose ``group`` is compute, memory or runtime
(application kernels in tuning/ are the tuner's business). Each benchmark is saved into
profile.json as soon as it finishes, and its measurements stream to ``raw/<spec>.json`` while it
runs, so a killed ``gencl profile`` rerun with the same folder loses nothing that finished.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gencl._version import __version__
from gencl.errors import GenclError
from gencl.profile._profile import (
    PROFILE_FILE, BenchmarkResult, DeviceProfile, load_profile, now, save_profile)

#: Groups of specs that characterize the device (in the order they run).
SUITE_GROUPS = ("compute", "memory", "runtime")
#: a point stops sampling once the 95 % interval of its median is within this fraction of it (at
#: least 5 samples, at most --repeats): the H200's long walks agreed to 0.1 % and took 45 s of 25
#: samples
STOP_REL_CI = 0.005


@dataclass(frozen=True)
class SuiteEntry:
    """A spec of the suite, or the reason it could not be loaded."""

    name: str
    path: str
    spec: Any = None  # BenchmarkSpec
    error: str = ""

    @property
    def group(self) -> str:
        return self.spec.group if self.spec is not None else "?"


def discover_suite(only: Sequence[str] | None = None) -> list[SuiteEntry]:
    """Every suite spec, by group then name; *only* keeps those whose group or name is listed.

    A spec that does not load is kept as an entry with its error (the profile records it) as
    long as its name passes *only*: one broken spec must not stop the others.
    """
    from gencl.spec import list_spec_files, load_spec

    wanted = set(only or ())
    unknown = wanted - set(SUITE_GROUPS)
    entries = []
    for file in list_spec_files():
        if file.parent.name != "specs":
            continue
        try:
            spec = load_spec(str(file))
        except GenclError as exc:
            if not wanted or file.stem in wanted:
                entries.append(SuiteEntry(file.stem, str(file), error=str(exc)))
            continue
        if not spec.analysis or spec.group not in SUITE_GROUPS:
            continue
        if wanted and spec.group not in wanted and spec.name not in wanted:
            continue
        entries.append(SuiteEntry(spec.name, str(file), spec))
    found = {e.name for e in entries} | {e.group for e in entries}
    missing = sorted(unknown - found)
    if missing:
        raise GenclError(f"--only {' '.join(missing)}: not a group ({', '.join(SUITE_GROUPS)}) "
                         "or a suite benchmark")
    order = {g: i for i, g in enumerate(SUITE_GROUPS)}
    return sorted(entries, key=lambda e: (order.get(e.group, -1), e.name))


# {{{ one benchmark

def _clock_of(records: Sequence[dict[str, Any]], seen: float | None) -> float | None:
    import statistics

    clocks = [r["clock_hz"] for r in records if r.get("status") == "ok" and r.get("clock_hz")]
    return statistics.median(clocks) if clocks else seen


def analyse(name: str, analysis: str | None, records: Sequence[dict[str, Any]],
            device: dict[str, Any], clock_hz: float | None
            ) -> tuple[str, str, list[dict], dict, list[str]]:
    """Run the spec's analysis on *records*: (status, reason, characteristics, series, notes).

    An analysis that does not exist yet, or raises, is a benchmark status with its reason; the
    measurements stay and a later run re-analyses them without measuring again.
    """
    from gencl.characterize import get_analysis

    if not analysis:
        return "no_analysis", "the spec names no analysis", [], {}, []
    try:
        fn = get_analysis(analysis)
    except KeyError as exc:
        return "no_analysis", str(exc.args[0] if exc.args else exc), [], {}, []
    try:
        result = fn(records, device, clock_hz)
        data = result.to_json()
    except Exception as exc:  # noqa: BLE001 -- one analysis's bug must not lose the others
        first = (str(exc).strip().splitlines() or [""])[0]
        return "analysis_error", f"{analysis}: {type(exc).__name__}: {first}"[:400], [], {}, []
    return "ok", "", data["characteristics"], data["series"], data["notes"]


def measure_benchmark(entry: SuiteEntry, engine: Any, raw_dir: Path, *, quick: bool,
                      on_result: Callable[[Any], None] | None = None) -> tuple[list[dict], str]:
    """Measure one spec's sweep (resuming from ``raw/``); return (records, error or "")."""
    from gencl.measure import ResultsFile, results_header, run_points

    spec = entry.spec
    points = spec.sweep_points(engine.info, quick=quick)
    suffix = ".quick.json" if quick else ".json"
    sink = ResultsFile(raw_dir / f"{spec.name}{suffix}",
                       results_header(engine, spec=spec.name, quick=quick))
    error = ""
    try:  # run_points hands runtime benchmarks (spec.runner) to the spec itself
        run_points(spec, points, engine, quick=quick, sink=sink, on_result=on_result)
    except GenclError as exc:
        error = str(exc)
    except Exception as exc:  # noqa: BLE001 -- a benchmark that crashes is recorded, others run
        first = (str(exc).strip().splitlines() or [""])[0]
        error = f"{type(exc).__name__}: {first}"[:400]
        with contextlib.suppress(Exception):
            engine.reset()
    records = list(sink.results)  # one a point: a rerun's record supersedes (ResultsFile)
    if not error:
        sink.close()
    return records, error


# }}}


# {{{ the suite

def _open_profile(out: Path, engine: Any, quick: bool, fresh: bool) -> DeviceProfile:
    clock = {"reported_max_hz": float(engine.info.max_clock_hz), "seen_hz": None,
             "source": "reported maximum (no clock seen: nvidia-smi for an NVIDIA GPU, "
                       "/proc/cpuinfo with a cpufreq driver for a CPU)"}
    blank = DeviceProfile(device_json=engine.info.to_json(), clock=clock, quick=quick,
                          benchmarks={}, gencl_version=__version__)
    if fresh or not (out / PROFILE_FILE).exists():
        return blank
    old = load_profile(out)
    if old.device_json.get("slug") != engine.info.slug or old.device_json.get("name") != \
            engine.info.name:
        raise GenclError(f"{out / PROFILE_FILE}: device: holds a profile of "
                         f"{old.device_json.get('name')!r}, not {engine.info.name!r} "
                         "(use another --out, or --fresh to replace it)")
    if old.quick != quick:
        raise GenclError(f"{out / PROFILE_FILE}: quick: holds a {'quick' if old.quick else 'full'}"
                         f" profile; this run is {'quick' if quick else 'full'} "
                         "(use another --out, or --fresh to replace it)")
    return old


def _is_done(old: BenchmarkResult | None, entry: SuiteEntry) -> bool:
    return (old is not None and old.ok and entry.spec is not None
            and old.spec_source_hash == entry.spec.source_hash)


@contextlib.contextmanager
def _progress(enabled: bool) -> Iterator[Any]:
    if not enabled:
        yield None
        return
    from rich.progress import (
        BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn)

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), transient=False) as bar:
        yield bar


def run_profile(out: str | os.PathLike | None = None, *, device: str | int | None = None,
                quick: bool = False, only: Sequence[str] | None = None, fresh: bool = False,
                repeats: int | None = None, progress: bool = True,
                log: Callable[[str], None] | None = None,
                clpeak: bool | None = None) -> tuple[DeviceProfile, Path]:
    """Run the suite on *device* into *out* (default ``bench_results/<device-slug>/``; a quick run
    defaults to ``out/<device-slug>/``, so it never meets a committed full profile).

    Benchmarks already finished in *out* (same spec text, same mode) are skipped; benchmarks
    measured but not analysed are re-analysed without measuring. *clpeak* (None: when installed,
    full profiles only) runs clpeak on the same device as a peer (``peers.clpeak``), each of its
    tests right after the benchmark it compares with. Returns (profile, folder).
    """
    from gencl.measure import OpenCLEngine

    entries = discover_suite(only)
    engine = OpenCLEngine(device, repeats=repeats or (10 if quick else 25),
                          stop_rel_ci=STOP_REL_CI)
    folder = Path(out) if out else \
        Path("out" if quick else "bench_results") / engine.info.slug
    profile = _open_profile(folder, engine, quick, fresh)
    profile = _with_suite(profile, entries)
    raw = folder / "raw"
    is_gpu = engine.info.device_type.upper() == "GPU"
    say = log or (lambda _msg: None)
    seen: list[float] = []
    failures: dict[str, str] = {}  # reason → the first benchmark that failed for it
    peer_runs: dict[str, dict[str, Any]] = {}  # clpeak, by the benchmark it ran beside
    with _progress(progress) as bar:
        overall = bar.add_task("profile", total=len(entries)) if bar else None
        for entry in entries:
            old = profile.benchmarks.get(entry.name)
            if _is_done(old, entry):
                say(f"{entry.name}: done earlier, skipped")
                if bar:
                    bar.advance(overall)
                continue
            result = _run_one(entry, engine, raw, old, quick=quick, bar=bar, say=say)
            if result.clock_hz:
                seen.append(result.clock_hz)
            profile = profile.with_benchmark(result)
            profile = _with_clock(profile, seen, is_gpu)
            save_profile(profile, folder)
            say(_outcome(entry.name, result, failures))
            if not result.ok:
                failures.setdefault(result.reason, entry.name)
            _clpeak_beside(peer_runs, entry.name, engine, clpeak, quick, say)
            if bar:
                bar.advance(overall)
    profile = _with_clock(profile, seen, is_gpu)
    for entry in entries:  # benchmarks done earlier: their clpeak tests now
        _clpeak_beside(peer_runs, entry.name, engine, clpeak, quick, say)
    if peer_runs:  # laid over the stored record: --only NAME keeps the other figures
        from gencl.profile import _clpeak

        profile = profile.with_peer("clpeak", _clpeak.update_record(
            profile.peers.get("clpeak"), _clpeak.merge_runs(list(peer_runs.values()))))
    save_profile(profile, folder)
    return profile, folder


def _outcome(name: str, result: BenchmarkResult, failures: dict[str, str]) -> str:
    """A benchmark's line in the log: the first failure says its cause and fix in full, a later
    one with the same cause points to it."""
    if result.ok or not result.reason:
        return f"{name}: {result.status}"
    if result.reason in failures:
        return f"{name}: {result.status} (same cause as {failures[result.reason]})"
    return f"{name}: {result.status}: {result.reason}"


def _clpeak_beside(runs: dict[str, dict[str, Any]], benchmark: str, engine: Any,
                   enabled: bool | None, quick: bool, say: Callable[[str], None]) -> None:
    """clpeak's tests of *benchmark*'s figures, right after it (a shared machine's load moves
    within minutes: a figure compared is measured by both tools close together), once."""
    from gencl.device import clock_paused
    from gencl.profile import _clpeak

    if benchmark in runs or not _clpeak.shared(benchmark) or not _clpeak.wanted(enabled, quick):
        return
    say(f"clpeak: {benchmark}'s figures on the same device (--no-clpeak skips it)")
    with clock_paused():  # gencl's clock probe must not slow the peer down
        record = {"date": now(), **_clpeak.run_clpeak(engine.cl_device, [benchmark])}
    say(f"clpeak: {record['status']}" + (f" ({record['reason']})" if record["reason"] else
                                         f", {record.get('elapsed_s')} s"))
    runs[benchmark] = record


def _run_one(entry: SuiteEntry, engine: Any, raw: Path, old: BenchmarkResult | None, *,
             quick: bool, bar: Any, say: Callable[[str], None]) -> BenchmarkResult:
    from gencl.device import ClockMonitor, clock_paused

    started, t0 = now(), time.perf_counter()
    if entry.spec is None:
        return BenchmarkResult(entry.name, None, "?", "load_error", entry.error, entry.path, "",
                               False, (), (), {}, (), started, now(), 0.0, None)
    spec = entry.spec
    skipped = _skipped_here(spec, engine.info, quick)
    if skipped:
        return BenchmarkResult(spec.name, spec.analysis, spec.group, "skipped", skipped,
                               spec.path, spec.source_hash, False, (), (), {}, (), started,
                               now(), round(time.perf_counter() - t0, 3), None)
    reuse = (old is not None and old.measured and old.spec_source_hash == spec.source_hash)
    error, clock_seen = "", None
    if reuse and old is not None:
        records = [dict(r) for r in old.measurements]
        say(f"{spec.name}: measured earlier, analysing again")
    else:
        task = bar.add_task(f"  {spec.name}", total=len(spec.sweep_points(engine.info,
                                                                          quick=quick))) \
            if bar else None
        advance = (lambda _m: bar.advance(task)) if bar else None
        clock = ClockMonitor(engine.info.device_type.upper() == "GPU")
        with clock if spec.watch_clock else clock_paused():  # unwatched: no clock, on purpose
            records, error = measure_benchmark(entry, engine, raw, quick=quick,
                                               on_result=advance)
        clock_seen = clock.median_hz
        if bar:
            bar.remove_task(task)
    clock_hz = _clock_of(records, clock_seen)
    measured = not error
    if error:
        status, reason = "error", error
        chars: list[Any] = []
        series: dict[str, Any] = {}
        notes: list[str] = []
    elif not any(r.get("status") == "ok" for r in records):
        # nothing to analyse: the benchmark failed, with its dominant reason (never "ok"); not
        # kept as measured, so a rerun measures again instead of re-analysing the failures
        from gencl.measure import explain_failure

        status, reason = "failed", explain_failure(records, engine.info.to_json())
        chars, series, notes = [], {}, []
        measured = False
    else:
        status, reason, chars, series, notes = analyse(
            spec.name, spec.analysis, records, engine.info.to_json(), clock_hz)
    return BenchmarkResult(
        spec.name, spec.analysis, spec.group, status, reason, spec.path, spec.source_hash,
        measured, tuple(records), tuple(chars), series, tuple(notes), started, now(),
        round(time.perf_counter() - t0, 3), clock_hz)


def reanalyse_profile(profile: DeviceProfile, only: Sequence[str] | None = None
                      ) -> DeviceProfile:
    """The profile with each measured benchmark (or those named in *only*) analysed again from
    the measurements it stores (the records of ``raw/<spec>.json``), by today's analyses: no
    device, nothing measured; each benchmark keeps its clock and its measurements.

    Raises:
        GenclError: a name in *only* that the profile has not measured.
    """
    import dataclasses

    measured = {n: b for n, b in profile.benchmarks.items() if b.measured and b.measurements}
    unknown = sorted(set(only or ()) - set(measured))
    if unknown:
        raise GenclError(f"{profile.path or 'profile'}: --only {' '.join(unknown)}: not a "
                         f"measured benchmark of this profile ({', '.join(sorted(measured))})")
    for name, b in measured.items():
        if only and name not in only:
            continue
        status, reason, chars, series, notes = analyse(
            name, b.analysis, [dict(r) for r in b.measurements], dict(profile.device_json),
            b.clock_hz)
        profile = profile.with_benchmark(dataclasses.replace(
            b, status=status, reason=reason, characteristics=tuple(chars), series=series,
            notes=tuple(notes)))
    return profile


def _skipped_here(spec: Any, info: Any, quick: bool) -> str:
    """Why *spec* runs nothing on this device (every point of its sweep is excluded here), or
    "" when some point runs: such a benchmark is ``skipped`` with that reason, never ``ok``."""
    wanted = (spec.quick_sweep if quick else ()) or spec.sweep
    if not wanted or spec.sweep_points(info, quick=quick):
        return ""
    reasons = {spec.excluded(spec.complete(p), info) or "" for p in wanted} - {""}
    return "; ".join(sorted(reasons)) or "every point is excluded on this device"


def _with_suite(profile: DeviceProfile, entries: Sequence[SuiteEntry]) -> DeviceProfile:
    import dataclasses

    names = list(profile.suite) + [e.name for e in entries if e.name not in profile.suite]
    return dataclasses.replace(profile, suite=tuple(names))


def _with_clock(profile: DeviceProfile, seen: Sequence[float], is_gpu: bool) -> DeviceProfile:
    """The median of the clocks the benchmarks saw (each the median of its measurements')."""
    import dataclasses
    import statistics

    if not seen:
        return profile
    hz = statistics.median(seen)
    source = "nvidia-smi SM clock during the run" if is_gpu else \
        "/proc/cpuinfo during the run (mean over cores)"
    return dataclasses.replace(profile, clock={**profile.clock, "seen_hz": float(hz),
                                               "source": source})

# }}}
