"""Measure: build (cached) → verify vs numpy (outputs poisoned) → time with events → Measurement.

One pipeline (``evaluate_variant``) serves ``gencl run``, ``space``, ``tune`` and ``verify``.
"""

from gencl.measure._build import Built, BuildFailure
from gencl.measure._engine import Bound, Engine, OpenCLEngine, compare, poison
from gencl.measure._inputs import FreshInputs, ReusedInputs, SharedInputs, TimingInputs
from gencl.measure._measurement import (
    STATUSES, Measurement, dominant_failure, explain_failure)
from gencl.measure._run import (
    HEADER_KEY, SCHEMA_VERSION, Evaluation, OutOfResources, ResultsFile, check_launches,
    evaluate_variant, measure_variant, read_partial, read_results_header, reference_after,
    results_header, run_points, verify_variant)
from gencl.measure._stats import SampleStats, launches_per_sample, summarize

__all__ = ["Bound", "BuildFailure", "Built", "Engine", "Evaluation", "FreshInputs",
           "HEADER_KEY", "Measurement", "OpenCLEngine", "OutOfResources", "ResultsFile",
           "ReusedInputs", "SCHEMA_VERSION", "STATUSES", "SampleStats", "SharedInputs",
           "TimingInputs",
           "check_launches", "compare", "dominant_failure", "evaluate_variant",
           "explain_failure", "launches_per_sample", "measure_variant", "poison",
           "read_partial", "read_results_header", "reference_after", "results_header",
           "run_points", "summarize", "verify_variant"]
