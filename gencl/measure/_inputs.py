"""Where a variant's timing data comes from: made per variant, or shared by a whole space.

``FreshInputs`` (tune): random inputs per variant, rotated through copies when they could sit
in the last-level cache by accident. ``ReusedInputs`` (run, profile): the same inputs, drawn and
uploaded once for consecutive points that would draw the very same data — a GPU copy sweep reads
1 GiB a point, the kernel takes a millisecond, drawing and uploading it seconds.
``SharedInputs`` (space): buffers made once per buffer layout and bound by every variant of that
layout — random 512³ grids cost seconds to make and upload, the kernels a fraction of a
millisecond, and an exhaustive space must fit minutes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol

import numpy as np

from gencl.measure._build import Built
from gencl.measure._engine import Bound, OpenCLEngine, device_array, evaluate


class TimingInputs(Protocol):
    """Binds the data a variant is timed on, and lets it go afterwards."""

    def bind(self, engine: OpenCLEngine, built: Built, sizes: Mapping[str, int],
             values: Mapping[str, Any] | None) -> Bound: ...

    def done(self, bound: Bound) -> None: ...

    def rotation_copies(self) -> int: ...

    def release(self) -> None: ...


class FreshInputs:
    """Inputs made for this variant (*values* when the check already made them at these sizes)."""

    def __init__(self, spec: Any, *, seed: int = 0) -> None:
        self.spec, self.seed = spec, seed
        self._copies = 1

    def bind(self, engine: OpenCLEngine, built: Built, sizes: Mapping[str, int],
             values: Mapping[str, Any] | None) -> Bound:
        if values is None:
            values = self.spec.inputs(built.variant.point, sizes, np.random.default_rng(self.seed))
        input_bytes = sum(np.asarray(v).nbytes for v in values.values() if not np.isscalar(v))
        self._copies = engine.rotation_copies(input_bytes) if self.spec.rotate_buffers else 1
        return engine.bind(built, sizes, values, copies=self._copies)

    def done(self, bound: Bound) -> None:
        bound.release()

    def rotation_copies(self) -> int:
        return self._copies

    def release(self) -> None:
        pass  # nothing outlives a bind


class _ReadPoint(Mapping):
    """A point that notes which of its fields are read (all of them once it is iterated)."""

    def __init__(self, point: Mapping[str, Any]) -> None:
        self._point = point
        self.read: set[str] | None = set()  # None: every field

    def __getitem__(self, key: str) -> Any:
        if self.read is not None:
            self.read.add(key)
        return self._point[key]

    def __contains__(self, key: object) -> bool:
        if self.read is not None and isinstance(key, str):
            self.read.add(key)
        return key in self._point

    def __iter__(self) -> Iterator[str]:
        self.read = None
        return iter(self._point)

    def __len__(self) -> int:
        self.read = None
        return len(self._point)


class ReusedInputs:
    """``FreshInputs`` drawn and uploaded once for consecutive points that draw the same data.

    The spec's ``inputs(point, sizes, rng)`` is a pure function of the point fields it reads, the
    sizes and the seed, so the first draw notes which fields it read; a later point with the same
    values of those fields and the same sizes gets the very same arrays, already on the device
    (read-only inputs, and write-only outputs whose content no timing depends on). Outputs that
    are also read are uploaded again for every variant. One draw is kept at a time: the sweeps
    run points of one input shape together, and a GPU buffer is a GiB.
    """

    def __init__(self, spec: Any, *, seed: int = 0) -> None:
        self.spec, self.seed = spec, seed
        self._copies = 1
        self._key: tuple | None = None  # (fields read or None, their values, sizes)
        self._values: dict[str, Any] = {}
        self._kept: dict[tuple, Any] = {}

    def _matches(self, point: Mapping[str, Any], sizes: Mapping[str, int]) -> bool:
        if self._key is None:
            return False
        fields, values, drawn_sizes = self._key
        if drawn_sizes != tuple(sorted(sizes.items())):
            return False
        if fields is None:
            return tuple(sorted(point.items())) == values
        return all(k in point and point[k] == v for k, v in zip(fields, values))

    def draw(self, point: Mapping[str, Any], sizes: Mapping[str, int]) -> dict[str, Any]:
        """The spec's inputs at *sizes* for *point*: drawn again only when they would differ."""
        if not self._matches(point, sizes):
            self.release()
            seen = _ReadPoint(point)
            self._values = dict(self.spec.inputs(seen, sizes, np.random.default_rng(self.seed)))
            if seen.read is None:
                self._key = (None, tuple(sorted(point.items())), tuple(sorted(sizes.items())))
            else:
                fields = tuple(sorted(seen.read))
                self._key = (fields, tuple(point.get(k) for k in fields),
                             tuple(sorted(sizes.items())))
        return self._values

    def bind(self, engine: OpenCLEngine, built: Built, sizes: Mapping[str, int],
             values: Mapping[str, Any] | None) -> Bound:
        values = self.draw(built.variant.point, sizes)
        input_bytes = sum(np.asarray(v).nbytes for v in values.values() if not np.isscalar(v))
        self._copies = engine.rotation_copies(input_bytes) if self.spec.rotate_buffers else 1
        return engine.bind(built, sizes, values, copies=self._copies, kept=self._kept)

    def done(self, bound: Bound) -> None:
        bound.release()  # the buffers read and written; the kept ones wait for the next point

    def rotation_copies(self) -> int:
        return self._copies

    def release(self) -> None:
        """Free the kept buffers and the drawn arrays (before another draw, and at the end)."""
        for buf in self._kept.values():
            buf.release()
        self._kept.clear()
        self._values = {}
        self._key = None


