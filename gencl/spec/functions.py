"""OpenCL builtins loopy 2025.2 does not know, for spec programs to register.

They live in the package, not in a spec module: loopy pickles callables into its disk cache, and
an unpickling process (a pytest-xdist worker, a codegen worker) must be able to import the class.
"""

from __future__ import annotations

from typing import Any

import loopy as lp
from constantdict import constantdict


class NativeFunction(lp.ScalarCallable):
    """An OpenCL ``native_*`` builtin (e.g. ``native_cos``): one argument, same type out."""

    def with_types(self, arg_id_to_dtype: Any, clbl_inf_ctx: Any) -> Any:
        dtype = arg_id_to_dtype.get(0)
        if dtype is None:
            return self.copy(arg_id_to_dtype=arg_id_to_dtype), clbl_inf_ctx
        return (self.copy(name_in_target=self.name,
                          arg_id_to_dtype=constantdict({0: dtype, -1: dtype})),
                clbl_inf_ctx)


def register_native(t: lp.TranslationUnit, name: str) -> lp.TranslationUnit:
    """Let *t* call the OpenCL builtin *name* (``native_cos``, ``native_exp``, …)."""
    return lp.register_callable(t, name, NativeFunction(name))
