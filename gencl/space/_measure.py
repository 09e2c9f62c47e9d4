"""Measure every point of a space on one device: generate (cached) → verify by sweeps → time.

Unlike ``gencl.measure.run_points``, the timing inputs are created once per buffer layout and
shared by every variant of that layout: random 8192² grids cost seconds to make and upload,
the kernels a fraction of a millisecond, and an exhaustive space must fit a few minutes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gencl.generate import GenerationFailure, Variant, generate_many
from gencl.measure import Bound, BuildFailure, Measurement, ResultsFile
from gencl.measure._engine import Timeout, check_assumptions, evaluate
from gencl.measure._measurement import device_error_status
from gencl.space._sweeps import verify_sweeps

#: variants built together in threads before they are measured one by one (NVIDIA's OpenCL
#: compiler takes ~1 s per Jacobi variant; 16 at a time keep an exhaustive space to minutes)
PREBUILD_CHUNK = 64
#: sweeps each variant runs (ping-pong) before its time counts
VERIFY_SWEEPS = 3


def space_points(spec: Any, device: Any, *, fixed: Mapping[str, Any] | None = None,
                 shard: tuple[int, int] = (0, 1), sample: int | None = None,
                 always: Sequence[Mapping[str, Any]] = (), seed: int = 0) -> list[dict[str, Any]]:
    """The space on *device* with *fixed* axes, optionally sampled, then cut to one shard.

    A sample keeps every point of *always* (the named variants) and *sample* random others.
    """
    fixed = dict(fixed or {})
    points = [p for p in spec.points(device) if all(p[k] == v for k, v in fixed.items())]
    if sample is not None and sample < len(points):
        keep = [p for p in points if any(all(p[k] == v for k, v in a.items()) and
                                         p == spec.complete({**p, **a}) for a in always)]
        keep = [p for p in keep if _is_default_shape(spec, p)]
        rest = [p for p in points if p not in keep]
        points = keep + random.Random(seed).sample(rest, max(0, sample - len(keep)))
    index, count = shard
    return points[index::count]


def _is_default_shape(spec: Any, point: Mapping[str, Any]) -> bool:
    """The named variants enter a sample at the default work-group shape and blocking."""
    return all(point[k] == spec.axes[k][0] for k in ("workgroup", "block_x", "block_y")
               if k in spec.axes)


def open_results(path: Path, header: dict[str, Any]) -> ResultsFile:
    """A ResultsFile that resumes from its partial JSONL *or* from a finished file (shards)."""
    partial = path.with_name(path.name + ".partial.jsonl")
    if path.is_file() and not partial.exists():
        done = json.loads(path.read_text()).get("results", [])
        partial.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text("".join(json.dumps(r, default=str) + "\n" for r in done))
    return ResultsFile(path, header)


class SharedInputs:
    """Timing buffers per (layout, dtype, sizes): made once, bound by every variant."""

    def __init__(self, engine: Any, spec: Any, seed: int = 0) -> None:
        self.engine, self.spec, self.seed = engine, spec, seed
        self._buffers: dict[tuple, dict[str, Any]] = {}
        self._values: dict[tuple, dict[str, Any]] = {}

    def key(self, variant: Variant, sizes: Mapping[str, int]) -> tuple:
        shapes = tuple((a.name, a.dtype, a.shape) for a in variant.args if a.kind == "global")
        return shapes, tuple(sorted(sizes.items()))

    def bind(self, variant: Variant, sizes: Mapping[str, int]) -> Bound:
        import pyopencl as cl

        key = self.key(variant, sizes)
        if key not in self._buffers:
            self.release()  # one layout at a time: 8192² grids are large
            values = self.spec.inputs(variant.point, sizes, np.random.default_rng(self.seed))
            mf = cl.mem_flags
            bufs = {}
            for arg in variant.args:
                if arg.kind != "global":
                    continue
                host = values.get(arg.name)
                if host is None:
                    count = int(np.prod([evaluate(e, sizes) for e in arg.shape]))
                    host = np.full(count, np.nan, dtype=arg.dtype)
                bufs[arg.name] = cl.Buffer(self.engine.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR,
                                           hostbuf=np.ascontiguousarray(host))
            self._buffers[key], self._values[key] = bufs, values
        bufs, values = self._buffers[key], self._values[key]
        env = {**{k: v for k, v in values.items() if np.isscalar(v)}, **sizes}
        args, local_bytes = [], 0
        for arg in variant.args:
            if arg.kind == "global":
                args.append(bufs[arg.name])
            elif arg.kind == "local":
                nbytes = int(np.prod([evaluate(e, env) for e in arg.shape])) * \
                    np.dtype(arg.dtype).itemsize
                local_bytes += nbytes
                args.append(cl.LocalMemory(nbytes))
            else:
                args.append(np.dtype(arg.dtype).type(values.get(arg.name, sizes.get(arg.name))))
        gsize = tuple(evaluate(e, env) for e in variant.global_size)
        lsize = tuple(evaluate(e, env) for e in variant.local_size)
        return Bound([args], {}, {}, gsize, lsize, local_bytes)  # shared buffers: none to free

    def release(self) -> None:
        for bufs in self._buffers.values():
            for buf in bufs.values():
                buf.release()
        self._buffers.clear()
        self._values.clear()


def _failed(v: Variant | GenerationFailure, spec: Any, sizes: Mapping, status: str,
            reason: str, **extra: Any) -> Measurement:
    return Measurement(v.id, spec.name, dict(v.point), dict(sizes), status, reason, **extra)


def measure_one(engine: Any, spec: Any, variant: Variant, sizes: Mapping[str, int],
                shared: SharedInputs, *, sweeps: int = VERIFY_SWEEPS) -> Measurement:
    """Build, verify over *sweeps* ping-pong sweeps at the spec's verify size, time at *sizes*."""
    base = {"source_hash": variant.source_hash}
    for size_set in (sizes, spec.verify_sizes(variant.point, engine.info)):
        reason = check_assumptions(variant, size_set)
        if reason:
            return _failed(variant, spec, sizes, "invalid_size", reason, **base)
    try:
        built = engine.build(variant)
    except BuildFailure as exc:
        return _failed(variant, spec, sizes, exc.status, exc.reason, build_log=exc.log, **base)
    base.update(binary_hash=built.binary_hash)
    try:
        vsizes = spec.verify_sizes(variant.point, engine.info)
        values = spec.inputs(variant.point, vsizes, np.random.default_rng(1))
        check = engine.bind(built, vsizes, values)
        problem = engine.check_resources(built, check)
        check.release()
        if problem:
            return _failed(variant, spec, sizes, "out_of_resources", problem, **base)
        error = verify_sweeps(engine, spec, built, vsizes, values, sweeps)
        if not error <= 1.0:
            return _failed(variant, spec, sizes, "wrong_answer",
                           f"max scaled error {error:.3g} > 1 after {sweeps} sweeps at "
                           f"n={vsizes.get('n')}", max_error=error, **base)
        bound = shared.bind(variant, sizes)
        timing = engine.time(built, bound)
    except Timeout as exc:
        engine.reset()
        return _failed(variant, spec, sizes, "timeout", str(exc), **base)
    except Exception as exc:  # noqa: BLE001 -- one variant's device error must not end the run
        text = str(exc)
        status = device_error_status(exc)
        engine.reset()
        return _failed(variant, spec, sizes, status, f"{type(exc).__name__}: {text[:300]}", **base)
    samples = timing.pop("samples_s")
    work = {name: float(f(variant.point, sizes)) for name, f in spec.metrics.items()}
    return Measurement.timed(
        variant.id, spec.name, dict(variant.point), dict(sizes), samples, work=work,
        max_error=error, extra={"build_s": built.build_s, "codegen_s": variant.codegen_s,
                                "verify_sweeps": sweeps, "verify_n": vsizes.get("n")},
        **timing, **base)


