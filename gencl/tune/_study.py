"""One tuning run: an Optuna study over a spec's space, its samplers, and what it leaves behind."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import optuna
from optuna.samplers import BaseSampler, GridSampler, RandomSampler, TPESampler
from optuna.study import MaxTrialsCallback
from optuna.trial import TrialState

from gencl.errors import GenclError
from gencl.tune._objective import Evaluator, VariantFailed, make_objective
from gencl.tune._sampler import ModelGuidedSampler, params_key
from gencl.tune._space import SearchSpace

SAMPLERS = ("guided", "tpe", "random", "grid")


def make_sampler(name: str, space: SearchSpace, *, seed: int | None = None,
                 predicted: Mapping[str, float] | None = None,
                 preferred: Mapping[str, Any] | None = None) -> BaseSampler:
    """Optuna's samplers by name; ``guided`` searches the model's predictions, corrected by the
    measurements (TPE takes over points the model could not predict)."""
    if name == "tpe":
        return TPESampler(seed=seed)
    if name == "random":
        return RandomSampler(seed=seed)
    if name == "grid":
        return GridSampler({k: list(d.choices) for k, d in space.distributions().items()},
                           seed=seed)
    if name == "guided":
        import warnings

        from gencl.tune._experimental import ExperimentalWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExperimentalWarning)
            return ModelGuidedSampler(space.distributions(), predicted or {},
                                      base_sampler=TPESampler(seed=seed), seed=seed,
                                      preferred=preferred)
    raise GenclError(f"--sampler {name}: expected one of {', '.join(SAMPLERS)}")


def predictions(spec: Any, space: SearchSpace, sizes_of: Any, params: Any, *,
                workers: int | None = None, progress: Any = None) -> dict[str, float]:
    """Predicted time of every point of the space, keyed by Optuna params (*progress*: called
    with the number of points predicted so far)."""
    from gencl.model import predict_points

    points = space.points()
    preds = predict_points(spec, points, [sizes_of(p) for p in points], params, workers=workers,
                           progress=progress)
    return {params_key(space.encode(p)): pr.time_s for p, pr in zip(points, preds) if pr}


def run_study(spec: Any, space: SearchSpace, evaluator: Evaluator, *, study_name: str,
              storage: Any, sampler: BaseSampler, trials: int,
              on_result: Any = None, callbacks: Any = ()) -> optuna.Study:
    """Run trials until the study holds *trials* finished ones (shared by every worker);
    *callbacks* are Optuna trial callbacks (progress)."""
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # failures are in user attrs
    study = optuna.create_study(study_name=study_name, storage=storage, sampler=sampler,
                                direction="minimize", load_if_exists=True)
    study.set_user_attr("spec", spec.name)
    study.set_user_attr("fixed", json.dumps(space.fixed, default=str))
    objective = make_objective(spec, space, evaluator, on_result=on_result)
    study.optimize(objective, catch=(VariantFailed,), gc_after_trial=False,
                   callbacks=[MaxTrialsCallback(trials, states=(
                       TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED)), *callbacks])
    return study


def best_trial(study: optuna.Study) -> optuna.trial.FrozenTrial | None:
    done = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
    return min(done, key=lambda t: t.value) if done else None


def write_best(study: optuna.Study, spec: Any, space: SearchSpace, out_dir: str | Path,
               header: Mapping[str, Any]) -> Path:
    """best.json (knobs, time, trial) and best.cl (the variant's source) under *out_dir*."""
    from gencl.generate import generate

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    best = best_trial(study)
    if best is None:
        raise GenclError(f"study {study.study_name}: no variant succeeded "
                         f"({len(study.trials)} trials; see their user attrs)")
    point = space.decode(best.params)
    counts = {s.name.lower(): sum(t.state == s for t in study.trials) for s in TrialState}
    record = {**header, "study": study.study_name, "point": point, "median_s": best.value,
              "trial": best.number, "user_attrs": best.user_attrs, "trials": counts}
    (out / "best.json").write_text(json.dumps(record, indent=1, default=str))
    (out / "best.cl").write_text(generate(spec, point).source)
    return out / "best.json"
