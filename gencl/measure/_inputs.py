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
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from gencl.measure._build import Built
from gencl.measure._engine import Bound, OpenCLEngine, device_array, evaluate


class TimingInputs(Protocol):
    """Binds the data a variant is timed on, and lets it go afterwards."""

    def bind(self, engine: OpenCLEngine, built: Built, sizes: Mapping[str, int],
             offered: Draw | None) -> Bound: ...

    def done(self, bound: Bound) -> None: ...

    def rotation_copies(self) -> int: ...

    def release(self) -> None: ...


class FreshInputs:
    """Inputs made for this variant (the check's draw when it holds the same data)."""

    def __init__(self, spec: Any, *, seed: int = 0) -> None:
        self.spec, self.seed = spec, seed
        self._copies = 1

    def bind(self, engine: OpenCLEngine, built: Built, sizes: Mapping[str, int],
             offered: Draw | None) -> Bound:
        values = matching_draw(self.spec, built.variant.point, sizes, offered,
                               seed=self.seed).values
        input_bytes = sum(np.asarray(v).nbytes for v in values.values() if not np.isscalar(v))
        self._copies = engine.rotation_copies(input_bytes) if self.spec.rotate_buffers else 1
        return engine.bind(built, sizes, values, copies=self._copies)

    def done(self, bound: Bound) -> None:
        bound.release()

    def rotation_copies(self) -> int:
        return self._copies

    def release(self) -> None:
        pass  # nothing outlives a bind


class _ReadFields(Mapping):
    """A point or sizes mapping that notes which of its fields are read (all of them once it is
    iterated)."""

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self._fields = fields
        self.read: set[str] | None = set()  # None: every field

    def __getitem__(self, key: str) -> Any:
        if self.read is not None:
            self.read.add(key)
        return self._fields[key]

    def __contains__(self, key: object) -> bool:
        if self.read is not None and isinstance(key, str):
            self.read.add(key)
        return key in self._fields

    def __iter__(self) -> Iterator[str]:
        self.read = None
        return iter(self._fields)

    def __len__(self) -> int:
        self.read = None
        return len(self._fields)

    def key(self) -> tuple:
        """(fields read, or None for all; their values): what the draw depended on."""
        if self.read is None:
            return None, tuple(sorted(self._fields.items()))
        fields = tuple(sorted(self.read))
        return fields, tuple(self._fields.get(k, _ABSENT) for k in fields)


_ABSENT = object()  # a field read with ``in`` or ``get`` that the mapping does not hold


def _key_matches(key: tuple, fields: Mapping[str, Any]) -> bool:
    names, values = key
    if names is None:
        return tuple(sorted(fields.items())) == values
    return all(fields.get(k, _ABSENT) == v for k, v in zip(names, values))


@dataclass(frozen=True)
class Draw:
    """The spec's inputs for one (point, sizes), and the fields of each that the draw read.

    ``inputs(point, sizes, rng)`` is a pure function of the fields it reads and the seed, so
    the very same arrays serve any (point, sizes) that agree on those fields: the correctness
    check at ``verify_sizes`` and the timing at full sizes, when the sizes that differ (a walk's
    step count) are not read by the draw; consecutive points of a sweep that differ only in
    knobs the data does not depend on.
    """

    values: dict[str, Any]
    point_key: tuple
    sizes_key: tuple

    def matches(self, point: Mapping[str, Any], sizes: Mapping[str, int]) -> bool:
        return _key_matches(self.point_key, point) and _key_matches(self.sizes_key, sizes)


def draw_inputs(spec: Any, point: Mapping[str, Any], sizes: Mapping[str, int], *,
                seed: int = 0) -> Draw:
    """``spec.inputs`` at *sizes* for *point* (seeded), noting the fields it read."""
    seen_point, seen_sizes = _ReadFields(point), _ReadFields(sizes)
    values = dict(spec.inputs(seen_point, seen_sizes, np.random.default_rng(seed)))
    return Draw(values, seen_point.key(), seen_sizes.key())


