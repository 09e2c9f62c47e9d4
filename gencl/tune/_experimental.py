"""``@experimental_class``: gencl's copy of Optuna's marker, for parts not yet shown to help."""

from __future__ import annotations

import functools
import warnings
from typing import Any, TypeVar

T = TypeVar("T")


class ExperimentalWarning(UserWarning):
    pass


def experimental_class(version: str):
    """Warn once per instantiation and add a note to the docstring, like Optuna's marker."""

    def decorate(cls: T) -> T:
        init = cls.__init__  # type: ignore[misc]

        @functools.wraps(init)
        def wrapped(self: Any, *args: Any, **kwargs: Any) -> None:
            name = getattr(cls, "__name__", cls)
            warnings.warn(f"{name} is experimental (gencl {version}): the interface "
                          "may change; its benefit is measured by `gencl tune --simulate`.",
                          ExperimentalWarning, stacklevel=2)
            init(self, *args, **kwargs)

        cls.__init__ = wrapped  # type: ignore[misc]
        note = f"\n\n    .. note:: Experimental since gencl {version}.\n"
        cls.__doc__ = (cls.__doc__ or "") + note
        return cls

    return decorate