def measure_space(spec: Any, engine: Any, points: Iterable[dict[str, Any]],
                  sizes_of: Callable[[dict[str, Any]], dict[str, int]], sink: ResultsFile, *,
                  on_result: Callable[[Measurement], None] | None = None) -> int:
    """Measure every point not yet in *sink*; each result is streamed as soon as it exists.

    Returns the number of points measured in this call.
    """
    from gencl.generate import variant_id

    done = sink.done_ids
    todo = [p for p in points if variant_id(spec, p) not in done]
    variants = generate_many(spec, todo)
    # group by layout so the shared timing buffers are made once per layout
    order = sorted(range(len(todo)), key=lambda k: (todo[k]["dtype"], str(todo[k].get(
        "boundary")), k))
    shared = SharedInputs(engine, spec)
    count = 0
    try:
        for position, k in enumerate(order):
            if position % PREBUILD_CHUNK == 0:  # the next chunk's builds run in parallel
                engine.prebuild([v for j in order[position:position + PREBUILD_CHUNK]
                                 if isinstance(v := variants[j], Variant)])
            v, sizes = variants[k], sizes_of(todo[k])
            if isinstance(v, GenerationFailure):
                m = _failed(v, spec, sizes, "excluded", v.reason)
            else:
                m = measure_one(engine, spec, v, sizes, shared)
            sink.add(m)
            count += 1
            if on_result:
                on_result(m)
    finally:
        shared.release()
    return count
