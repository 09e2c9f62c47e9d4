"""The temporal axes of a space and their constraints (hand-bound and derived spaces alike).

Axes (``gencl.spec``'s names): ``temporal`` (``none``, ``tile``, ``stream``, ``stream_async``,
``strip``), ``sweeps`` (k) and ``temporal_points`` (points per work item per axis, contiguous
first; for ``stream`` the outermost entry is the chunk of planes, for ``strip`` the points are
the whole tile its one work item loads), with the space's ``workgroup`` axis for the group
shape (strip: one work item per group, so it takes the axis's first value only: one point per
tile). ``temporal_knobs`` gives the axes, ``temporal_constraint`` the rule that keeps them
consistent and within the device.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gencl.generate.temporal._form import NotTemporal, TemporalForm, read_temporal_form
from gencl.generate.temporal._geometry import SCHEMES, geometry
from gencl.generate.temporal._program import local_bytes
from gencl.spec import NO_TEMPORAL, SWEEPS_AXIS, TEMPORAL_AXIS, TEMPORAL_POINTS_AXIS, Knob

#: sweeps per launch offered, by number of axes (deeper in 2-D: a plane's halo is cheaper)
SWEEPS = {2: (1, 2, 4, 6, 8), 3: (1, 2, 3, 4)}
#: points per work item, contiguous axis first, by number of axes: the tile scheme's (large
#: tiles: small ones lose to halo recomputation) and the stream scheme's (outermost: the chunk)
#: The work items cover the loaded tile (W × P per axis) and own its part the k sweeps leave
#: (W × P − k·margins): P must make W × P well above the margins, on the outermost axis of a 3-D
#: tile too (the work-groups there are one plane thick)
TILE_POINTS = {2: ((1, 4), (1, 8), (2, 4), (2, 8)), 3: ((1, 1, 8), (1, 2, 8), (2, 2, 8))}
STREAM_POINTS = {2: ((1, 128), (1, 512), (2, 128), (2, 256)),
                 3: ((1, 1, 64), (1, 2, 64), (2, 2, 64), (1, 4, 64), (1, 2, 256), (1, 2, 171),
                     (1, 3, 128), (1, 3, 256))}
#: output points a tile-scheme work-group owns at least (smaller tiles lose to the margin they
#: recompute: issue 14's 222 µs per sweep with work-group-sized tiles)
MIN_TILE = 1024
#: the strip scheme's tiles (the loaded tile, contiguous axis first), by number of axes: a CPU
#: core's L2 holds the two halves and the read-only arrays' tile (PoCL reports its L2 as the
#: local memory size: 1.25 MiB on the Xeon measured); rows of 128 points or more keep the
#: vectorised inner loop long, and the margins of k ≤ 8 sweeps small. Measured on PoCL
#: (2026-11-22, Jacobi 4096², k = 8): 512×128 ran 1.5–1.9× the plain sweep, 256×256 1.1–1.7×
STRIP_POINTS = {2: ((256, 128), (512, 128), (256, 256), (1024, 64), (512, 256)),
                3: ((64, 32, 16), (128, 32, 16), (64, 64, 16), (128, 16, 16))}
#: private values a work item keeps per owned point (staging, registers): more spill
MAX_OWNED = 48
#: local memory the runtime keeps per work-group (CUDA reserves 1 KiB of shared memory per
#: block for system use since sm_80; NVIDIA's OpenCL runs on the same hardware)
LOCAL_RESERVE = 1024


#: NVIDIA compute capability from which ``cp.async`` (global → shared copies) exists
ASYNC_COPY_CC = (8, 0)


def has_async_copy(device: Any) -> bool:
    """Whether *device* copies global → ``__local`` asynchronously (``stream_async``)."""
    cc = getattr(device, "compute_capability", None)
    try:
        return cc is not None and tuple(int(x) for x in str(cc).split(".")[:2]) >= ASYNC_COPY_CC
    except ValueError:
        return False


def temporal_knobs(ndim: int, ping_pong: Sequence[tuple[str, str]]) -> dict[str, Knob]:
    """The three temporal axes (apply them first: the scheme replaces the program)."""
    default = (1,) * ndim
    return {
        TEMPORAL_AXIS: Knob("temporal", (NO_TEMPORAL, *SCHEMES),
                            {"ping_pong": tuple(tuple(p) for p in ping_pong)}),
        SWEEPS_AXIS: Knob("temporal_parameter", SWEEPS.get(ndim, (1, 2, 4))),
        TEMPORAL_POINTS_AXIS: Knob("temporal_parameter", (
            default, *TILE_POINTS.get(ndim, ()), *STREAM_POINTS.get(ndim, ()),
            *STRIP_POINTS.get(ndim, ()))),
    }


def offered(axes: Mapping[str, Knob], rule: Callable[[Any, Any], str | None],
            base: Mapping[str, Any], workgroup: str, workgroups: Sequence[Any]
            ) -> dict[str, Knob] | None:
    """*axes* cut to the values some valid point takes (the rule at no device): a scheme, a
    sweep count or a points value no work-group can take here (the margins of a radius-4 star
    overflow every tile at k = 4) is not offered. None when no temporal point is valid."""
    import dataclasses

    schemes, sweeps, points = (axes[a].values for a in (TEMPORAL_AXIS, SWEEPS_AXIS,
                                                        TEMPORAL_POINTS_AXIS))
    fits = {(s, k, p) for s in schemes[1:] for k in sweeps if k > 1 for p in points[1:]
            if any(rule({**base, TEMPORAL_AXIS: s, SWEEPS_AXIS: k, TEMPORAL_POINTS_AXIS: p,
                         workgroup: wg}, None) is None for wg in workgroups)}
    if not fits:
        return None
    keep = {TEMPORAL_AXIS: schemes[:1] + tuple(s for s in schemes[1:] if any(
                f[0] == s for f in fits)),
            SWEEPS_AXIS: tuple(k for k in sweeps if k == 1 or any(f[1] == k for f in fits)),
            TEMPORAL_POINTS_AXIS: points[:1] + tuple(p for p in points[1:] if any(
                f[2] == p for f in fits))}
    return {name: dataclasses.replace(knob, values=keep[name]) if name in keep else knob
            for name, knob in axes.items()}


def temporal_constraint(program: Callable[[Any], Any], ping_pong: Sequence[tuple[str, str]],
                        *, params: Sequence[str], defaults: Mapping[str, Any],
                        sizes: Callable[[Any, Any, bool], Mapping[str, int]],
                        workgroup: str = "workgroup", workgroups: Sequence[Any] = ()
                        ) -> Callable[[Any, Any], str | None]:
    """The constraint of the temporal axes.

    Args:
        program: the spec's program function (read at each point's parameters, cached).
        params: the program parameters (the form is read once per their values).
        defaults: the other transforms' axes and the value a temporal point needs them at
            (vector width 1, no register block, no streaming, no local tile).
        sizes: the spec's sizes function (tiles no larger than the timing sizes).
        workgroups: the work-group axis's values: a strip point (one work item per group,
            the axis does not apply) takes the first only, so each tile is measured once.
    """
    forms: dict[str, TemporalForm | str] = {}

    def form_of(point: Mapping[str, Any]) -> TemporalForm | str:
        key = repr([point.get(p) for p in params])
        if key not in forms:
            try:
                forms[key] = read_temporal_form(program(dict(point)), ping_pong)
            except NotTemporal as exc:
                forms[key] = str(exc)
        return forms[key]

    def constraint(point: Mapping[str, Any], device: Any) -> str | None:
        scheme, k, pts = point[TEMPORAL_AXIS], point[SWEEPS_AXIS], tuple(
            point[TEMPORAL_POINTS_AXIS])
        if scheme == "none":
            if k != 1:
                return "sweeps > 1 needs temporal blocking (temporal tile or stream)"
            if any(p != 1 for p in pts):
                return "temporal points are the temporal schemes' (1 per axis without)"
            return None
        if k == 1:
            return "temporal blocking runs sweeps > 1 (one sweep is the plain program)"
        for axis, value in defaults.items():
            if point[axis] != value:
                return f"temporal blocking takes {axis} = {value} (its own tiling)"
        form = form_of(point)
        if isinstance(form, str):
            return f"temporal: {form}"
        owner = {"tile": TILE_POINTS, "stream": STREAM_POINTS, "stream_async": STREAM_POINTS,
                 "strip": STRIP_POINTS}
        if pts not in owner[scheme].get(form.ndim, ()) and any(
                pts in table.get(form.ndim, ()) for table in owner.values()):
            return f"temporal points {pts} are not the {scheme} scheme's"
        if scheme == "strip" and workgroups and tuple(point[workgroup]) != tuple(workgroups[0]):
            return (f"temporal strip runs one work item per group: it takes {workgroup} = "
                    f"{tuple(workgroups[0])} only (the axis does not apply)")
        try:
            geo = geometry(form, scheme, k, point[workgroup], pts)
        except NotTemporal as exc:
            return f"temporal: {exc}"
        if scheme in ("tile", "strip") and math.prod(geo.tile) < MIN_TILE:
            return f"tile of {math.prod(geo.tile)} points < {MIN_TILE} (the margin would dominate)"
        if scheme != "strip" and geo.per_item > MAX_OWNED:
            return f"{geo.per_item} tile points per work item > {MAX_OWNED} (spills)"
        if device is None:
            return None
        if geo.copy == "async" and not has_async_copy(device):
            return ("temporal stream_async copies with cp.async: NVIDIA compute capability "
                    f"{'.'.join(map(str, ASYNC_COPY_CC))} or later (this device: "
                    f"{getattr(device, 'compute_capability', None) or 'not NVIDIA'})")
        items = math.prod(geo.group)
        if items > device.max_work_group_size:
            return f"work-group {items} > device max {device.max_work_group_size}"
        nbytes = local_bytes(form, geo)
        if nbytes > device.local_mem_bytes - LOCAL_RESERVE:
            return (f"temporal tile {nbytes} B > device local memory {device.local_mem_bytes} B "
                    f"less {LOCAL_RESERVE} B reserved")
        if scheme == "strip":
            # the sweeps also read the read-only arrays' tile: with the two halves it must stay
            # in the core's cache, which a CPU runtime reports as the local memory size (PoCL)
            working = nbytes + form.itemsize * math.prod(geo.loaded) * len(form.registers)
            if working > device.local_mem_bytes - LOCAL_RESERVE:
                return (f"temporal strip's working set {working} B (two halves and the "
                        f"read-only tiles) > device local memory {device.local_mem_bytes} B "
                        f"less {LOCAL_RESERVE} B reserved")
        timing = sizes(point, device, False)
        for extent, t in zip(form.extents, geo.tile):
            n = _evaluate(extent, timing)
            if n is not None and t > n:
                return f"temporal tile {t} larger than the extent {n} it runs at"
        return None

    return constraint


def _evaluate(expr: str, sizes: Mapping[str, Any]) -> int | None:
    import pymbolic
    try:
        return int(pymbolic.evaluate(_parsed(expr), dict(sizes)))
    except Exception:  # noqa: BLE001 -- an unknown variable
        return None


@functools.cache
def _parsed(expr: str) -> Any:
    """An extent's expression, parsed once (the constraint evaluates it at every point)."""
    import pymbolic

    return pymbolic.parse(expr)