def matching_draw(spec: Any, point: Mapping[str, Any], sizes: Mapping[str, int],
                  offered: Draw | None, *, seed: int = 0) -> Draw:
    """*offered* when it holds the data of (*point*, *sizes*), else a new draw."""
    if offered is not None and offered.matches(point, sizes):
        return offered
    return draw_inputs(spec, point, sizes, seed=seed)


class ReusedInputs:
    """``FreshInputs`` drawn and uploaded once for the points that draw the same data.

    A ``Draw`` is reused by a later point that agrees on the fields it read, and the check's
    draw (``verify_sizes``) becomes the timing draw when it agrees with the timing sizes, so a
    random walk's 256 MiB ring is drawn once per point, not twice. The arrays are then already
    on the device (read-only inputs, and write-only outputs whose content no timing depends on);
    outputs that are also read are uploaded again for every variant. One draw is kept at a
    time: the sweeps run points of one input shape together, and a GPU buffer is a GiB.
    """

    def __init__(self, spec: Any, *, seed: int = 0) -> None:
        self.spec, self.seed = spec, seed
        self._copies = 1
        self._draw: Draw | None = None
        self._kept: dict[tuple, Any] = {}

    def draw(self, point: Mapping[str, Any], sizes: Mapping[str, int],
             offered: Draw | None = None) -> dict[str, Any]:
        """The spec's inputs at *sizes* for *point*: the kept draw when it matches, else
        *offered* (the check's) when that matches, else drawn again."""
        if self._draw is not None and self._draw.matches(point, sizes):
            return self._draw.values
        self.release()
        self._draw = matching_draw(self.spec, point, sizes, offered, seed=self.seed)
        return self._draw.values

    def bind(self, engine: OpenCLEngine, built: Built, sizes: Mapping[str, int],
             offered: Draw | None) -> Bound:
        values = self.draw(built.variant.point, sizes, offered)
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
        self._draw = None


def buffer_layout(variant: Any, sizes: Mapping[str, int]) -> tuple:
    """The arrays a variant binds (name, type, shape) at *sizes*: variants that agree on it can
    share one set of timing buffers (``SharedInputs``)."""
    return (tuple((a.name, a.dtype, a.shape) for a in variant.args
                  if a.kind in ("global", "image")), tuple(sorted(sizes.items())))


class SharedInputs:
    """Timing buffers per (argument layout, sizes, the point's fields the data depends on):
    made once, bound by every variant that agrees on all three (a parameter that changes the
    data and not the layout, spmv_ell's sparsity pattern, draws them anew)."""

    def __init__(self, spec: Any, *, seed: int = 0) -> None:
        self.spec, self.seed = spec, seed
        self._key: tuple | None = None
        self._draw: Draw | None = None
        self._buffers: dict[str, Any] = {}
        self._values: dict[str, Any] = {}

    def bind(self, engine: OpenCLEngine, built: Built, sizes: Mapping[str, int],
             offered: Draw | None = None) -> Bound:
        import pyopencl as cl

        variant = built.variant
        arrays = ("global", "image")
        key = buffer_layout(variant, sizes)
        if key != self._key or self._draw is None \
                or not self._draw.matches(variant.point, sizes):
            self.release()  # one layout at a time: the grids are large
            self._draw = draw_inputs(self.spec, variant.point, sizes, seed=self.seed)
            self._values = self._draw.values
            for arg in variant.args:
                if arg.kind not in arrays:
                    continue
                host = self._values.get(arg.name)
                if host is None:
                    count = int(np.prod([evaluate(e, sizes) for e in arg.shape]))
                    host = np.full(count, np.nan, dtype=arg.dtype)
                self._buffers[arg.name] = device_array(engine.queue, arg,
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

    def buffers(self) -> list[Any]:
        """The device buffers held for the current layout."""
        return list(self._buffers.values())

    def release(self) -> None:
        for buf in self._buffers.values():
            buf.release()
        self._buffers.clear()
        self._values = {}
        self._key, self._draw = None, None
