"""What an application kernel may add to program, reference, inputs and sizes: typed hooks.

Every hook is optional and has a generic default, so a user's kernel needs none of them; a kernel
declares one where its report, its correctness check or its comparison needs to know more (Jacobi
declares seed 003's named variants, its ping-pong buffers and its peers). Generic code (space,
tune, report) reads a kernel only through these hooks and the functions below, never by a name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gencl.peers import PeerContext
    from gencl.spec._spec import BenchmarkSpec, Point, Sizes

    #: A peer implementation: times itself on the context's inputs and returns seconds per launch
    #: (median), or raises ``gencl.peers.PeerUnavailable`` with the reason it cannot run here.
    Peer = Callable[[PeerContext], float]


@dataclass(frozen=True)
class ApplicationHooks:
    """Optional, kernel-specific knowledge of an application kernel (``BenchmarkSpec.hooks``).

    Args:
        variants: named variants, name → partial point (seed 003's ``baseline``, ``vec4_BE``…).
            ``gencl space --variant NAME`` measures one; a ``--sample`` always keeps them; the
            space report tables them. Default: none (the report tables the best points).
        baseline: the variant improvements are measured against. Default: ``"baseline"`` when
            it is a named variant, else the first named variant, else the space's default point.
        variant_name: a readable name of a point. Default: the first named variant the point
            matches, else the axes where it differs from the default point (``vector_width=4``).
        ping_pong: ``(output, input)`` argument pairs: a launch's output is the next launch's
            input (a time step). With pairs, correctness is checked over several launches with
            the buffers swapped; without, over one launch.
        steps: time steps one launch advances (a temporal-blocking launch runs k sweeps). Times
            per step are launch time / steps; the reference is applied that many times per
            launch. Default: the ``sweeps`` of a point whose ``temporal`` axis is not ``none``,
            else 1.
        flops: floating-point operations per launch. Default: the ``flops`` metric if the spec
            has one, else none (the report then has no flop rates).
        compulsory_bytes: the traffic no implementation can avoid per launch (each input read
            once, each output written once), in bytes. The roofline is this / copy bandwidth.
            Default: the abstract program's global arrays, outputs once, pure inputs once.
        peers: what a user would otherwise run, name → ``Peer`` (see ``gencl.peers`` for
            ready-made torch, torch.compile, CuPy and OpenCL runners). Timed in the same run as
            the variants by ``gencl space``; one that cannot run here says why.
        divergent: axis → values whose work items take divergent branches (Jacobi's boundary
            branch). Where the profile measures divergence narrower than a sub-group, the tuner
            tries the other values first (seed 003 §4: eliminate branches). Default: none.
        title: the space report's title. Default: ``"<name> space"``.
        bytes_note: one sentence on what the ``bytes`` metric counts, quoted by the report.
    """

    variants: Mapping[str, Point] = field(default_factory=dict)
    baseline: str | None = None
    variant_name: Callable[[Point], str] | None = None
    ping_pong: tuple[tuple[str, str], ...] = ()
    steps: Callable[[Point], int] | None = None
    flops: Callable[[Point, Sizes], float] | None = None
    compulsory_bytes: Callable[[Point, Sizes], float] | None = None
    peers: Mapping[str, Peer] = field(default_factory=dict)
    divergent: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    title: str = ""
    bytes_note: str = ""


# {{{ the hooks with their defaults: what generic code calls

def matches(point: Point, partial: Point) -> bool:
    """Whether *point* agrees with every axis *partial* fixes."""
    return all(_same(point.get(k), v) for k, v in partial.items())


def _same(a: Any, b: Any) -> bool:
    # (32, 4) == [32, 4]; a 1-D work-group (64,) == 64, as --list prints it and a user types it
    return json.dumps(_one(a), default=str) == json.dumps(_one(b), default=str)


def _one(value: Any) -> Any:
    return value[0] if isinstance(value, (tuple, list)) and len(value) == 1 else value


def axis_value(values: Any, value: Any) -> Any:
    """The value of an axis (*values*) that *value* stands for, as ``matches`` compares them:
    ``[32, 4, 1]`` (as space.json writes it) the tuple, ``64`` the 1-D work-group ``(64,)`` (as
    ``--list`` prints it); *value* itself where none is."""
    return next((v for v in values if _same(v, value)), value)


def baseline_variant(spec: BenchmarkSpec, fixed: Point | None = None
                     ) -> tuple[str, dict[str, Any]]:
    """(name, partial point) of the baseline, within the *fixed* axes: what improvements are
    relative to. Without named variants it is the default point of the slice."""
    hooks, fixed = spec.hooks, dict(fixed or {})
    name = hooks.baseline or ("baseline" if "baseline" in hooks.variants else
                              next(iter(hooks.variants), None))
    if name is None:
        return "default", spec.complete(fixed)
    return name, {**dict(hooks.variants[name]), **fixed}


def variant_name(spec: BenchmarkSpec, point: Point) -> str:
    """A readable name of *point* (the ``variant_name`` hook, or the default rule)."""
    if spec.hooks.variant_name is not None:
        return spec.hooks.variant_name(point)
    for name, partial in spec.hooks.variants.items():
        if matches(point, partial):
            return name
    default = spec.complete({k: point[k] for k in spec.params if k in point})
    diff = [f"{k}={knob_text(point[k])}" for k in spec.knobs if k in point and
            not _same(point[k], default.get(k))]
    return ",".join(diff) or "default"


def knob_text(value: Any) -> str:
    """A knob value as ``--knob`` takes it and names show it (``32x4`` for a work-group)."""
    return "x".join(map(str, value)) if isinstance(value, tuple | list) else str(value)


#: the axes of temporal blocking, the same in hand-bound and derived spaces: the scheme
#: (``none`` = one step per launch), the steps per launch, points per work item per axis
TEMPORAL_AXIS, SWEEPS_AXIS, TEMPORAL_POINTS_AXIS = "temporal", "sweeps", "temporal_points"
#: the scheme of a point that is not blocked in time (the program untouched)
NO_TEMPORAL = "none"


def steps_per_launch(spec: BenchmarkSpec, point: Point) -> int:
    """Time steps one launch of *point* advances: the ``steps`` hook, else the sweeps of a
    temporally blocked point (``temporal`` not ``none``), else 1."""
    if spec.hooks.steps is not None:
        return int(spec.hooks.steps(point))
    if point.get(TEMPORAL_AXIS, NO_TEMPORAL) != NO_TEMPORAL:
        return int(point.get(SWEEPS_AXIS, 1))
    return 1


def flops_per_launch(spec: BenchmarkSpec, point: Point, sizes: Sizes) -> float | None:
    if spec.hooks.flops is not None:
        return float(spec.hooks.flops(point, sizes))
    metric = spec.metrics.get("flops")
    return float(metric(point, sizes)) if metric is not None else None


_ARRAYS: dict[tuple[str, str, int, str], list[tuple[tuple[str, ...], str, bool, bool]]] = {}


def compulsory_bytes(spec: BenchmarkSpec, point: Point, sizes: Sizes) -> float:
    """Bytes a launch cannot avoid moving: the hook, or each global array of the abstract program
    once (outputs written, pure inputs read)."""
    if spec.hooks.compulsory_bytes is not None:
        return float(spec.hooks.compulsory_bytes(point, sizes))
    import numpy as np
    import pymbolic

    params = json.dumps({k: point.get(k) for k in spec.params}, default=str)
    key = (spec.name, spec.source_hash, id(spec.program), params)
    if key not in _ARRAYS:
        import loopy as lp

        knl = spec.program(dict(point)).default_entrypoint
        _ARRAYS[key] = [
            (tuple(str(s) for s in a.shape), np.dtype(a.dtype.numpy_dtype).name,
             bool(a.is_input), bool(a.is_output))
            for a in knl.args if isinstance(a, lp.ArrayArg)
            and a.address_space == lp.AddressSpace.GLOBAL]
    total = 0.0
    for shape, dtype, is_input, is_output in _ARRAYS[key]:
        if not (is_input or is_output):
            continue
        count = 1
        for expr in shape:
            count *= int(pymbolic.evaluate(pymbolic.parse(expr), dict(sizes)))
        total += count * np.dtype(dtype).itemsize
    return total

# }}}
