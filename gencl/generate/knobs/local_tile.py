"""Local tile: cache a work-group's whole footprint of an array in ``__local`` memory.

The ``local_memory`` knob needs the sweep inames by name; which inames a work-group spans
depends on the knobs applied before (vector split, register blocking, work-group split). This
knob finds them: every iname not mapped to a group axis (``g.k``) is inside one work-group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import loopy as lp

from gencl.generate.knobs._base import Transform, one_of
from gencl.generate.knobs.local_memory import MODES, cache_in_local, local_temporary_to_argument


def work_group_inames(t: lp.TranslationUnit) -> list[str]:
    """Inames a single work-group sweeps: all but those tagged with a group axis."""
    from loopy.kernel.data import GroupInameTag

    knl = t.default_entrypoint
    return sorted(name for name in knl.all_inames()
                  if not knl.iname_tags_of_type(name, GroupInameTag))


def cache_tile_in_local(t: lp.TranslationUnit, array: str, mode: str) -> lp.TranslationUnit:
    """Prefetch the work-group's bounding box of *array* (halo included) into local memory.

    *mode* as in ``cache_in_local``: none, static (``__local`` array in the kernel) or dynamic
    (``__local`` kernel argument sized at launch).
    """
    if mode == "none":
        return t
    return cache_in_local(t, array, work_group_inames(t), mode)


def own_tiles_form(t: lp.TranslationUnit, names: Sequence[str], mode: str) -> lp.TranslationUnit:
    """A program that declares its local tiles itself (temporal blocking): static keeps them as
    ``__local`` arrays, dynamic turns them into ``__local`` kernel arguments sized at launch."""
    if mode in ("none", "static"):
        return t
    for name in names:
        t = local_temporary_to_argument(t, name)
    return t


def _apply(t: lp.TranslationUnit, value: str, *, point: Any, array: str,
           own_tiles: Sequence[str] = ()):
    mine = [n for n in own_tiles if n in t.default_entrypoint.temporary_variables]
    if mine:
        return own_tiles_form(t, mine, value)
    return cache_tile_in_local(t, array, value)


TRANSFORM = Transform("local_tile", _apply, one_of(*MODES))
