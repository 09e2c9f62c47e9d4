"""Measure: build (cached) → verify once vs numpy → time with OpenCL events → Measurement."""

from gencl.measure._build import Built, BuildFailure
from gencl.measure._engine import Bound, Engine, OpenCLEngine, compare, poison
from gencl.measure._measurement import (
    STATUSES, Measurement, dominant_failure, explain_failure)
from gencl.measure._run import (
    SCHEMA_VERSION, ResultsFile, measure_variant, results_header, run_points, verify_variant)
from gencl.measure._stats import SampleStats, launches_per_sample, summarize

__all__ = ["SCHEMA_VERSION", "STATUSES", "Bound", "BuildFailure", "Built", "Engine", "Measurement",
           "OpenCLEngine", "ResultsFile", "SampleStats", "compare", "dominant_failure",
           "explain_failure", "launches_per_sample",
           "measure_variant", "poison", "results_header", "run_points", "summarize",
           "verify_variant"]
