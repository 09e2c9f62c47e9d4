"""One tuning run, and one simulation of search strategies: what ``gencl tune`` does, as calls."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gencl._json import dumps_json
from gencl.errors import GenclError
from gencl.tune._study import SIMULATED_SAMPLERS


@dataclass
class TuneRun:
    """A finished study: the best variant found and where it was written."""

    study: Any  # optuna.Study
    best: dict[str, Any]  # best.json: point, time_per_sweep_s, steps, median_s, trial, …
    out: Path
    storage: str
    point: dict[str, Any] | None = None  # the best point, with the space's own values
    device: dict[str, Any] = field(default_factory=dict)  # DeviceInfo JSON of the tuned device

    @property
    def time_s(self) -> float:
        """Seconds per sweep of the best point (what the study minimised)."""
        return float(self.best.get("time_per_sweep_s", self.best["median_s"]))


def _worker_argv(spec: Any, *, trials: int, sampler: str, storage: str, study: str,
                 workers: int, fixed: Mapping[str, Any], sizes: Mapping[str, int],
                 seed: int | None, quick: bool, replay: str | None, profile: str | None,
                 out: str | Path | None) -> list[str]:
    """The ``gencl tune`` command line each worker process runs on the shared study."""
    if not spec.path:
        raise GenclError(f"{spec.name}: an in-memory spec runs in one process; several workers "
                         "need the spec in a file")
    argv = [spec.path, "--trials", str(trials), "--sampler", sampler, "--storage", storage,
            "--study", study, "--workers", str(workers)]
    for flag, value in (("--replay", replay), ("--profile", profile), ("--out", out)):
        if value:
            argv += [flag, str(value)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    if quick:
        argv.append("--quick")
    argv += [a for k, v in fixed.items() for a in ("--knob", f"{k}={v!r}")]
    argv += [a for k, v in sizes.items() for a in ("--size", f"{k}={v}")]
    return argv


def tune_spec(spec: Any, *, device: str | int | None = None, trials: int = 40,
              sampler: str = "guided", fixed: Mapping[str, Any] | None = None,
              sizes: Mapping[str, int] | None = None, quick: bool = False,
              seed: int | None = None, storage: str | None = None, study: str | None = None,
              workers: int = 1, replay: str | None = None, profile: str | None = None,
              out: str | Path | None = None, callbacks: Sequence[Any] = (),
              predict_progress: Callable[[str, int], Any] | None = None,
              warn: Callable[[str], Any] | None = None) -> TuneRun:
    """Tune *spec* with an Optuna study on a device (or replayed from a measured space).

    Args:
        trials: finished trials the study holds at the end (shared by every worker).
        sampler: ``guided`` (the model, corrected by measurements), ``tpe``, ``random``, ``grid``.
        fixed: axes held fixed; sizes: problem sizes over the spec's; quick: its quick sizes.
        storage: Optuna storage URL or ``journal:PATH`` (default: SQLite next to the results).
        workers: processes on one study (one per GPU where there are several).
        replay: a measured space (``space.json``) answering instead of a device.
        profile: the device profile's summary.json for the model.
        out: folder of best.json, best.cl, t4_results.json (default
            ``bench_results/<device>/tuning``, with *quick* ``out/…``).
        callbacks: Optuna trial callbacks (progress: ``gencl.tune._progress.TrialProgress``).
        predict_progress: ``(spec name, variants) -> progress(k)`` for each batch the guided
            sampler counts (the first before trial 1: gencl.tune._lazy).
        warn: called with a line the user should read before trial 1 (the guided sampler's
            model prices nominal numbers: the slug's committed profile is another device's).
    """
    import optuna

    from gencl.model import load_params
    from gencl.tune._kerneltuner import export_t4
    from gencl.tune._objective import DeviceEvaluator
    from gencl.tune._replay import ReplayEngine
    from gencl.tune._sampler import knob_preferences
    from gencl.tune._space import SearchSpace
    from gencl.tune._storage import open_storage, storage_url
    from gencl.tune._study import (
        best_trial, lazy_predictor, make_sampler, run_study, write_best)

    from gencl.space._run import check_fixed

    # names and values checked against the space, one line each (an unknown knob was once
    # ignored: the whole space tuned)
    fixed, size_overrides = check_fixed(spec, dict(fixed or {})), dict(sizes or {})
    evaluator: Any
    if replay:
        from gencl.model import point_key
        from gencl.tune._simulate import fixed_from_records

        evaluator = ReplayEngine(replay, delay_s=float(os.environ.get("GENCL_REPLAY_DELAY_S", 0)),
                                 spec=spec)
        fixed = {**fixed_from_records(spec, evaluator.records), **fixed}
        device_json = evaluator.device
        table = {point_key(r["point"]): r.get("sizes", {}) for r in evaluator.records}

        def sizes_of(p: Mapping[str, Any]) -> dict[str, int]:
            return table.get(point_key(p), {})
    else:
        from gencl.measure import OpenCLEngine

        engine = OpenCLEngine(device)
        evaluator = DeviceEvaluator(engine, quick=quick, size_overrides=size_overrides)
        device_json = engine.info.to_json()

        def sizes_of(p: Mapping[str, Any]) -> dict[str, int]:
            return evaluator.sizes(spec, p)
    space = SearchSpace(spec, fixed, device=_device_info(device_json))
    slug = device_json.get("slug", "unknown")
    # a quick run never lands next to (or adds trials to) committed full results
    folder = Path(out or f"{'out' if quick else 'bench_results'}/{slug}/tuning")
    study_name = study or f"{spec.name}-{sampler}"
    default_store = folder / (f"{study_name}.journal" if workers > 1 else "study.db")
    url = storage_url(storage, default_store) if storage or workers <= 1 \
        else f"journal:{default_store}"
    if workers > 1 and not os.environ.get("GENCL_TUNE_WORKER"):
        from gencl.tune._workers import run_workers, worker_devices

        optuna.create_study(study_name=study_name, storage=open_storage(url),
                            direction="minimize", load_if_exists=True)  # tables before workers
        argv = _worker_argv(spec, trials=trials, sampler=sampler, storage=url, study=study_name,
                            workers=workers, fixed=dict(fixed or {}), sizes=size_overrides,
                            seed=seed, quick=quick, replay=replay, profile=profile, out=out)
        codes = run_workers(argv, workers, worker_devices(
            None if device is None else str(device), workers))
        if any(codes):
            raise GenclError(f"tuning workers exited with {codes}")
    else:
        params = load_params(device_json, profile=profile)
        # one line, not one per worker: with --workers N, worker 0 says it for all
        if warn and sampler == "guided" and params.profile_note \
                and os.environ.get("GENCL_TUNE_WORKER", "0") == "0":
            warn(params.profile_note)
        candidates, predictor = lazy_predictor(
            spec, space, sizes_of, params,
            progress=(lambda n: predict_progress(spec.name, n)) if predict_progress
            else None) if sampler == "guided" else (None, None)
        chosen = make_sampler(sampler, space, seed=seed, predictor=predictor,
                              candidates=candidates, preferred=knob_preferences(spec, params))
        done = run_study(spec, space, evaluator, study_name=study_name,
                         storage=open_storage(url), sampler=chosen, trials=trials,
                         callbacks=callbacks)
        if os.environ.get("GENCL_TUNE_WORKER"):  # one of several: the parent writes the best
            return TuneRun(done, {}, folder, url, device=device_json)
    result = optuna.load_study(study_name=study_name, storage=open_storage(url))
    header = {"device": device_json, "spec": spec.name, "sampler": sampler, "storage": url,
              "sizes": size_overrides, "quick": quick, "replay": replay}
    best_path = write_best(result, spec, space, folder, header)
    export_t4(result, space, folder / "t4_results.json", header)
    winner = best_trial(result)
    return TuneRun(result, json.loads(best_path.read_text()), folder, url,
                   space.decode(winner.params) if winner else None, device=device_json)


def _device_info(device_json: Mapping[str, Any]) -> Any:
    """The DeviceInfo a results file recorded (its constraints apply), or None if incomplete."""
    from gencl.device import DeviceInfo

    try:
        return DeviceInfo.from_json(device_json)
    except (KeyError, TypeError):
        return None


def simulate_spec(spec: Any, cache: str | Path, *, seeds: int = 20,
                  max_evals: int | None = None,
                  strategies: Sequence[str] = SIMULATED_SAMPLERS,
                  kt_strategies: Sequence[str] = (), profile: str | None = None,
                  out: str | Path | None = None, fixed: Mapping[str, Any] | None = None,
                  repeat: str | Path | None = None, residual: str | Path | None = None,
                  progress: Callable[[str, int], None] | None = None) -> dict[str, Any]:
    """Replay search strategies over an exhaustively measured space (``gencl space`` cache):
    evaluations each needs to reach within 3 % of the best, and the model's accuracy there;
    *fixed* (axis → value) keeps one slice of it. *repeat*, a second measurement of that
    space on the same device, adds ``measurement_repeat``: it scored against the cache as the
    model is (``repeat_accuracy``), the figures the measurement's own noise allows.
    *residual*, a residual table (default: the committed one of the cache's device; ``none``:
    no table), adds ``model_residual`` (``gencl.model._residual``).
    Writes summary.json and convergence.png into *out* (default
    ``bench_results/<device>/<spec>/tuning``; a sampled cache: the accuracy only); returns the
    summary."""
    from gencl.model import check_repeat, load_params, repeat_summary
    from gencl.model._residual import read_table
    from gencl.tune._replay import ReplayEngine
    from gencl.tune._simulate import goal_check, plot_convergence, simulate

    for name in fixed or {}:
        if name not in spec.axes:
            raise GenclError(f"--knob {name}: not an axis of {spec.name} "
                             f"({', '.join(spec.axes)})")
    replay = ReplayEngine(cache, spec=spec, fixed=fixed)
    again = None  # (path, records) of the repeat, the same slice
    if repeat is not None:
        second = ReplayEngine(repeat, spec=spec, fixed=fixed)
        check_repeat(replay.header, second.header, cache, repeat)  # same spec, same device
        again = (repeat, second.records)
    params = load_params(replay.device, profile=profile)
    table = None if str(residual) == "none" else \
        read_table(residual, str(replay.device.get("name") or ""))
    folder = Path(out or f"bench_results/{replay.device.get('slug', 'unknown')}/{spec.name}"
                  "/tuning")
    folder.mkdir(parents=True, exist_ok=True)
    summary, runs = simulate(spec, replay, params, seeds=seeds, max_evals=max_evals,
                             strategies=strategies, kt_strategies=kt_strategies,
                             progress=progress, residual=table)
    summary["goal"] = goal_check(summary)
    if fixed:  # the slice it was run on: tools/resimulate.py passes it again
        summary["knobs"] = dict(fixed)
    summary["profile_sources"] = dict(params.sources)
    if again is not None:
        summary["measurement_repeat"] = repeat_summary(spec, replay.records, again[1], again[0],
                                                       by_value=False)
    if params.profile_note:  # why a replayed device was priced by nominal numbers
        summary["profile_note"] = params.profile_note
    (folder / "summary.json").write_text(dumps_json(summary, indent=1))
    if runs:
        plot_convergence(runs, summary["best_time_s"], folder / "convergence.png",
                         f"{spec.name} on {summary['device']}: {summary['space_size']} "
                         f"variants, {seeds} seeds")
    summary["out"] = str(folder)
    return summary
