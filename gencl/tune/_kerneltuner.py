"""Kernel Tuner interoperation: its cache-file format (to run its strategies in simulation mode on
our measured space) and its T4 results format (to export a study).
"""

from __future__ import annotations

import datetime as _dt
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import optuna
from optuna.trial import TrialState

from gencl._json import dumps_json
from gencl._version import __version__
from gencl.spec import steps_per_launch
from gencl.tune._space import SearchSpace, _encode

#: Kernel Tuner strategies ``gencl tune --simulate`` compares (names as Kernel Tuner spells them)
KT_STRATEGIES = ("random_sample", "genetic_algorithm", "bayes_opt", "simulated_annealing",
                 "dual_annealing")

_KT_ERRORS = {"build_error": "CompilationFailedConfig", "out_of_resources": "RuntimeFailedConfig",
              "timeout": "RuntimeFailedConfig", "error": "RuntimeFailedConfig",
              "wrong_answer": "RuntimeFailedConfig", "excluded": "InvalidConfig",
              "invalid_size": "InvalidConfig"}


def _kt_key(space: SearchSpace, point: Mapping[str, Any]) -> str:
    return ",".join(str(_encode(point[k])) for k in space.axes)


def write_kt_cache(space: SearchSpace, records: Sequence[Mapping[str, Any]], path: str | Path,
                   *, device: str, kernel: str) -> dict[str, list[Any]]:
    """Write a Kernel Tuner cache file of the measured *records*; returns its tune_params.

    The cache holds exactly the measured points (the valid space: the spec's exclusion rules
    already applied when it was measured), one entry each, keyed as Kernel Tuner keys them
    (``",".join(str(v))`` in tune_params order). A point that failed on the device is kept,
    as Kernel Tuner's CompilationFailedConfig/RuntimeFailedConfig/InvalidConfig string: it is
    a valid configuration that costs an evaluation, for Kernel Tuner as for our strategies.
    Grid points outside the measured space are absent; :func:`kt_restriction` keeps Kernel
    Tuner's strategies off them. Times are in milliseconds (Kernel Tuner's unit), per sweep.
    """
    tune_params = {k: [_encode(v) for v in values] for k, values in space.axes.items()}
    cache = {}
    for r in records:
        enc = space.encode(r["point"])
        entry: dict[str, Any] = dict(enc)
        if r.get("status") == "ok" and r.get("median_s") is not None:
            k = steps_per_launch(space.spec, r["point"])  # per sweep, as our objective
            samples = [s * 1e3 / k for s in r.get("samples_s") or [r["median_s"]]]
            entry.update(time=r["median_s"] * 1e3 / k, times=samples, compile_time=0.0,
                         verification_time=0.0, benchmark_time=sum(samples))
        else:
            entry["time"] = _KT_ERRORS.get(r.get("status", "error"), "RuntimeFailedConfig")
        cache[",".join(str(v) for v in enc.values())] = entry
    data = {"device_name": device, "kernel_name": kernel, "problem_size": [1],
            "tune_params_keys": list(tune_params), "tune_params": tune_params,
            "objective": "time", "cache": cache}
    Path(path).write_text(dumps_json(data))
    return tune_params


def kt_restriction(valid: Iterable[Sequence[Any]]) -> Any:
    """Kernel Tuner restriction admitting exactly the *valid* configurations (tuples of
    tune_params values in tune_params order, as :func:`kt_configs` gives them).

    Why: a Kernel Tuner user writes ``restrictions`` for their space, and Kernel Tuner builds
    its Searchspace from them before any strategy runs — strategies sample, mutate and take
    neighbours only inside it, and a configuration that fails the restrictions is answered
    InvalidConfig by the cost function without reaching the runner, so it never counts toward
    ``max_fevals`` (kernel_tuner 1.5: ``strategies/common.py`` ``CostFunc._run_configs``; the
    SimulationRunner counts a configuration once, the first time it serves it from the cache,
    ``runners/simulation.py``). Our spec's exclusion rules play that role for our strategies
    (Optuna prunes excluded points before any work), so Kernel Tuner gets the same space: the
    measured points. Without restrictions it searched the whole cartesian grid (7 % valid on the
    H200 Jacobi space) and spent evaluations on points a real user would have excluded.

    The form is the one Kernel Tuner's own ``tune_cache`` infers from a cache
    (``util.infer_restrictions_from_cache``): one python-constraint FunctionConstraint over
    every parameter testing membership of a set of tuples — O(1) per configuration, so building
    the Searchspace costs one pass over the grid.
    """
    from constraint import FunctionConstraint

    allowed = {tuple(c) for c in valid}

    def restriction(*values: Any) -> bool:
        return values in allowed

    return FunctionConstraint(restriction)


def kt_configs(space: SearchSpace, records: Sequence[Mapping[str, Any]]) -> list[tuple[Any, ...]]:
    """The measured points as Kernel Tuner configurations (tune_params values, in order)."""
    return [tuple(space.encode(r["point"]).values()) for r in records]


