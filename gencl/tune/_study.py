"""One tuning run: an Optuna study over a spec's space, its samplers, and what it leaves behind."""

from __future__ import annotations

import json
import math
import os
import socket
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import optuna
from optuna.samplers import BaseSampler, RandomSampler, TPESampler
from optuna.trial import FrozenTrial, TrialState

from gencl._json import dumps_json
from gencl.errors import GenclError
from gencl.spec import steps_per_launch
from gencl.tune._grid import PointGridSampler
from gencl.tune._objective import WORKER_ATTR, Evaluator, VariantFailed, make_objective
from gencl.tune._sampler import ModelGuidedSampler, params_key
from gencl.tune._space import SearchSpace

SAMPLERS = ("guided", "tpe", "random", "grid")
#: the samplers `gencl tune --simulate` compares unless told otherwise
SIMULATED_SAMPLERS = ("guided", "tpe", "random")


def make_sampler(name: str, space: SearchSpace, *, seed: int | None = None,
                 predicted: Mapping[str, float] | None = None,
                 preferred: Mapping[str, Any] | None = None,
                 predictor: Any = None, candidates: Any = None) -> BaseSampler:
    """Optuna's samplers by name; ``guided`` searches the model's predictions, corrected by the
    measurements (TPE takes over points the model could not predict): *predicted* up front, or
    counted on demand by *predictor* over *candidates* (``lazy_predictor``)."""
    if name == "tpe":
        return TPESampler(seed=seed)
    if name == "random":
        return RandomSampler(seed=seed)
    if name == "grid":  # the valid points, not the axes' cartesian product (_grid)
        return PointGridSampler(space.distributions(),
                                [space.encode(p) for p in space.points()], seed=seed)
    if name == "guided":
        import warnings

        from gencl.tune._experimental import ExperimentalWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExperimentalWarning)
            return ModelGuidedSampler(space.distributions(), predicted or {},
                                      base_sampler=TPESampler(seed=seed), seed=seed,
                                      preferred=preferred, predictor=predictor,
                                      candidates=candidates)
    raise GenclError(f"--sampler {name}: expected one of {', '.join(SAMPLERS)}")


def predictions(spec: Any, space: SearchSpace, sizes_of: Any, params: Any, *,
                workers: int | None = None, progress: Any = None) -> dict[str, float]:
    """Predicted time per sweep of every point of the space, keyed by Optuna params (what the
    objective compares; *progress*: called with the number of points predicted so far)."""
    from gencl.model import predict_points

    points = space.points()
    preds = predict_points(spec, points, [sizes_of(p) for p in points], params, workers=workers,
                           progress=progress)
    return {params_key(space.encode(p)): pr.time_per_sweep_s
            for p, pr in zip(points, preds) if pr}


def lazy_predictor(spec: Any, space: SearchSpace, sizes_of: Any, params: Any, *,
                   workers: int | None = None, progress: Any = None
                   ) -> tuple[list[str], Any]:
    """(params key of every point of the space, keys → predicted seconds per sweep): what the guided
    sampler counts on demand. *progress*: called with the keys of each batch (the first batch
    is the cold start before trial 1)."""
    from gencl.model import predict_points

    points = {params_key(space.encode(p)): p for p in space.points()}

    def predict(keys: Any) -> list[float | None]:
        chosen = [points[k] for k in keys]
        report = progress(len(chosen)) if progress else None
        preds = predict_points(spec, chosen, [sizes_of(p) for p in chosen], params,
                               workers=workers, progress=report)
        return [p.time_per_sweep_s if p else None for p in preds]

    return list(points), predict


def run_study(spec: Any, space: SearchSpace, evaluator: Evaluator, *, study_name: str,
              storage: Any, sampler: BaseSampler, trials: int,
              on_result: Any = None, poll_s: float = 0.5,
              callbacks: Any = ()) -> optuna.Study:
    """Run trials until the study holds *trials* COMPLETE ones, counted over every run and
    every worker on the storage; a rerun of a finished study adds none.

    Before each trial: trials left RUNNING by a worker process that no longer runs are failed and
    their points queued again (gencl.tune._study.fail_dead_workers; Optuna's heartbeat does the
    same for RDB storages after its grace period, for workers on other hosts); the budget is
    checked, so no trial starts once it is met, and a worker waits while the trials other workers
    are running could meet it. Stops early when every point of the space has been tried.
    *callbacks* are Optuna trial callbacks (progress).
    """
    if trials < 1:
        raise GenclError(f"--trials {trials}: must be at least 1")
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # failures are in user attrs
    study = optuna.create_study(study_name=study_name, storage=storage, sampler=sampler,
                                direction="minimize", load_if_exists=True)
    if study.user_attrs.get("spec") != spec.name:
        study.set_user_attr("spec", spec.name)
    fixed = json.dumps(space.fixed, default=str)
    if study.user_attrs.get("fixed") != fixed:
        study.set_user_attr("fixed", fixed)
    objective = make_objective(spec, space, evaluator, on_result=on_result, budget=trials)
    while True:
        fail_dead_workers(study)
        _fail_stale_heartbeats(study)
        finished = study.get_trials(deepcopy=False, states=(
            TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED))
        complete = sum(t.state == TrialState.COMPLETE for t in finished)
        if complete >= trials or _exhausted(finished, space, sampler, study):
            if _unrecorded(study):  # a dead worker's trial, failed once its grace is over
                time.sleep(poll_s)
                continue
            break
        running = [t for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
                   if not _orphan(t)]
        if complete + len(running) >= trials:
            time.sleep(poll_s)  # other workers' trials may meet the budget: wait for them
            continue
        study.optimize(objective, n_trials=1, catch=(VariantFailed,), gc_after_trial=False,
                       callbacks=list(callbacks))
    return study


