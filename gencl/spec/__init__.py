"""Spec format: one abstract program, its space, reference and metrics per file."""

from gencl.spec._load import check_point, find_spec_file, list_spec_files, load_spec, validate_spec
from gencl.spec._spec import BenchmarkSpec, Knob, Point, Sizes

__all__ = ["BenchmarkSpec", "Knob", "Point", "Sizes", "check_point", "find_spec_file",
           "list_spec_files", "load_spec", "validate_spec"]