def run_kt_strategy(cache_path: str | Path, tune_params: Mapping[str, list[Any]], strategy: str,
                    *, seed: int, max_fevals: int, kernel: str,
                    restriction: Any = None) -> list[float | None]:
    """Kernel Tuner *strategy* in simulation mode on the cache; times (s) of the distinct
    configurations in the order it evaluated them (None for failed ones).

    The list is counted as Kernel Tuner counts ``max_fevals``: a configuration is one
    evaluation the first time the runner serves it (failures included; repeats and
    configurations outside *restriction* are not), which is also how our Optuna strategies are
    counted (distinct variants evaluated). *restriction* (:func:`kt_restriction`) is the
    space; without it the cache must hold every grid point.
    """
    import random

    from kernel_tuner import tune_kernel

    # Kernel Tuner draws from the global generators; bayes_opt's initial Latin hypercube
    # (scipy.stats.qmc without a seed) does not, so its runs are not reproducible
    np.random.seed(seed)
    random.seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = tune_kernel(
            kernel, "__kernel void k() {}", (1,), [], dict(tune_params), lang="OpenCL",
            simulation_mode=True, restrictions=[restriction] if restriction else None,
            cache=str(cache_path), strategy=strategy,
            strategy_options={"max_fevals": max_fevals}, verbose=False, quiet=True)
    seen, times = set(), []
    for r in results:
        key = ",".join(str(r[k]) for k in tune_params)
        if key in seen:
            continue
        seen.add(key)
        t = r.get("time")
        times.append(float(t) * 1e-3 if isinstance(t, int | float) and "__error__" not in r
                     else None)
    return times


def kt_strategy_names() -> list[str]:
    """Strategy names this Kernel Tuner knows."""
    from kernel_tuner.interface import strategy_map

    return sorted(strategy_map)


def run_kt_strategies(space: SearchSpace, records: Sequence[Mapping[str, Any]],
                      strategies: Sequence[str], *, seeds: int, max_evals: int, device: str,
                      kernel: str, progress: Callable[[str, int], None] | None = None
                      ) -> tuple[dict[str, list[list[Any]]], dict[str, Any]]:
    """Run each Kernel Tuner strategy from *seeds* seeds on the measured space (simulation mode).

    Returns (``kt_<name>`` → per-seed times as :func:`run_kt_strategy` gives them, a record of
    the comparison for summary.json). A strategy that cannot run is one per-seed list holding
    its error text, reported by the caller, and the others go on.
    """
    import tempfile
    import time

    import kernel_tuner

    runs: dict[str, list[list[Any]]] = {}
    per_strategy: dict[str, Any] = {}
    configs = kt_configs(space, records)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "kt_cache.json"
        tune_params = write_kt_cache(space, records, cache, device=device, kernel=kernel)
        restriction = kt_restriction(configs)
        for name in strategies:
            key = f"kt_{name}"
            runs[key] = []
            start = time.perf_counter()
            for seed in range(seeds):
                try:
                    runs[key].append(run_kt_strategy(cache, tune_params, name, seed=seed,
                                                     max_fevals=max_evals, kernel=kernel,
                                                     restriction=restriction))
                except Exception as exc:  # noqa: BLE001 -- a strategy that cannot run is reported
                    runs[key] = [[f"{type(exc).__name__}: {str(exc)[:200]}"]]
                    break
                if progress:
                    progress(key, seed)
            ok = not (runs[key] and runs[key][0] and isinstance(runs[key][0][0], str))
            per_strategy[name] = {
                "seeds_run": len(runs[key]) if ok else 0,
                # strategies stop on their own criteria too (scipy's maxfun counts repeats and
                # restricted proposals), so some spend less than the budget
                "median_evaluations_made": (float(np.median([len(r) for r in runs[key]]))
                                            if ok else None),
                "reproducible": name not in _UNSEEDED,
                "wall_s": round(time.perf_counter() - start, 2),
            }
    info = {"version": kernel_tuner.__version__,
            "mode": "simulation (cache of the measured space)",
            "restriction": f"valid points only: the {len(configs)} measured configurations "
                           "(the spec's exclusion rules, as a Kernel Tuner user's restrictions); "
                           "configurations failing it are never evaluated nor counted",
            "evaluation": "unique configurations served by the runner, in order (Kernel Tuner's "
                          "max_fevals count); failed measured points count",
            "max_fevals": max_evals, "strategies": per_strategy}
    return runs, info


#: strategies whose randomness the global seeds do not fix (bayes_opt's initial Latin hypercube
#: is drawn by scipy.stats.qmc with a fresh generator)
_UNSEEDED = frozenset({"bayes_opt"})


def export_t4(study: optuna.Study, space: SearchSpace, path: str | Path,
              header: Mapping[str, Any]) -> Path:
    """The study's trials as Kernel Tuner's T4 results JSON (schema 1.0.0), plus metadata."""
    invalidity = {"build_error": "compile", "excluded": "constraints",
                  "invalid_size": "constraints", "timeout": "timeout",
                  "wrong_answer": "correctness", "out_of_resources": "runtime",
                  "error": "runtime"}
    results = []
    for t in study.get_trials(deepcopy=False):
        if t.state in (TrialState.RUNNING, TrialState.WAITING) or not t.params or \
                t.user_attrs.get("status") == "budget" or "worker_died" in t.user_attrs:
            continue  # not an evaluation: a trial that gave way to the budget, or was killed
        status = t.user_attrs.get("status", "ok" if t.state == TrialState.COMPLETE else "error")
        ok = t.state == TrialState.COMPLETE
        results.append({
            "timestamp": (t.datetime_complete or t.datetime_start or _dt.datetime.now())
            .isoformat(timespec="seconds"),
            "configuration": dict(t.params),
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
    Path(path).write_text(dumps_json(data, indent=1))
    return Path(path)
