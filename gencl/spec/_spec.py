"""What a benchmark or application kernel is: one abstract loopy program and its space.

A spec is a small Python module (specs/*.py, tuning/*.py) that defines ``SPEC``. Python, not TOML,
because every ingredient is code already: the loopy program is built by a function of its program
parameters, the reference is numpy, the metric formulas are functions of the point and the sizes.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gencl.spec._hooks import ApplicationHooks

if TYPE_CHECKING:
    import loopy as lp
    import numpy as np

Point = Mapping[str, Any]
Sizes = Mapping[str, int]


@dataclass(frozen=True)
class Knob:
    """One axis of the space that is a loopy transform.

    Args:
        transform: name of the transform in ``gencl.generate.knobs.TRANSFORMS``.
        values: the values this spec allows.
        options: how the transform binds to this program (iname, arrays, ...), passed as keywords.
    """

    transform: str
    values: tuple[Any, ...]
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BenchmarkSpec:
    """A benchmark (specs/) or application kernel (tuning/): program, space, reference, metrics.

    Args:
        name: unique name; the file's stem by convention.
        description: one paragraph, shown by ``gencl generate --list``.
        program: builds the abstract, untransformed program from the program parameters.
        params: axes that shape the abstract program (instruction type, dtype, chain length).
        knobs: axes that are transforms, applied in this order.
        inputs: random input data for a point and sizes: name -> ndarray or scalar.
        reference: numpy reference: (inputs, point, sizes) -> expected outputs by name.
        sizes: problem sizes for a point: (point, device_info, quick) -> dict.
        metrics: work done per launch: name -> (point, sizes) -> amount. Names end in their unit:
            ``bytes``, ``flops``, ``ops``, ``points``.
        sweep: the points a plain ``gencl run`` measures (partial points, defaults filled in).
        constraints: (point, device_info or None) -> reason it is excluded, or None.
        analysis: name of the characterization that consumes this benchmark's measurements.
        group: profile group (compute, memory, runtime, application).
        tolerance: relative tolerance per dtype name for the reference comparison.
        exempt: oclgrind findings this spec produces on purpose ("race", "uninitialized").
        rotate_buffers: rotate input buffers so the working set cannot sit in a cache by accident.
        rounds: time the sweep's measured variants again in this many interleaved rounds
            (``gencl.measure._rounds``): for a benchmark whose figure is a ratio between its
            points, which a machine's drift would enter when each is timed back to back.
        verify_sizes: smaller sizes for the correctness run, (point, device_info) -> dict; the
            same code runs, only the numpy reference gets cheaper. Default: the timing sizes.
        quick_sweep: the points of ``--quick`` runs (default: the sweep, at quick sizes).
        runner: for benchmarks of the runtime rather than of a kernel's arithmetic (transfers,
            compile time, launch overhead): ``(engine, spec, points, quick) -> [Measurement]``
            replaces the generate → verify → time loop; its kernels still come from ``program``.
        ptx_rules: (point) -> {instruction regex: expected minimum count} checked on NVIDIA PTX.
        watch_clock: sample the device clock while this benchmark runs (figures in cycles);
            False for benchmarks of the host–driver path (transfers, launch overhead), which a
            clock probe (``nvidia-smi``) would slow down.
        hooks: what an application kernel may add (named variants, ping-pong buffers, peers,
            flops, compulsory traffic): ``ApplicationHooks``, each with a generic default.
        extra: anything else a spec's analysis needs (benchmarks only; generic code never reads
            it).
    """

    name: str
    description: str
    program: Callable[[Point], lp.TranslationUnit]
    inputs: Callable[[Point, Sizes, np.random.Generator], dict[str, Any]]
    reference: Callable[[Mapping[str, Any], Point, Sizes], dict[str, Any]]
    sizes: Callable[[Point, Any, bool], dict[str, int]]
    params: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    knobs: Mapping[str, Knob] = field(default_factory=dict)
    metrics: Mapping[str, Callable[[Point, Sizes], float]] = field(default_factory=dict)
    sweep: Sequence[Point] = ()
    constraints: Sequence[Callable[[Point, Any], str | None]] = ()
    analysis: str | None = None
    group: str = "misc"
    tolerance: Mapping[str, float] = field(
        default_factory=lambda: {"float16": 1e-2, "float32": 1e-4, "float64": 1e-10})
    exempt: frozenset[str] = frozenset()
    rotate_buffers: bool = False
    rounds: int = 0
    verify_sizes: Callable[[Point, Any], dict[str, int]] | None = None
    quick_sweep: Sequence[Point] = ()
    runner: Callable[..., list[Any]] | None = None
    ptx_rules: Callable[[Point], Mapping[str, int]] | None = None
    watch_clock: bool = True
    hooks: ApplicationHooks = field(default_factory=ApplicationHooks)
    extra: Mapping[str, Any] = field(default_factory=dict)
    # set by the loader: where the spec came from; a hash of its text and of the program it
    # builds at its probe point (so a spec built on another spec's program changes with it);
    # the problem-size names its sizes() returned on the probe
    path: str = ""
    source_hash: str = ""
    size_names: tuple[str, ...] = ()

    # {{{ the space

    @property
    def axes(self) -> dict[str, tuple[Any, ...]]:
        """Every axis of the space, parameters first, then knobs in application order."""
        return {**{k: tuple(v) for k, v in self.params.items()},
                **{k: tuple(v.values) for k, v in self.knobs.items()}}

    def complete(self, partial: Point) -> dict[str, Any]:
        """Fill a partial point with each axis's first value."""
        return {name: partial.get(name, values[0]) for name, values in self.axes.items()}

    def outside(self, point: Point) -> str | None:
        """The first axis whose value in *point* is not one of its values (a record measured
        before a value left the space), or None. A JSON list reads as the tuple it was."""
        def same(value: Any) -> Any:
            return tuple(map(same, value)) if isinstance(value, list | tuple) else value

        for name, values in self.axes.items():
            if name in point and same(point[name]) not in {same(v) for v in values}:
                return f"{name}={point[name]!r} is not one of {list(values)}"
        return None

    def excluded(self, point: Point, device: Any = None) -> str | None:
        """Why *point* is not in the space (on *device*), or None."""
        for constraint in self.constraints:
            reason = constraint(point, device)
            if reason:
                return reason
        return None

    def points(self, device: Any = None, fixed: Point | None = None
               ) -> Iterator[dict[str, Any]]:
        """The whole space (cartesian product of the axes minus the constraints); with *fixed*,
        only its points that hold those values (the others are never built: a slice of
        Jacobi's space is checked in a fraction of a second, the whole space in a minute)."""
        fixed = fixed or {}
        def held(name: str, value: Any) -> bool:  # as ``matches``: (32, 4) holds [32, 4]
            return json.dumps(value, default=str) == json.dumps(fixed[name], default=str)

        axes = {k: tuple(v for v in values if held(k, v)) if k in fixed else values
                for k, values in self.axes.items()}
        names = list(axes)
        for values in itertools.product(*axes.values()):
            point = dict(zip(names, values))
            if self.excluded(point, device) is None:
                yield point

    def sweep_points(self, device: Any = None, quick: bool = False) -> list[dict[str, Any]]:
        """The points a plain run measures: the (quick) sweep, or the default point."""
        chosen = (self.quick_sweep if quick else ()) or self.sweep or [{}]
        points = [self.complete(p) for p in chosen]
        return [p for p in points if self.excluded(p, device) is None]

    # }}}