class SharedInputs:
    """Timing buffers per (argument layout, sizes): made once, bound by every variant."""

    def __init__(self, spec: Any, *, seed: int = 0) -> None:
        self.spec, self.seed = spec, seed
        self._key: tuple | None = None
        self._buffers: dict[str, Any] = {}
        self._values: dict[str, Any] = {}

    def bind(self, engine: OpenCLEngine, built: Built, sizes: Mapping[str, int],
             values: Mapping[str, Any] | None = None) -> Bound:
        import pyopencl as cl

        variant = built.variant
        arrays = ("global", "image")
        key = (tuple((a.name, a.dtype, a.shape) for a in variant.args if a.kind in arrays),
               tuple(sorted(sizes.items())))
        if key != self._key:
            self.release()  # one layout at a time: the grids are large
            self._values = dict(self.spec.inputs(variant.point, sizes,
                                                 np.random.default_rng(self.seed)))
            for arg in variant.args:
                if arg.kind not in arrays:
                    continue
                host = self._values.get(arg.name)
                if host is None:
                    count = int(np.prod([evaluate(e, sizes) for e in arg.shape]))
                    host = np.full(count, np.nan, dtype=arg.dtype)
                self._buffers[arg.name] = device_array(engine.ctx, arg,
                                                       np.ascontiguousarray(host), sizes)
            self._key = key
        env = {**{k: v for k, v in self._values.items() if np.isscalar(v)}, **sizes}
        args: list[Any] = []
        local_bytes = 0
        for arg in variant.args:
            if arg.kind in arrays:
                args.append(self._buffers[arg.name])
            elif arg.kind == "local":
                nbytes = int(np.prod([evaluate(e, env) for e in arg.shape])) * \
                    np.dtype(arg.dtype).itemsize
                local_bytes += nbytes
                args.append(cl.LocalMemory(nbytes))
            else:
                args.append(np.dtype(arg.dtype).type(self._values.get(arg.name,
                                                                      sizes.get(arg.name))))
        gsize = tuple(evaluate(e, env) for e in variant.global_size)
        lsize = tuple(evaluate(e, env) for e in variant.local_size)
        return Bound([args], {}, {}, gsize, lsize, local_bytes)  # shared buffers: none to free

    def done(self, bound: Bound) -> None:
        pass  # kept for the next variant of the same layout

    def rotation_copies(self) -> int:
        return 1

    def release(self) -> None:
        for buf in self._buffers.values():
            buf.release()
        self._buffers.clear()
        self._values.clear()
        self._key = None