def _exhausted(finished: list[FrozenTrial], space: SearchSpace, sampler: BaseSampler,
               study: optuna.Study) -> bool:
    """Every point of the space tried (what is left can only repeat answers)."""
    if isinstance(sampler, PointGridSampler) and sampler.is_exhausted(study):
        return True
    tried = {json.dumps(t.params, sort_keys=True) for t in finished
             if t.user_attrs.get("status") != "budget" and "worker_died" not in t.user_attrs}
    return len(tried) >= space.size


# {{{ trials of workers that died

def _process_start(pid: int) -> str | None:
    """When process *pid* started (Linux /proc), so a reused pid is not taken for the worker."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[19]  # field 22 of stat(5): starttime in clock ticks since boot
    except (OSError, IndexError):
        return None


def this_worker() -> dict[str, Any]:
    """What a trial records about the process running it (system attr ``gencl:worker``)."""
    return {"host": socket.gethostname(), "pid": os.getpid(),
            "started": _process_start(os.getpid())}


def _worker_gone(record: Mapping[str, Any]) -> bool:
    """True when the worker of *record* ran on this host and its process no longer runs."""
    if not isinstance(record, Mapping) or record.get("host") != socket.gethostname():
        return False  # another host: Optuna's heartbeat (RDB storages) is the judge
    pid = record.get("pid")
    if not isinstance(pid, int) or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # it runs, as another user
    started = _process_start(pid)
    return record.get("started") is not None and started is not None and \
        started != record["started"]


#: seconds a RUNNING trial may lack its worker record before it counts as a dead worker's (a
#: live worker's objective records it first thing, milliseconds after Optuna creates the trial:
#: Optuna samples on the first suggest, inside the objective; the margin is for hosts whose
#: clocks differ). A worker killed in those milliseconds left a RUNNING trial that no heartbeat
#: ever fails (it had none yet): a CI run's restart found one
UNRECORDED_GRACE_S = 10.0


def _age_s(t: FrozenTrial) -> float:
    """Seconds since *t* started (a RUNNING trial without a start is taken as long dead)."""
    import datetime as _dt

    if t.datetime_start is None:
        return math.inf
    return (_dt.datetime.now() - t.datetime_start).total_seconds()


def _orphan(t: FrozenTrial, after_s: float = UNRECORDED_GRACE_S) -> bool:
    """A RUNNING trial with no worker record, older than the grace: its worker died between
    Optuna creating the trial and the objective recording itself. It does not hold back the
    budget, and ``fail_dead_workers`` fails it."""
    return WORKER_ATTR not in t.system_attrs and _age_s(t) > after_s


def _unrecorded(study: optuna.Study) -> bool:
    """Some RUNNING trial has no worker record yet (a live worker's, for milliseconds; a dead
    worker's, until its grace is over and it is failed)."""
    return any(WORKER_ATTR not in t.system_attrs
               for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)))


def fail_dead_workers(study: optuna.Study) -> list[FrozenTrial]:
    """Fail the RUNNING trials whose worker process (on this host) is gone, and queue their
    points again so they are measured in this run. Returns the trials failed."""
    storage = study._storage
    failed = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        record = t.system_attrs.get(WORKER_ATTR)
        if record is None and not _orphan(t):
            continue
        if record is not None and not _worker_gone(record):
            continue
        died = f"pid {record.get('pid')} on {record.get('host')}" if record else \
            "a worker that died before it recorded itself"
        try:
            storage.set_trial_user_attr(t._trial_id, "worker_died", died)
            if storage.set_trial_state_values(t._trial_id, TrialState.FAIL):
                failed.append(t)
        except (optuna.exceptions.UpdateFinishedTrialError, RuntimeError):
            continue  # another worker failed it first
    for t in failed:
        if t.params:  # one that died before its sampler proposed a point has none to retry
            study.enqueue_trial(t.params, user_attrs={"retry_of": t.number})
    return failed


def _fail_stale_heartbeats(study: optuna.Study) -> None:
    from optuna.storages import fail_stale_trials
    from optuna.storages._heartbeat import is_heartbeat_enabled

    if is_heartbeat_enabled(study._storage):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # experimental
            fail_stale_trials(study)

# }}}


def best_trial(study: optuna.Study) -> optuna.trial.FrozenTrial | None:
    done = list(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
    return min(done, key=lambda t: float(t.value or 0.0)) if done else None


def write_best(study: optuna.Study, spec: Any, space: SearchSpace, out_dir: str | Path,
               header: Mapping[str, Any]) -> Path:
    """best.json (knobs, time per sweep, the launch's median and sweeps, trial) and best.cl
    (the variant's source) under *out_dir*."""
    from gencl.generate import generate

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    best = best_trial(study)
    if best is None:
        raise GenclError(f"study {study.study_name}: no variant succeeded "
                         f"({len(study.trials)} trials; see their user attrs)")
    point = space.decode(best.params)
    counts = {s.name.lower(): sum(t.state == s for t in study.trials) for s in TrialState}
    steps = steps_per_launch(spec, point)
    record = {**header, "study": study.study_name, "point": point,
              "time_per_sweep_s": best.value, "steps": steps,
              "median_s": best.user_attrs.get("median_s", (best.value or 0.0) * steps),
              "trial": best.number, "user_attrs": best.user_attrs, "trials": counts}
    (out / "best.json").write_text(dumps_json(record, indent=1))
    (out / "best.cl").write_text(generate(spec, point).source)
    return out / "best.json"
