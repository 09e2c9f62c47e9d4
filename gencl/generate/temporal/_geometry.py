"""The shape of a temporally blocked launch: tile, loaded margin and ownership, per axis.

The schemes overlap their tiles: the work items of a group cover the tile it loads exactly
(L = W × P per axis: P points per work item, no partial passes over the work items), and the
group owns the inner part T = L − k·(lo + hi) that survives the k sweeps (``halo`` (lo, hi) per
sweep and axis); the margin is recomputed by the neighbours. The strip scheme's group is one
work item, which loads the whole tile (its ``points``). Axes here are outermost first, as in
``TemporalForm``; the knobs give work-group and points contiguous axis first, and ``geometry``
turns them around.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gencl.generate.temporal._form import NotTemporal, TemporalForm

SCHEMES = ("tile", "stream", "stream_async", "strip")
#: stream scheme: a plane is loaded one step before level 0 shares it, so its global latency
#: overlaps the step's work and barrier instead of stalling the store to the ring
LEAD = 1
#: ``stream_async``: the stream scheme with the input planes copied into the ``__local`` ring
#: without passing through registers (NVIDIA's ``cp.async``, compute capability 8.0 and later),
#: this many steps before level 0 reads them: the latency of two steps hidden at no register
#: cost. Measured on the H200 (2026-11-23, laplace3d 512³, k = 2, group 64×8, points 1×2×171):
#: the register form 259 µs per sweep, 179 with its loads removed (timing only: the loads'
#: latency was the largest cost) and 236 with its barriers removed; a hand-written form of this
#: pipeline 230 µs at 40 registers; the generated one, copies issued first in a step and the
#: shared address a 32-bit sum (``async_copy_preamble``), 253 µs at 48 (two groups per SM, not
#: three), and 235 µs at points 1×3×128
ASYNC_LEAD = 2


@dataclass(frozen=True)
class Geometry:
    """Per axis (outermost first): work-group extent ``group``, points per work item ``points``
    (for the stream scheme the outermost entry is the chunk of planes; the strip scheme's group
    is one work item and its points are the loaded tile), margins ``lo``/``hi``
    one sweep consumes, the loaded extent ``loaded`` (W × P; stream, outermost: the chunk plus
    k margins), the output tile ``tile`` (loaded less k margins) and the points each work item
    owns per axis ``owned`` (P)."""

    scheme: str
    sweeps: int
    group: tuple[int, ...]
    points: tuple[int, ...]
    lo: tuple[int, ...]
    hi: tuple[int, ...]
    #: stream scheme (``pipeline``): steps level s trails level s − 1, planes of a level's
    #: ``__local`` ring, planes of its register ring
    delay: int = 0
    ring: int = 0
    own_ring: int = 0
    #: stream scheme: steps a plane is loaded ahead of its use
    lead: int = 0
    #: stream scheme: how the input planes reach the ring — ``registers`` (a load into the
    #: work item's register ring, then a store) or ``async`` (copied global → ``__local``)
    copy: str = "registers"

    @property
    def ndim(self) -> int:
        return len(self.group)

    def _streamed(self, d: int) -> bool:
        return self.scheme == "stream" and d == 0

    @property
    def loaded(self) -> tuple[int, ...]:
        if self.scheme == "strip":  # one work item loads the whole tile
            return self.points
        k = self.sweeps
        return tuple(p + k * (lo + hi) if self._streamed(d) else w * p for d, (w, p, lo, hi)
                     in enumerate(zip(self.group, self.points, self.lo, self.hi)))

    @property
    def tile(self) -> tuple[int, ...]:
        k = self.sweeps
        return tuple(n - k * (lo + hi) for n, lo, hi in zip(self.loaded, self.lo, self.hi))

    @property
    def owned(self) -> tuple[int, ...]:
        return self.points

    @property
    def per_item(self) -> int:
        """Tile points one work item owns (stream: per plane; the planes are steps)."""
        return math.prod(self.owned[1:] if self.scheme == "stream" else self.owned)

    @property
    def input_ring(self) -> int:
        """Stream scheme: planes of level 0's ``__local`` ring — with asynchronous copies also
        the planes in flight (``lead`` of them, rounded to a multiple of the ring)."""
        return _fitted(self.ring + self.lead, self.ring) if self.copy == "async" else self.ring

    @property
    def unroll(self) -> int:
        """Stream scheme: steps the step loop is unrolled by (every ring slot a constant)."""
        return math.lcm(self.ring, self.own_ring, self.input_ring)

    @property
    def steps(self) -> int:
        """Stream scheme: steps of a chunk (planes loaded, plus the pipeline's drain), rounded up
        to a multiple of ``unroll`` (the extra steps do nothing but their barrier)."""
        busy = self.points[0] + self.sweeps * (self.lo[0] + self.delay) + self.lead
        return -(-busy // self.unroll) * self.unroll


def geometry(form: TemporalForm, scheme: str, sweeps: int, workgroup: Sequence[int],
             points: Sequence[int]) -> Geometry:
    """The geometry of a point; *workgroup* and *points* contiguous axis first.

    Raises:
        NotTemporal: the values do not fit the program or the scheme.
    """
    d = form.ndim
    if scheme not in SCHEMES:
        raise NotTemporal(f"scheme {scheme!r} is not one of {SCHEMES}")
    copy = "registers"
    if scheme == "stream_async":
        scheme, copy = "stream", "async"
    if sweeps < 1:
        raise NotTemporal(f"sweeps {sweeps} < 1")
    group = tuple(int(w) for w in workgroup)
    pts = tuple(int(p) for p in points)
    if len(group) < d or any(w != 1 for w in group[d:]):
        raise NotTemporal(f"work-group {group} does not fit a {d}-D program")
    if len(pts) != d or any(p < 1 for p in pts):
        raise NotTemporal(f"temporal points {pts}: one positive count per axis ({d})")
    group = tuple(reversed(group[:d]))
    pts = tuple(reversed(pts))
    if scheme == "strip":  # one work item per tile: the work-group axis does not apply
        group = (1,) * d
    if scheme == "stream":
        if d < 2:
            raise NotTemporal("the stream scheme needs two axes or more")
        if group[0] != 1:
            raise NotTemporal(f"stream scheme: the work-group spans the inner axes only (its "
                              f"outermost extent is {group[0]}, must be 1)")
    geo = Geometry(scheme, int(sweeps), group, pts, tuple(-lo for lo, _ in form.halo),
                   tuple(hi for _, hi in form.halo))
    if scheme == "stream":
        delay, ring, own_ring = pipeline(form)
        if copy == "async":  # the planes in flight wait in the ring, not in registers
            geo = replace(geo, delay=delay, ring=ring, own_ring=_fitted(own_ring, ring),
                          lead=ASYNC_LEAD, copy=copy)
            return _checked(geo, sweeps)
        # the load ahead costs a register plane per level; taken where that plane is all it
        # costs (a star stencil: 3 → 4 registers beside a 2-plane ring), not where it would
        # double the register ring (a box stencil: 4 → 8 beside a 4-plane ring; measured on the
        # H200, box2d9 lost 25 % with it)
        lead = LEAD if _fitted(own_ring + LEAD, ring) == own_ring + LEAD else 0
        geo = replace(geo, delay=delay, ring=ring, own_ring=_fitted(own_ring + lead, ring),
                      lead=lead)
    return _checked(geo, sweeps)


def _checked(geo: Geometry, sweeps: int) -> Geometry:
    for d, (t, n) in enumerate(zip(geo.tile, geo.loaded)):
        if t < 1:
            raise NotTemporal(f"a loaded tile of {n} points along axis {d} (work-group × points) "
                              f"leaves no output after {sweeps} sweeps' margins")
    return geo


def pipeline(form: TemporalForm) -> tuple[int, int, int]:
    """Stream scheme: (delay, ring, own_ring) of the update's reads of the input.

    Level s works on plane t − s·delay at step t; the levels of a step run in order (one
    barrier per step, before it). A read at walked-axis offset o of the work item's own column
    (every inner offset 0) comes from its registers: level s − 1 wrote that plane at step
    t − delay + o, which this step's earlier level may be (o ≤ delay). A read with an inner
    offset comes from the ``__local`` ring, written by other work items: only planes of earlier
    steps are safe (o < delay). So delay = max(own o, ring o + 1). A ring plane is read until
    delay − min(ring o) steps after its write, while one barrier per step lets another work
    item write the next slot in the same step: ring = delay − min(ring o) + 1 planes; registers
    are read until delay + lo steps after, and written before the read in a step: own_ring =
    delay + lo + 1. A star stencil (plane neighbours only in its own column, radius 1) gets
    delay 1, a 2-plane ring, 3 registers; a box stencil delay 2, 4 and 4. A read whose plane
    offset a loop moves goes through the ring at any offset of the halo.
    """
    from gencl.generate.temporal._form import input_offsets

    known = _PIPELINES.get(id(form))
    if known and known[0] is form:
        return known[1]
    lo0, hi0 = -form.halo[0][0], form.halo[0][1]
    own, ring = [0], []
    for off in input_offsets(form):
        if not all(isinstance(o, int) for o in off):
            ring += [-lo0, hi0]
        elif any(off[1:]):
            ring.append(off[0])
        else:
            own.append(off[0])
    delay = max(max(own), max(ring, default=-1) + 1, 1)
    found = delay, delay - min(ring, default=0) + 1, delay + max(0, -min(own)) + 1
    _PIPELINES[id(form)] = (form, found)
    return found


#: ``pipeline`` of each form seen (id → the form, kept alive so its id is not reused, and its
#: pipeline): the space's constraint asks for it at every stream point, and reading the input
#: offsets from the program took 19 of the 74 s that listing the stencil suite's spaces took
#: under cProfile
_PIPELINES: dict[int, tuple[TemporalForm, tuple[int, int, int]]] = {}


def _fitted(size: int, ring: int) -> int:
    """A register ring of at least *size* planes whose common multiple with the ``__local``
    ring is small (the step loop is unrolled by it): a multiple of the ring, or a divisor."""
    if size > ring:
        return -(-size // ring) * ring
    return min(d for d in range(size, ring + 1) if ring % d == 0)
