"""Generate: a spec's points → loopy transforms → OpenCL variants (cached, parallel)."""

from gencl.generate._auto_space import (
    DerivedSpace,
    NotAStencil,
    Stencil,
    analyse_program,
    derive_space,
    describe_space,
    with_derived_space,
)
from gencl.generate._generate import (
    GenerationFailure, generate, generate_many, lower, transform_program, write_variants)
from gencl.generate._variant import ArgInfo, Variant, program_hash, variant_id

__all__ = ["ArgInfo", "DerivedSpace", "GenerationFailure", "NotAStencil", "Stencil", "Variant",
           "analyse_program", "derive_space", "describe_space", "generate", "generate_many",
           "lower", "program_hash", "transform_program", "variant_id", "with_derived_space",
           "write_variants"]
