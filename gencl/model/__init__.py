"""Model: loopy statistics of a variant + the device profile → predicted time, bottleneck, hints."""

from gencl.model._calibrate import calibrated_accuracy, corrected_log_times, encode_points
from gencl.model._explain import (
    Accuracy, AccuracyRow, accuracy, accuracy_by_value, cache_accuracy, check_repeat, explain,
    RankedPoint, load_results, point_key, predict_points, predict_variant, rank_points,
    repeat_accuracy, repeat_summary, space_records)
from gencl.model._params import (
    TERM_SOURCES, ModelParams, load_device_profile, load_params, nominal_inputs, params_from,
    params_from_profile, results_root)
from gencl.model._pick import TIE_SHARE, model_pick, tied
from gencl.model._predict import Criterion, Prediction, access_efficiency, flop_rate, predict
from gencl.model._stats import Access, KernelStats, compute_stats, variant_stats

__all__ = ["Access", "Accuracy", "AccuracyRow", "Criterion", "KernelStats", "ModelParams",
           "Prediction", "RankedPoint", "access_efficiency", "accuracy", "accuracy_by_value",
           "flop_rate", "rank_points",
           "cache_accuracy", "calibrated_accuracy", "compute_stats", "corrected_log_times",
           "check_repeat", "encode_points", "explain", "load_device_profile", "load_params",
           "load_results", "model_pick", "nominal_inputs", "params_from", "params_from_profile",
           "point_key", "predict", "predict_points", "predict_variant", "repeat_accuracy",
           "repeat_summary", "results_root", "space_records", "tied", "variant_stats",
           "TERM_SOURCES", "TIE_SHARE"]
