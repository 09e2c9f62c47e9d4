"""Where a variant's timing data comes from: made per variant, or shared by a whole space.

``FreshInputs`` (run, tune): random inputs per variant, rotated through copies when they could sit
in the last-level cache by accident. ``SharedInputs`` (space): buffers made once per buffer layout
and bound by every variant of that layout — random 512³ grids cost seconds to make and upload, the
kernels a fraction of a millisecond, and an exhaustive space must fit minutes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

from gencl.measure._build import Built
from gencl.measure._engine import Bound, OpenCLEngine, evaluate


class TimingInputs(Protocol):
    """Binds the data a variant is timed on, and lets it go afterwards."""

    def bind(self, engine: OpenCLEngine, built: Built, sizes: Mapping[str, int],
             values: Mapping[str, Any] | None) -> Bound: ...

    def done(self, bound: Bound) -> None: ...

    def rotation_copies(self) -> int: ...


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
        key = (tuple((a.name, a.dtype, a.shape) for a in variant.args if a.kind == "global"),
               tuple(sorted(sizes.items())))
        if key != self._key:
            self.release()  # one layout at a time: the grids are large
            self._values = dict(self.spec.inputs(variant.point, sizes,
                                                 np.random.default_rng(self.seed)))
            mf = cl.mem_flags
            for arg in variant.args:
                if arg.kind != "global":
                    continue
                host = self._values.get(arg.name)
                if host is None:
                    count = int(np.prod([evaluate(e, sizes) for e in arg.shape]))
                    host = np.full(count, np.nan, dtype=arg.dtype)
                self._buffers[arg.name] = cl.Buffer(engine.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR,
                                                    hostbuf=np.ascontiguousarray(host))
            self._key = key
        env = {**{k: v for k, v in self._values.items() if np.isscalar(v)}, **sizes}
        args: list[Any] = []
        local_bytes = 0
        for arg in variant.args:
            if arg.kind == "global":
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
