"""Spec format: one abstract program, its space, reference and metrics per file."""

from gencl.spec._hooks import (
    NO_TEMPORAL, SWEEPS_AXIS, TEMPORAL_AXIS, TEMPORAL_POINTS_AXIS, ApplicationHooks,
    baseline_variant,
    compulsory_bytes, flops_per_launch, knob_text, matches, steps_per_launch, variant_name)
from gencl.spec._load import (
    check_knob, check_point, find_spec_file, list_spec_files, load_spec, validate_spec)
from gencl.spec._spec import BenchmarkSpec, Knob, Point, Sizes

__all__ = ["NO_TEMPORAL", "SWEEPS_AXIS", "TEMPORAL_AXIS", "TEMPORAL_POINTS_AXIS",
           "ApplicationHooks",
           "BenchmarkSpec", "Knob", "Point", "Sizes", "baseline_variant",
           "check_knob", "check_point", "compulsory_bytes", "find_spec_file", "flops_per_launch",
           "knob_text",
           "list_spec_files", "load_spec", "matches", "steps_per_launch", "validate_spec",
           "variant_name"]
