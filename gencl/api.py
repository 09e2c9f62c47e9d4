"""The Python API: one call per command, for notebooks and scripts; the CLI is a face over it.

A spec is given by name (``"heat3d"``: specs/, tuning/), by path, or as a ``BenchmarkSpec`` built
in memory (a notebook's own kernel)::

    import gencl
    run = gencl.tune("heat3d", trials=20, quick=True)        # -> TuneRun: .point, .time_s
    summary = gencl.space(my_spec, sample=8, quick=True).summary
    print(gencl.explain(my_spec, knobs={"vector_width": 4}).prediction.time_s)

Errors a user can fix are ``gencl.errors.GenclError`` with one line naming the field.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gencl.measure import Measurement
    from gencl.model import KernelStats, ModelParams, Prediction
    from gencl.profile import DeviceProfile
    from gencl.space import SpaceRun
    from gencl.spec import BenchmarkSpec
    from gencl.tune._run import TuneRun
    from gencl.verify import VerifyReport

__all__ = ["Explanation", "Ranking", "describe", "explain", "generate_space", "load",
           "model_accuracy", "profile", "rank", "report", "run", "simulate", "solve", "space",
           "tune", "verify"]


def load(spec: str | os.PathLike[str] | BenchmarkSpec) -> BenchmarkSpec:
    """A spec by name or path (loaded and validated), or an in-memory one, ready to use.

    An in-memory spec (no file) is validated like a file and gets an identity from its program,
    so its variants never share a cache entry with another spec of the same name.
    """
    from gencl.spec import BenchmarkSpec, load_spec, validate_spec

    if isinstance(spec, BenchmarkSpec):
        if not spec.path:
            validate_spec(spec)
            if not spec.source_hash:
                spec = dataclasses.replace(spec, source_hash=program_hash(spec))
    else:
        spec = load_spec(os.fspath(spec))
    return with_space(spec)


def with_space(spec: BenchmarkSpec) -> BenchmarkSpec:
    """*spec* with a space to search: a kernel that binds no knobs gets the one derived from its
    program (``gencl.generate.derive_space``: vector widths, work-group shapes, blocking, …)."""
    from gencl.generate import with_derived_space

    return with_derived_space(spec)


def program_hash(spec: BenchmarkSpec) -> str:
    """Identity of an in-memory spec: its name, axes and the text of its abstract program at the
    default point (a spec file's identity is the hash of its text)."""
    text = "\0".join((spec.name, repr(sorted((k, repr(v)) for k, v in spec.axes.items())),
                      str(spec.program(spec.complete({})))))
    return hashlib.sha256(text.encode()).hexdigest()


# {{{ space, tune, simulate

def space(spec: str | os.PathLike[str] | BenchmarkSpec, **options: Any) -> SpaceRun:
    """Measure a tuning kernel's space on a device, with its peers, roofline and report.

    Options are ``gencl.space.run_space``'s: ``device``, ``fixed`` (axes held), ``variant``,
    ``sizes``, ``quick``, ``shard``, ``sample``, ``repeats``, ``rounds``, ``peers``, ``out``,
    ``log``.
    Returns a SpaceRun: ``.summary`` (summary.json), ``.out``, ``.results``.
    """
    from gencl.space import run_space

    return run_space(load(spec), **options)


def report(folder: str | os.PathLike[str],
           spec: str | os.PathLike[str] | BenchmarkSpec | None = None) -> SpaceRun:
    """Re-render a measured space's summary.json, report.md and plot from its cache (no device);
    the spec is the one the cache names unless given."""
    from gencl.space import report_space

    return report_space(os.fspath(folder), None if spec is None else load(spec))


def generate_space(spec: str | os.PathLike[str] | BenchmarkSpec, *, limits: str | None = None,
                   **options: Any) -> tuple[int, int]:
    """Generate a space's variants into the cache without a device: (generated, excluded).
    *limits* cuts the space to a remote device's (``"nvidia"``)."""
    from gencl.space import generate_space as _generate, limits_for

    return _generate(load(spec), device=limits_for(limits) if limits else None, **options)


def describe(spec: str | os.PathLike[str] | BenchmarkSpec) -> list[str]:
    """Lines describing the space's axes (derived ones say where they come from)."""
    import gencl.generate as generate

    s = load(spec)
    describe_space = getattr(generate, "describe_space", None)
    if describe_space is not None:
        return list(describe_space(s))
    lines = [f"{s.name}: {len(s.axes)} axes"]
    for name, values in s.params.items():
        lines.append(f"  {name} (program parameter): {', '.join(map(str, values))}")
    for name, knob in s.knobs.items():
        options = ", ".join(f"{k}={v}" for k, v in knob.options.items())
        lines.append(f"  {name} ({knob.transform}{': ' + options if options else ''}): "
                     f"{', '.join(map(str, knob.values))}")
    return lines


def tune(spec: str | os.PathLike[str] | BenchmarkSpec, **options: Any) -> TuneRun:
    """Tune a kernel with an Optuna study (model-guided by default) on a device or a replay.

    Options are ``gencl.tune.tune_spec``'s: ``device``, ``trials``, ``sampler``, ``fixed``,
    ``sizes``, ``quick``, ``seed``, ``storage``, ``study``, ``workers``, ``replay``, ``profile``,
    ``out``. Returns a TuneRun: ``.point``, ``.time_s``, ``.study``, ``.out``.
    """
    from gencl.tune import tune_spec

    return tune_spec(load(spec), **options)


def simulate(spec: str | os.PathLike[str] | BenchmarkSpec, cache: str | os.PathLike[str],
             **options: Any) -> dict[str, Any]:
    """Replay search strategies over a measured space; the summary (evaluations to the best)."""
    from gencl.tune import simulate_spec

    return simulate_spec(load(spec), os.fspath(cache), **options)

# }}}


# {{{ explain, run, verify, profile

@dataclass(frozen=True)
class Explanation:
    """One variant explained by the model."""

    point: dict[str, Any]
    sizes: dict[str, int]
    stats: KernelStats
    prediction: Prediction
    params: ModelParams


def explain(spec: str | os.PathLike[str] | BenchmarkSpec, *,
            knobs: Mapping[str, Any] | None = None, sizes: Mapping[str, int] | None = None,
            quick: bool = False, device: str | int | None = None,
            profile: str | None = None) -> Explanation:
    """Predicted time, bottleneck and criteria of one point (*knobs* over the defaults).

    *profile* alone (no *device*) is a what-if: the profiled device is priced, at its own
    problem sizes, whether or not it is present on this machine."""
    from gencl.model import explain as _explain
    from gencl.spec import check_point

    s = load(spec)
    info, params = _pricing(device, profile)
    point = check_point(s, dict(knobs or {}))
    at = {**s.sizes(point, info, quick), **dict(sizes or {})}
    stats, pred = _explain(s, point, at, params)
    return Explanation(point, at, stats, pred, params)


def _pricing(device: str | int | None, profile: str | None) -> tuple[Any, ModelParams]:
    """(device info, model params): the profiled device itself for *profile* alone (a
    what-if, the device need not be here), else *device* (the default one) priced by
    *profile* or its own committed profile."""
    from gencl.device import select_device
    from gencl.model import load_device_profile, load_params, params_from_profile

    if profile and device is None:
        device_profile = load_device_profile(profile)
        return device_profile.device, params_from_profile(device_profile)
    _, info = select_device(device)
    return info, load_params(info.to_json(), profile=profile)


@dataclass(frozen=True)
class Ranking:
    """A space as the model orders it (``rank``): nothing built or run."""

    spec: BenchmarkSpec        # as loaded, its space derived
    ranked: list[Any]          # gencl.model.RankedPoint, fastest prediction per sweep first
    pick: Any                  # the variant the model would run (gencl.model.model_pick)
    tied: list[Any]            # priced within TIE_SHARE of the fastest: the pick's tie
    unpriced: list[tuple[dict[str, Any], str]]   # points loopy could not count, and why
    params: ModelParams


def rank(spec: str | os.PathLike[str] | BenchmarkSpec, *,
         knobs: Mapping[str, Any] | None = None, sizes: Mapping[str, int] | None = None,
         quick: bool = False, device: str | int | None = None, profile: str | None = None,
         progress: Callable[[int], None] | None = None) -> Ranking:
    """Every point of the space (those with the values *knobs* fixes) priced by the model on
    a device or, with *profile* alone, on the profiled device wherever it is: the variants it
    would try first, and the one it would run. Points are the space within the device's
    limits, each at that device's problem sizes (*sizes* override)."""
    from gencl.errors import GenclError
    from gencl.model import model_pick, rank_points, tied
    from gencl.spec import check_knob, matches

    s = load(spec)
    fixed = {name: check_knob(s, name, value) for name, value in (knobs or {}).items()}
    info, params = _pricing(device, profile)
    points = [p for p in s.points(info, fixed) if matches(p, fixed)]
    if not points:
        raise GenclError(f"{s.path or s.name}: no point of the space on {params.device} has "
                         + ", ".join(f"{k}={v}" for k, v in fixed.items()))
    at = [{**s.sizes(p, info, quick), **dict(sizes or {})} for p in points]
    ranked, unpriced = rank_points(s, points, at, params, progress=progress)
    if not ranked:
        raise GenclError(f"{s.path or s.name}: the model could price no point "
                         f"({unpriced[0][1]})")
    return Ranking(s, ranked, model_pick(ranked), tied(ranked), unpriced, params)


def model_accuracy(spec: str | os.PathLike[str] | BenchmarkSpec, cache: str | os.PathLike[str],
                   *, profile: str | None = None,
                   repeat: str | os.PathLike[str] | None = None) -> tuple[Any, ModelParams]:
    """The model over a measured space: (Accuracy: Spearman ρ, share within ±15 %, the same per
    knob value and predicted bottleneck (``by_value``), params). A cache measured before an
    axis joined the space reads at that axis's first value; records of values the space no
    longer has are set aside (``set_aside``). *repeat*, a second measurement of the same space
    on the same device, adds ``Accuracy.repeat``: that run scored against the first as the
    model is, and the model against it."""
    from gencl.model import (
        cache_accuracy, check_repeat, load_params, load_results, repeat_summary)

    s = load(spec)
    data = load_results(cache)
    params = load_params(data.get("device", {}), profile=profile)
    acc, rows = cache_accuracy(s, data["results"], params)
    if repeat is None:
        return acc, params
    second = load_results(repeat)
    check_repeat(data, second, cache, repeat)
    return dataclasses.replace(acc, repeat=repeat_summary(
        s, data["results"], second["results"], repeat, model_rows=rows)), params


def run(spec: str | os.PathLike[str] | BenchmarkSpec, points: Sequence[Mapping[str, Any]] = (),
        *, device: str | int | None = None, quick: bool = False,
        sizes: Mapping[str, int] | None = None, repeats: int = 25,
        results: str | os.PathLike[str] | None = None,
        on_result: Callable[[Measurement], None] | None = None) -> list[Measurement]:
    """Measure points (default: the spec's sweep) — generate, verify, time — on a device."""
    from gencl.measure import OpenCLEngine, ResultsFile, results_header, run_points

    s = load(spec)
    engine = OpenCLEngine(device, repeats=repeats)
    chosen = [s.complete(p) for p in points] or s.sweep_points(engine.info, quick=quick)
    sink = ResultsFile(results, results_header(engine, spec=s.name, quick=quick)) \
        if results else None
    out = run_points(s, chosen, engine, quick=quick, size_overrides=sizes, sink=sink,
                     on_result=on_result)
    if sink:
        sink.close()
    return out


def solve(spec: str | os.PathLike[str] | BenchmarkSpec, point: Mapping[str, Any], sweeps: int,
          inputs: Mapping[str, Any] | None = None, device: str | int | None = None, *,
          sizes: Mapping[str, int] | None = None, quick: bool = False,
          seed: int = 0) -> dict[str, Any]:
    """*sweeps* sweeps of *point* (knobs over the defaults) on a device: the arrays at the end.

    A point of k sweeps per launch runs sweeps // k launches, and the remainder as launches of
    its single-sweep point (the nearest point of the space with one sweep per launch), the
    spec's ``ping_pong`` buffers swapped after each. *inputs* default to the spec's random
    inputs at *sizes* (default: the spec's sizes on the device, *quick* its quick ones).
    Returns each ping-pong output name → its array after the last sweep.
    """
    import numpy as np

    from gencl.measure import OpenCLEngine
    from gencl.measure._solve import solve_on
    from gencl.spec import check_point

    s = load(spec)
    full = check_point(s, dict(point))
    engine = OpenCLEngine(device)
    at = {**s.sizes(full, engine.info, quick), **dict(sizes or {})}
    values = dict(inputs) if inputs is not None else s.inputs(full, at,
                                                              np.random.default_rng(seed))
    return solve_on(engine, s, full, sweeps, at, values)


def verify(specs: Sequence[str | os.PathLike[str] | BenchmarkSpec] = (), **options: Any
           ) -> VerifyReport:
    """Check emitted code of *specs* (default: every spec found): numerics, oclgrind, PTX.
    Options are ``gencl.verify.verify``'s."""
    from gencl.spec import list_spec_files
    from gencl.verify import verify as _verify

    chosen = list(specs) or [str(p) for p in list_spec_files()]
    return _verify([load(s) for s in chosen], **options)


def profile(*, device: str | int | None = None, quick: bool = False,
            only: Sequence[str] | None = None, out: str | os.PathLike[str] | None = None,
            fresh: bool = False, repeats: int | None = None, progress: bool = False,
            log: Callable[[str], None] | None = None) -> tuple[DeviceProfile, Path]:
    """Profile a device (the microbenchmark suite): (DeviceProfile, folder); the report and
    plots are written beside profile.json."""
    from gencl.profile import render_report, run_profile

    result, folder = run_profile(out, device=device, quick=quick, only=only, fresh=fresh,
                                 repeats=repeats, progress=progress, log=log or (lambda _: None))
    render_report(result, folder)
    return result, Path(folder)

# }}}
