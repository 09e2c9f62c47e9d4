"""Generate: a spec's points → loopy transforms → OpenCL variants (cached, parallel)."""

from gencl.generate._generate import (
    GenerationFailure, generate, generate_many, lower, transform_program, write_variants)
from gencl.generate._variant import ArgInfo, Variant, program_hash, variant_id

__all__ = ["ArgInfo", "GenerationFailure", "Variant", "generate", "generate_many", "lower",
           "program_hash", "transform_program", "variant_id", "write_variants"]
