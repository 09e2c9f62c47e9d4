"""A hand-written kernel's arguments, by name, from the context: inputs, poisoned outputs, sizes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gencl.peers._context import PeerContext

#: inputs of a hand-written kernel, or its reference, when they differ from the spec's (another
#: layout): functions of the context
Data = Callable[[PeerContext], Mapping[str, Any]]


def host_arguments(ctx: PeerContext, names: Sequence[str], inputs: Data | None,
                   expected: Data | None) -> tuple[list[tuple[str, Any]], dict[str, np.ndarray]]:
    """([(name, host value)] in kernel order, expected outputs by name).

    An argument is an input (array or scalar), else an output of the reference (poisoned: NaN or
    a bit pattern, so an unwritten element fails), else a size (as int32).
    """
    from gencl.measure import poison

    host = inputs(ctx) if inputs is not None else ctx.inputs
    want = {k: np.asarray(v) for k, v in (expected(ctx) if expected is not None
                                          else ctx.expected()).items()}
    out: list[tuple[str, Any]] = []
    for name in names:
        if name in host:
            value = host[name]
            out.append((name, np.ascontiguousarray(value) if isinstance(value, np.ndarray)
                        else value))
        elif name in want:
            out.append((name, poison(want[name].dtype, want[name].size).reshape(
                want[name].shape)))
        elif name in ctx.sizes:
            out.append((name, np.int32(ctx.sizes[name])))
        else:
            raise ValueError(f"kernel argument {name!r} is no input, reference output or size")
    return out, want
