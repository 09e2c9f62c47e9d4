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

from collections.abc import Sequence
from dataclasses import dataclass

from gencl.generate.temporal._form import NotTemporal, TemporalForm

SCHEMES = ("tile", "stream", "strip")


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
        import math
        return math.prod(self.owned[1:] if self.scheme == "stream" else self.owned)

    @property
    def ring(self) -> int:
        """Stream scheme: planes each time level keeps (the 2r+1 a level reads, one being
        written)."""
        return self.lo[0] + self.hi[0] + 2

    @property
    def delay(self) -> int:
        """Stream scheme: planes level s trails level s − 1 by (hi + 1: all levels of a step
        run without a barrier between them)."""
        return self.hi[0] + 1

    @property
    def steps(self) -> int:
        """Stream scheme: steps of a chunk (planes loaded, plus the pipeline's drain), rounded up
        to a multiple of the ring (the step loop is unrolled by it: ring slots are constants;
        the extra steps do nothing but their barrier)."""
        busy = self.points[0] + self.sweeps * (self.lo[0] + self.hi[0] + 1)
        return -(-busy // self.ring) * self.ring


def geometry(form: TemporalForm, scheme: str, sweeps: int, workgroup: Sequence[int],
             points: Sequence[int]) -> Geometry:
    """The geometry of a point; *workgroup* and *points* contiguous axis first.

    Raises:
        NotTemporal: the values do not fit the program or the scheme.
    """
    d = form.ndim
    if scheme not in SCHEMES:
        raise NotTemporal(f"scheme {scheme!r} is not one of {SCHEMES}")
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
    for d, (t, n) in enumerate(zip(geo.tile, geo.loaded)):
        if t < 1:
            raise NotTemporal(f"a loaded tile of {n} points along axis {d} (work-group × points) "
                              f"leaves no output after {sweeps} sweeps' margins")
    return geo
