"""The objective: a trial's params → a variant generated, verified and timed (or replayed).

Every variant-level failure (knob does not apply, build error, out of resources, wrong answer,
timeout, device error) ends the trial as FAIL with ``status`` and ``reason`` in its user attrs;
the study goes on. Points excluded by the spec's constraints — on the evaluator's device, so a
replayed H200 space excludes what the H200 would — are pruned before any work.
A point already measured in this study is answered from its earlier trial (``repeat_of``), so a
sampler that proposes it again costs no device time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import optuna

from gencl.measure import Measurement
from gencl.measure._sweeps import time_per_sweep
from gencl.spec import steps_per_launch
from gencl.tune._space import SearchSpace


#: system attr of a trial: the worker process running it (host, pid, start time)
WORKER_ATTR = "gencl:worker"


class Evaluator(Protocol):
    def evaluate(self, spec: Any, point: Mapping[str, Any]) -> Measurement: ...


class VariantFailed(Exception):
    """A variant could not be measured; the trial fails with the reason, the study goes on."""


class DeviceEvaluator:
    """Generate → build → verify → time on an OpenCL engine (gencl.measure.measure_variant)."""

    def __init__(self, engine: Any, *, quick: bool = False,
                 size_overrides: Mapping[str, int] | None = None, sink: Any = None) -> None:
        self.engine, self.quick = engine, quick
        self.size_overrides = dict(size_overrides or {})
        self.sink = sink
        self.device = engine.info.to_json()
        self.variants: dict[str, Any] = {}

    def sizes(self, spec: Any, point: Mapping[str, Any]) -> dict[str, int]:
        return {**spec.sizes(point, self.engine.info, self.quick), **self.size_overrides}

    def evaluate(self, spec: Any, point: Mapping[str, Any]) -> Measurement:
        from gencl.errors import KnobError
        from gencl.generate import generate, variant_id
        from gencl.measure import measure_variant

        sizes = self.sizes(spec, point)
        try:
            variant = generate(spec, dict(point))
        except KnobError as exc:
            m = Measurement(variant_id(spec, dict(point)), spec.name,
                            dict(point), sizes, "excluded", str(exc))
        else:
            m = measure_variant(self.engine, spec, variant, sizes)
            if m.ok:
                self.variants[m.variant_id] = variant
        if self.sink is not None:
            self.sink.add(m)
        return m


def make_objective(spec: Any, space: SearchSpace, evaluator: Evaluator, *,
                   on_result: Callable[[Measurement], None] | None = None,
                   budget: int | None = None) -> Callable[[optuna.Trial], float]:
    """The function Optuna calls; minimizes the median time per sweep in seconds (the launch
    time over the sweeps it runs: ``gencl.measure._sweeps.time_per_sweep``), so a launch of k
    sweeps competes with k launches of one; ``median_s`` and ``steps`` are its user attrs.

    With a *budget* (COMPLETE trials the study may hold, shared by workers), each trial records
    its worker process (so a restarted run can fail it if the worker dies) and gives way, pruned
    with status ``budget``, when the complete trials and the earlier trials still running (other
    workers') already fill the budget: workers that asked at the same moment never overrun it.
    """
    device = getattr(evaluator, "device", None)
    info = _device_info(evaluator)

    def objective(trial: optuna.Trial) -> float:
        if budget is not None:
            from gencl.tune._study import this_worker

            trial.storage.set_trial_system_attr(trial._trial_id, WORKER_ATTR, this_worker())
            _claim_budget(trial, budget)
        params = {name: trial.suggest_categorical(name, dist.choices)
                  for name, dist in space.distributions().items()}
        point = space.decode(params)
        reason = spec.excluded(point, info)
        if reason:
            trial.set_user_attr("status", "excluded")
            trial.set_user_attr("reason", reason)
            raise optuna.TrialPruned(reason)
        contains = getattr(evaluator, "contains", None)
        if contains is not None and getattr(evaluator, "sampled", False) and \
                not contains(point):
            trial.set_user_attr("status", "excluded")
            trial.set_user_attr("reason", "not in the sampled replay cache")
            raise optuna.TrialPruned("not in the sampled replay cache")
        earlier = _earlier(trial, params)
        if earlier is not None:
            trial.set_user_attr("repeat_of", earlier.number)
            for key in ("status", "reason", "variant_id"):
                if key in earlier.user_attrs:
                    trial.set_user_attr(key, earlier.user_attrs[key])
            if earlier.state == optuna.trial.TrialState.COMPLETE:
                return float(earlier.value or 0.0)
            raise VariantFailed(earlier.user_attrs.get("reason", "failed before"))
        try:
            m = evaluator.evaluate(spec, point)
        except Exception as exc:  # noqa: BLE001 -- a variant-level surprise must not end the study
            trial.set_user_attr("status", "error")
            trial.set_user_attr("reason", f"{type(exc).__name__}: {str(exc)[:300]}")
            raise VariantFailed(str(exc)) from exc
        trial.set_user_attr("status", m.status)
        trial.set_user_attr("variant_id", m.variant_id)
        if on_result:
            on_result(m)
        if not m.ok or m.median_s is None:
            trial.set_user_attr("reason", m.reason[:500])
            raise VariantFailed(f"{m.status}: {m.reason[:200]}")
        trial.set_user_attr("ci95_s", m.ci95_s)
        trial.set_user_attr("samples", len(m.samples_s))
        trial.set_user_attr("median_s", m.median_s)
        trial.set_user_attr("steps", steps_per_launch(spec, m.point))
        if device and trial.number == 0:
            trial.study.set_user_attr("device", device.get("name"))
        return float(time_per_sweep(spec, m) or 0.0)

    return objective


def _device_info(evaluator: Any) -> Any:
    """The evaluator's DeviceInfo: its engine's, or rebuilt from a replayed results header."""
    from gencl.device import DeviceInfo

    engine = getattr(evaluator, "engine", None)
    if engine is not None:
        return engine.info
    device = getattr(evaluator, "device", None)
    try:
        return DeviceInfo.from_json(device) if device else None
    except (KeyError, TypeError):  # an older or hand-made header: spec rules only
        return None


def _claim_budget(trial: optuna.Trial, budget: int) -> None:
    from optuna.trial import TrialState

    from gencl.tune._study import _orphan

    trials = trial.study.get_trials(deepcopy=False,
                                    states=(TrialState.COMPLETE, TrialState.RUNNING))
    complete = sum(t.state == TrialState.COMPLETE for t in trials)
    # a trial whose worker died before recording itself holds back no budget here either (as in
    # run_study): counted, it pruned every later trial of a study one short of its budget
    earlier = sum(t.state == TrialState.RUNNING and t.number < trial.number and not _orphan(t)
                  for t in trials)
    if complete + earlier >= budget:
        trial.set_user_attr("status", "budget")
        trial.set_user_attr("reason", f"the budget of {budget} complete trials is met by "
                                      f"{complete} complete and {earlier} running")
        raise optuna.TrialPruned("trial budget met")


def _earlier(trial: optuna.Trial, params: Mapping[str, Any]) -> optuna.trial.FrozenTrial | None:
    """The trial that measured *params* before: finished by its own worker (not failed because
    the worker died, not killed after its status was set), not itself a repeat."""
    states = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL)
    for t in trial.study.get_trials(deepcopy=False, states=states):
        attrs = t.user_attrs
        if t.params == params and "repeat_of" not in attrs and t.number != trial.number \
                and "status" in attrs and "worker_died" not in attrs and \
                not (t.state == optuna.trial.TrialState.FAIL and attrs["status"] == "ok"):
            return t
    return None


def is_fresh(t: optuna.trial.FrozenTrial) -> bool:
    """A trial that cost an evaluation: not pruned (excluded) and not a repeat."""
    return t.state in (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL) and \
        "repeat_of" not in t.user_attrs and "status" in t.user_attrs
