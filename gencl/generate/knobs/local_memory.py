"""Local memory: cache an array in ``__local`` memory, static or as a dynamic kernel argument.

Also the occupancy pad of seed 000 eq. 2: a dynamic ``__local`` argument sized at launch that
limits how many work-groups fit on a compute unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import loopy as lp
import numpy as np

from gencl.errors import KnobError
from gencl.generate.knobs._base import Transform, one_of

MODES = ("none", "static", "dynamic")

#: Name of the occupancy pad argument; its size comes from the sizes key ``local_pad_bytes``.
PAD_ARG = "gencl_local_pad"


def cache_in_local(t: lp.TranslationUnit, array: str, sweep_inames: Sequence[str], mode: str, *,
                   fetch_tag: str = "l.auto") -> lp.TranslationUnit:
    """Prefetch the footprint of *array* over *sweep_inames* into local memory.

    ``"static"`` emits a sized ``__local`` array in the kernel; ``"dynamic"`` passes the same
    buffer as a ``__local`` kernel argument sized at launch (its size stays the static footprint).
    """
    if mode == "none":
        return t
    if mode not in MODES:
        raise KnobError(f"local memory mode {mode!r} is not one of {MODES}")
    name = f"{array}_local"
    t = lp.add_prefetch(t, array, list(sweep_inames), fetch_bounding_box=True,
                        temporary_name=name, default_tag=fetch_tag)
    # a tile that does not vary along a local axis of the group (div3d's 2-D tile of fx, read
    # at one plane, in 32x4x1 groups of a 3-D launch) leaves its fetch off that axis, which
    # loopy refuses, and the tile then reads as private; the fetch runs on that axis too (where
    # the axis is longer than 1 each of its items would store the same tile: no space here has
    # such a group) and the tile is declared __local
    t = lp.add_inames_for_unused_hw_axes(t, within=f"id:{array}_fetch_rule*")
    t = lp.set_temporary_address_space(t, name, lp.AddressSpace.LOCAL)
    if mode == "static":
        return t
    return local_temporary_to_argument(t, name)


def local_temporary_to_argument(t: lp.TranslationUnit, name: str) -> lp.TranslationUnit:
    """Turn local temporary *name* into a ``__local`` kernel argument.

    loopy does not insert barriers for local arguments, so the program is linearized first, with
    the barriers its static form needs; then the temporary moves into the argument list.
    """
    t = lp.linearize(lp.preprocess_kernel(t))
    knl = t.default_entrypoint
    temp = knl.temporary_variables[name]
    arg = lp.ArrayArg(name, temp.dtype, shape=temp.shape, dim_tags=temp.dim_tags,
                      address_space=lp.AddressSpace.LOCAL, is_input=True, is_output=False)
    temps = {k: v for k, v in knl.temporary_variables.items() if k != name}
    knl = knl.copy(args=[*knl.args, arg], temporary_variables=temps)
    return t.with_kernel(knl)


def pad_local_memory(t: lp.TranslationUnit) -> lp.TranslationUnit:
    """Add an unused dynamic ``__local`` argument; its byte size is given at launch.

    Seed 000 eq. 2: localMem = floor(MaxLocalMem / concWG) caps the concurrent work-groups per
    compute unit at concWG. The engine sizes it from the sizes key ``local_pad_bytes``.
    """
    from pymbolic import parse

    knl = t.default_entrypoint
    arg = lp.ArrayArg(PAD_ARG, np.int8, shape=(1,), address_space=lp.AddressSpace.LOCAL,
                      is_input=True, is_output=False)
    # loopy passes only the arguments a device kernel uses: one dead read keeps the pad in the
    # signature (the OpenCL compiler drops the read, the allocation stays)
    probe = lp.Assignment(parse("gencl_pad_probe"), parse(f"{PAD_ARG}[0]"), id="gencl_pad_probe")
    temp = lp.TemporaryVariable("gencl_pad_probe", np.int8, shape=(),
                                address_space=lp.AddressSpace.PRIVATE)
    t = t.with_kernel(knl.copy(
        args=[*knl.args, arg], instructions=[*knl.instructions, probe],
        temporary_variables={**knl.temporary_variables, "gencl_pad_probe": temp}))
    # apply after the work-group knob: the probe joins the work-group axes
    return lp.add_inames_for_unused_hw_axes(t, within="id:gencl_pad_probe")


def _apply_cache(t: lp.TranslationUnit, value: str, *, point: Any, array: str,
                 sweep_inames: Sequence[str], fetch_tag: str = "l.auto"):
    return cache_in_local(t, array, sweep_inames, value, fetch_tag=fetch_tag)


def _apply_pad(t: lp.TranslationUnit, value: bool, *, point: Any):
    return pad_local_memory(t) if value else t


def _apply_allocation(t: lp.TranslationUnit, value: str, *, point: Any, temporary: str):
    # "static" keeps the program's sized __local temporary; "dynamic" makes it an argument. It
    # linearizes (see local_temporary_to_argument), so a spec lists this knob last.
    return local_temporary_to_argument(t, temporary) if value == "dynamic" else t


TRANSFORM = Transform("local_memory", _apply_cache, one_of(*MODES))
PAD_TRANSFORM = Transform("local_pad", _apply_pad, one_of(True, False))
#: A program's own ``__local`` temporary as a sized array (static) or a launch-sized argument.
ALLOCATION_TRANSFORM = Transform("local_allocation", _apply_allocation,
                                 one_of("static", "dynamic"))
