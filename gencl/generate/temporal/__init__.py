"""Temporal blocking: k sweeps of a ping-pong update per launch, as a transform of its program.

``temporal_program(t, ping_pong, scheme=..., sweeps=k, workgroup=W, points=P)`` builds the
blocked program from the abstract one (``read_temporal_form`` reads what it needs; a program it
cannot take raises ``NotTemporal``). The schemes: ``tile`` (overlapped tiles in local memory,
the halo recomputed), ``stream`` (AN5D-style: the work-group tiles the inner axes and walks the
outermost axis, the k time levels pipelined in rings of planes; ``stream_async`` the same
with the input planes copied asynchronously, NVIDIA compute capability 8.0 and later) — for
GPUs — and ``strip`` (the CPU form: one work item per overlapped tile, the sweeps as
vectorisable loops, no barrier). ``local_bytes`` and ``tile_traffic`` are closed forms of what
the generated code allocates and moves.
"""

from gencl.generate.temporal._form import NotTemporal, TemporalForm, read_temporal_form
from gencl.generate.temporal._geometry import SCHEMES, Geometry, geometry
from gencl.generate.temporal._program import local_bytes, temporal_program
from gencl.generate.temporal._space import offered, temporal_constraint, temporal_knobs
from gencl.generate.temporal._traffic import tile_traffic

__all__ = ["SCHEMES", "Geometry", "NotTemporal", "TemporalForm", "geometry", "local_bytes",
           "offered", "read_temporal_form", "temporal_constraint", "temporal_knobs",
           "temporal_program", "tile_traffic"]
