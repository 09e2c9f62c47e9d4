"""Work-group shape: map inames onto work-group (l.k) and group (g.k) axes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import loopy as lp

from gencl.generate.knobs._base import Transform


def map_to_workgroups(t: lp.TranslationUnit, inames: Sequence[str],
                      shape: Sequence[int]) -> lp.TranslationUnit:
    """Split ``inames[k]`` by ``shape[k]``: outer part ``g.k``, inner part ``l.k``.

    Extents that are not multiples of the work-group size are guarded by loopy, so any size runs.
    A program that maps its axes onto work-groups itself (a temporal form) is left as it is.
    """
    if mapped_to_workgroups(t):
        return t
    known = t.default_entrypoint.all_inames()
    for axis, (iname, size) in enumerate(zip(inames, shape)):
        # follow an earlier split (e.g. by the vector knob): "i" became "i_outer" + "i_inner"
        while iname not in known and any(k.startswith(f"{iname}_outer") for k in known):
            iname = f"{iname}_outer"
        t = lp.split_iname(t, iname, int(size), outer_tag=f"g.{axis}", inner_tag=f"l.{axis}")
    return t


def mapped_to_workgroups(t: lp.TranslationUnit) -> bool:
    """Whether some iname of *t* is already a work-item or group axis (a program of one work
    item per group, the temporal strip scheme, has group axes only)."""
    from loopy.kernel.data import GroupInameTag, LocalInameTag

    knl = t.default_entrypoint
    return any(knl.iname_tags_of_type(name, (LocalInameTag, GroupInameTag))
               for name in knl.all_inames())


def _apply(t: lp.TranslationUnit, value: Any, *, point: Any, inames: Sequence[str]):
    shape = value if isinstance(value, tuple | list) else (value,)
    return map_to_workgroups(t, inames, shape)


def _check(value: Any) -> str | None:
    shape = value if isinstance(value, tuple | list) else (value,)
    if all(isinstance(s, int) and s >= 1 for s in shape) and len(shape) <= 3:
        return None
    return "work-group shape must be 1 to 3 positive integers"


TRANSFORM = Transform("workgroup", _apply, _check)
