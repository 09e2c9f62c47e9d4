"""Kernel Tuner interoperation: its cache-file format (to run its strategies in simulation mode on
our measured space) and its T4 results format (to export a study).
"""

from __future__ import annotations

import datetime as _dt
import json
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import optuna
from optuna.trial import TrialState

from gencl._version import __version__
from gencl.tune._space import SearchSpace, _encode

#: Kernel Tuner strategies compared by ``gencl tune --simulate`` (names as Kernel Tuner spells them)
KT_STRATEGIES = ("random_sample", "genetic_algorithm", "bayes_opt", "simulated_annealing")

_KT_ERRORS = {"build_error": "CompilationFailedConfig", "out_of_resources": "RuntimeFailedConfig",
              "timeout": "RuntimeFailedConfig", "error": "RuntimeFailedConfig",
              "wrong_answer": "RuntimeFailedConfig", "excluded": "InvalidConfig",
              "invalid_size": "InvalidConfig"}


def _kt_key(space: SearchSpace, point: Mapping[str, Any]) -> str:
    return ",".join(str(_encode(point[k])) for k in space.axes)


def write_kt_cache(space: SearchSpace, records: Sequence[Mapping[str, Any]], path: str | Path,
                   *, device: str, kernel: str) -> dict[str, list[Any]]:
    """Write a Kernel Tuner cache file of *records*; returns its tune_params.

    Every point of the cartesian product is present: points the spec excludes, or that failed,
    are Kernel Tuner's InvalidConfig/CompilationFailedConfig/RuntimeFailedConfig strings, as in
    caches Kernel Tuner writes itself. Times are in milliseconds (Kernel Tuner's unit).
    """
    import itertools

    tune_params = {k: [_encode(v) for v in values] for k, values in space.axes.items()}
    by_key = {_kt_key(space, r["point"]): r for r in records}
    cache = {}
    for combo in itertools.product(*tune_params.values()):
        enc = dict(zip(tune_params, combo))
        key = ",".join(str(v) for v in combo)
        entry: dict[str, Any] = dict(enc)
        r = by_key.get(key)
        if r is not None and r.get("status") == "ok":
            samples = [s * 1e3 for s in r.get("samples_s") or [r["median_s"]]]
            entry.update(time=r["median_s"] * 1e3, times=samples, compile_time=0.0,
                         verification_time=0.0, benchmark_time=sum(samples))
        else:
            status = r.get("status", "excluded") if r else "excluded"
            entry["time"] = _KT_ERRORS.get(status, "InvalidConfig")
        cache[key] = entry
    data = {"device_name": device, "kernel_name": kernel, "problem_size": [1],
            "tune_params_keys": list(tune_params), "tune_params": tune_params,
            "objective": "time", "cache": cache}
    Path(path).write_text(json.dumps(data))
    return tune_params


def run_kt_strategy(cache_path: str | Path, tune_params: Mapping[str, list[Any]], strategy: str,
                    *, seed: int, max_fevals: int, kernel: str,
                    only: set[str] | None = None) -> list[float | None]:
    """Kernel Tuner *strategy* in simulation mode on the cache; times (s) of the distinct
    configurations in the order it evaluated them (None for failed ones)."""
    import numpy as np
    from kernel_tuner import tune_kernel

    np.random.seed(seed)
    import random
    random.seed(seed)
    keys = list(tune_params)
    restrictions = (lambda p: ",".join(str(p[k]) for k in keys) in only) if only else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = tune_kernel(
            kernel, "__kernel void k() {}", (1,), [], dict(tune_params),
            lang="OpenCL", simulation_mode=True, restrictions=restrictions, cache=str(cache_path), strategy=strategy,
            strategy_options={"max_fevals": max_fevals}, verbose=False, quiet=True)
    seen, times = set(), []
    for r in results:
        key = ",".join(str(r[k]) for k in tune_params)
        if key in seen:
            continue
        seen.add(key)
        t = r.get("time")
        times.append(float(t) * 1e-3 if isinstance(t, int | float) else None)
    return times


def export_t4(study: optuna.Study, space: SearchSpace, path: str | Path,
              header: Mapping[str, Any]) -> Path:
    """The study's trials as Kernel Tuner's T4 results JSON (schema 1.0.0), plus metadata."""
    invalidity = {"build_error": "compile", "excluded": "constraints",
                  "invalid_size": "constraints", "timeout": "timeout",
                  "wrong_answer": "correctness", "out_of_resources": "runtime",
                  "error": "runtime"}
    results = []
    for t in study.get_trials(deepcopy=False):
        if t.state in (TrialState.RUNNING, TrialState.WAITING) or not t.params:
            continue
        status = t.user_attrs.get("status", "ok" if t.state == TrialState.COMPLETE else "error")
        ok = t.state == TrialState.COMPLETE
        results.append({
            "timestamp": (t.datetime_complete or t.datetime_start or _dt.datetime.now())
            .isoformat(timespec="seconds"),
            "configuration": {k: v for k, v in t.params.items()},
            "objectives": ["time"],
            "times": {"runtimes": [t.value] if ok else []},
            "invalidity": "correct" if ok else invalidity.get(status, "runtime"),
            "correctness": 1 if ok else 0,
            "measurements": ([{"name": "time", "value": t.value, "unit": "s"}] if ok else []),
        })
    data = {"schema_version": "1.0.0", "results": results,
            "metadata": {"gencl_version": __version__, "study": study.study_name,
                         **{k: v for k, v in header.items() if k != "results"}}}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=1, default=str))
    return Path(path)
