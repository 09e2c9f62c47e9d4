"""The entry point: a program and a temporal point → the blocked program."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gencl.generate.temporal._form import TemporalForm, read_temporal_form
from gencl.generate.temporal._geometry import Geometry, geometry


def temporal_program(t: Any, ping_pong: Sequence[tuple[str, str]], *, scheme: str,
                     sweeps: int, workgroup: Sequence[int], points: Sequence[int]) -> Any:
    """*t* (an untransformed ping-pong update) as *sweeps* sweeps per launch.

    Args:
        scheme: ``"tile"``, ``"stream"``, ``"stream_async"`` (input planes copied
            asynchronously: NVIDIA, compute capability 8.0 and later) or ``"strip"``.
        workgroup: work-group extents, contiguous axis first (strip: one work item per tile,
            the value does not apply).
        points: points per work item per axis, contiguous axis first (stream: the outermost
            entry is the chunk of planes a work-group walks; strip: the loaded tile).

    Raises:
        NotTemporal: the program or the values do not fit (the message says why).
    """
    form = read_temporal_form(t, ping_pong)
    geo = geometry(form, scheme, sweeps, workgroup, points)
    return build(form, geo)


def build(form: TemporalForm, geo: Geometry) -> Any:
    from gencl.generate.temporal._stream import stream_program
    from gencl.generate.temporal._strip import strip_program
    from gencl.generate.temporal._tile import tile_program

    return {"tile": tile_program, "stream": stream_program,
            "strip": strip_program}[geo.scheme](form, geo)


def local_bytes(form: TemporalForm, geo: Geometry) -> int:
    """Bytes of ``__local`` memory one work-group of the blocked program allocates."""
    import math

    if geo.scheme in ("tile", "strip"):  # two halves
        return 2 * form.itemsize * math.prod(geo.loaded)
    planes = geo.sweeps * geo.ring + geo.input_ring - geo.ring
    return form.itemsize * planes * math.prod(geo.loaded[1:])
