"""Sweeps: what a launch of k sweeps (temporal blocking) is worth, per sweep.

A point's launch advances ``steps_per_launch(spec, point)`` sweeps: k for a temporally blocked
point (``gencl.generate.temporal``: the ``temporal`` scheme and ``sweeps`` axes), 1 otherwise.
Everything a user compares is per sweep, from these pure functions (space reports, the tuner's
objective, the model, the solver):

- time per sweep: launch time / k;
- compulsory bytes per sweep: what ONE sweep done alone cannot avoid moving (each array once):
  the compulsory bytes of the point's single-sweep form. A launch of k sweeps moves them once
  for k sweeps, so its *effective* bandwidth (compulsory bytes per sweep / time per sweep) can
  exceed the copy bandwidth: that is what temporal blocking buys;
- what it costs on chip (``tile_traffic`` of the transform, where it reports one): local-memory
  bytes per sweep and the local bandwidth they imply, barriers, and the redundant updates of the
  recomputed halo in % of the grid's points.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gencl.errors import GenclError
from gencl.spec import (
    NO_TEMPORAL,
    SWEEPS_AXIS,
    TEMPORAL_AXIS,
    TEMPORAL_POINTS_AXIS,
    compulsory_bytes,
    matches,
    steps_per_launch,
)


#: the keys ``tile_traffic`` reports, per launch
TRAFFIC_KEYS = ("global_read_bytes", "global_write_bytes", "point_updates", "local_read_bytes",
                "local_write_bytes", "barriers_per_group", "copy_bytes_in_flight_per_item",
                "vectorized_updates", "global_reading_updates", "reread_read_only_bytes")


def time_per_sweep(spec: Any, record: Any) -> float | None:
    """Seconds per sweep of a measured record (a results dict or a Measurement): its launch
    median over the sweeps the launch runs; None when it has no time."""
    if isinstance(record, Mapping):
        median, point = record.get("median_s"), record["point"]
    else:
        median, point = record.median_s, record.point
    return float(median) / steps_per_launch(spec, point) if median else None


def one_sweep_form(point: Mapping[str, Any]) -> dict[str, Any]:
    """*point* with the temporal axes it has at one sweep and no scheme: the computation one
    sweep of it is (its reference and compulsory traffic), not necessarily a point of the
    space."""
    out = dict(point)
    if SWEEPS_AXIS in out:
        out[SWEEPS_AXIS] = 1
    if TEMPORAL_AXIS in out:
        out[TEMPORAL_AXIS] = NO_TEMPORAL
    return out


_SINGLE: dict[tuple[Any, ...], list[dict[str, Any]]] = {}


def single_sweep_point(spec: Any, point: Mapping[str, Any], device: Any = None) -> dict[str, Any]:
    """The point of the space that runs one sweep per launch and differs least from *point*:
    *point* itself when it is one, else its one-sweep form where the space has it, else the
    nearest one-sweep point (fewest axes changed; the space's order breaks ties). The solver
    runs the sweeps a temporal launch cannot (a remainder) with it."""
    if steps_per_launch(spec, point) == 1:
        return dict(point)
    form = one_sweep_form(point)
    if steps_per_launch(spec, form) == 1 and spec.excluded(form, device) is None:
        return form
    key = (spec.name, spec.source_hash, id(spec), getattr(device, "name", None))
    if key not in _SINGLE:
        _SINGLE[key] = [p for p in spec.points(device) if steps_per_launch(spec, p) == 1]
    candidates = _SINGLE[key]
    if not candidates:
        raise GenclError(f"{spec.path or spec.name}: no point of the space runs one sweep per "
                         "launch (the solver needs one for the remainder)")
    def changed(candidate: dict[str, Any]) -> int:
        return sum(not matches({k: point.get(k)}, {k: v}) for k, v in candidate.items())

    nearest = min(candidates, key=changed)
    return dict(nearest)


def compulsory_per_sweep(spec: Any, point: Mapping[str, Any], sizes: Mapping[str, int]) -> float:
    """Bytes one sweep cannot avoid moving: the compulsory bytes of *point*'s one-sweep form
    (a launch of k sweeps moves them once for all k)."""
    return compulsory_bytes(spec, one_sweep_form(point), sizes)


_GRID: dict[tuple[Any, ...], tuple[str, ...] | None] = {}


def grid_points(spec: Any, point: Mapping[str, Any], sizes: Mapping[str, int]) -> float | None:
    """Points one sweep updates (the abstract program's output domain at *sizes*), or None
    when the program is not a stencil gencl can read."""
    import pymbolic

    form = one_sweep_form(point)
    params = json.dumps({k: form.get(k) for k in spec.params}, default=str)
    key = (spec.name, spec.source_hash, id(spec.program), params)
    if key not in _GRID:
        from gencl.generate._auto_space import analyse_program

        try:
            _GRID[key] = tuple(a.extent for a in analyse_program(spec.program(form)).axes)
        except Exception:  # noqa: BLE001 -- NotAStencil or a form it cannot read: no share
            _GRID[key] = None
    extents = _GRID[key]
    if extents is None:
        return None
    total = 1.0
    for extent in extents:
        total *= float(pymbolic.evaluate(pymbolic.parse(extent), dict(sizes)))
    return total


def temporal_traffic(spec: Any, point: Mapping[str, Any], sizes: Mapping[str, int]
                     ) -> dict[str, float] | None:
    """What one launch of a temporally blocked *point* moves and computes
    (``gencl.generate.temporal.tile_traffic``: ``TRAFFIC_KEYS``), or None: a point without a
    temporal scheme, or a program the transform does not take (priced as any other point)."""
    scheme = point.get(TEMPORAL_AXIS, NO_TEMPORAL)
    if scheme in (None, NO_TEMPORAL):
        return None
    from gencl.generate.temporal import NotTemporal, read_temporal_form, tile_traffic

    try:
        form = read_temporal_form(spec.program(dict(point)), spec.hooks.ping_pong)
    except NotTemporal:
        return None
    traffic = tile_traffic(form, scheme, point.get(SWEEPS_AXIS, 1), tuple(point["workgroup"]),
                           tuple(point.get(TEMPORAL_POINTS_AXIS) or ()), dict(sizes))
    return {k: float(traffic[k]) for k in TRAFFIC_KEYS if k in traffic}


def sweep_figures(spec: Any, record: Mapping[str, Any], *, copy_bw: float | None = None,
                  traffic: Mapping[str, float] | None = None,
                  grid: float | None = None) -> dict[str, Any]:
    """Per-sweep figures of one measured record (``ok`` with a median).

    Keys: ``steps``, ``time_per_sweep_s``, ``compulsory_bytes_per_sweep``, ``effective_bw_Bps``
    (compulsory bytes per sweep / time per sweep), ``effective_over_copy`` (that over the copy
    bandwidth: above 1 only when a launch of several sweeps saves traffic); with the
    transform's *traffic* (default: ``temporal_traffic``), per sweep: ``global_bytes_per_sweep``,
    ``local_bytes_per_sweep``, ``local_bw_Bps`` (what the time per sweep implies),
    ``barriers_per_group_per_sweep`` and ``redundant_updates_pct`` (updates beyond one per grid
    point, in % of the grid's points; *grid* default: ``grid_points``).
    """
    point, sizes = record["point"], record["sizes"]
    k = steps_per_launch(spec, point)
    t = time_per_sweep(spec, record)
    nbytes = compulsory_per_sweep(spec, point, sizes)
    out: dict[str, Any] = {
        "steps": k, "time_per_sweep_s": t, "compulsory_bytes_per_sweep": nbytes,
        "effective_bw_Bps": nbytes / t if t else None,
        "effective_over_copy": nbytes / t / copy_bw if t and copy_bw else None}
    if traffic is None:
        traffic = temporal_traffic(spec, point, sizes)
    if traffic:
        local = (traffic.get("local_read_bytes", 0.0) + traffic.get("local_write_bytes", 0.0)) / k
        out.update(
            global_bytes_per_sweep=(traffic.get("global_read_bytes", 0.0)
                                    + traffic.get("global_write_bytes", 0.0)) / k,
            local_bytes_per_sweep=local, local_bw_Bps=local / t if t else None,
            barriers_per_group_per_sweep=traffic.get("barriers_per_group", 0.0) / k)
        cells = grid if grid is not None else grid_points(spec, point, sizes)
        if cells and "point_updates" in traffic:
            out["redundant_updates_pct"] = (traffic["point_updates"] / k - cells) / cells * 100
    return out
