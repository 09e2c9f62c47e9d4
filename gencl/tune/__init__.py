"""Tune: an Optuna study over a tuning kernel's space, guided by the model; replay and simulation.

Storage, samplers and the study are Optuna's; gencl adds the objective (generate → verify → time),
the model-guided sampler, the replay engine over measured spaces, and the comparison against
Optuna's and Kernel Tuner's strategies.
"""

from gencl.tune._experimental import ExperimentalWarning, experimental_class
from gencl.tune._kerneltuner import KT_STRATEGIES, export_t4, run_kt_strategy, write_kt_cache
from gencl.tune._objective import DeviceEvaluator, VariantFailed, is_fresh, make_objective
from gencl.tune._replay import ReplayEngine
from gencl.tune._run import TuneRun, simulate_spec, tune_spec
from gencl.tune._sampler import ModelGuidedSampler, knob_preferences, params_key
from gencl.tune._simulate import (
    evals_to_target, fixed_from_records, goal_check, plot_convergence, simulate, summarize_runs)
from gencl.tune._space import SearchSpace
from gencl.tune._storage import open_storage, storage_url
from gencl.tune._study import (
    SAMPLERS, SIMULATED_SAMPLERS, best_trial, make_sampler, predictions, run_study, write_best)

__all__ = ["KT_STRATEGIES", "SAMPLERS", "SIMULATED_SAMPLERS", "DeviceEvaluator",
           "ExperimentalWarning",
           "ModelGuidedSampler", "ReplayEngine", "SearchSpace", "TuneRun", "VariantFailed",
           "best_trial",
           "evals_to_target", "experimental_class", "export_t4", "fixed_from_records",
           "goal_check", "is_fresh", "knob_preferences", "make_objective", "make_sampler",
           "open_storage", "params_key", "plot_convergence", "predictions", "run_kt_strategy",
           "run_study", "simulate", "simulate_spec", "storage_url", "summarize_runs",
           "tune_spec", "write_best",
           "write_kt_cache"]

from gencl._callable import make_callable  # noqa: E402

make_callable(__name__, "tune")  # gencl.tune(...) is gencl.api.tune(...)
