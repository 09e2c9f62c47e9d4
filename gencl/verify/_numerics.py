"""Numerics: build a variant, run it once on random data with outputs poisoned, compare with numpy.

The same function runs on the chosen device and, inside the oclgrind subprocess, on the simulator;
it never raises for a variant's fault: every outcome is a field of the returned ``Outcome``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gencl.generate import Variant
from gencl.measure import BuildFailure, OpenCLEngine, verify_variant
from gencl.measure._engine import Timeout, check_assumptions
from gencl.measure._measurement import device_error_status


@dataclass
class Outcome:
    """How far one variant got on one device."""

    built: bool = False
    ran: bool = False
    matched: bool = False
    max_error: float | None = None
    failure: str | None = None
    skipped: str | None = None
    built_program: Any = None  # gencl.measure.Built when built


def small_sizes(spec: Any, point: Mapping[str, Any], info: Any) -> dict[str, int]:
    """The correctness sizes: ``spec.verify_sizes`` if given, else the quick timing sizes."""
    if spec.verify_sizes is not None:
        return dict(spec.verify_sizes(point, info))
    return dict(spec.sizes(point, info, True))


def run_numerics(engine: OpenCLEngine, spec: Any, variant: Variant, sizes: Mapping[str, int], *,
                 seed: int = 0) -> Outcome:
    """Build, bind random inputs, run once with poisoned outputs, compare at the spec's tolerance.

    Sizes outside the variant's assumptions or resources the device lacks make the variant
    *skipped* (the spec's constraints should exclude it; the report says so), not failed.
    """
    out = Outcome()
    reason = check_assumptions(variant, sizes)
    if reason:
        out.skipped = f"verify sizes outside the variant's assumptions: {reason}"
        return out
    try:
        built = engine.build(variant)
    except BuildFailure as exc:
        if exc.status == "out_of_resources":
            out.skipped = f"does not fit the device: {exc.reason}"
        else:
            out.failure = f"build failed: {exc.reason}"
        return out
    out.built, out.built_program = True, built
    rng = np.random.default_rng(seed)
    try:
        values = spec.inputs(variant.point, sizes, rng)
        bound = engine.bind(built, sizes, values)
        problem = engine.check_resources(built, bound)
        bound.release()
        if problem:
            out.skipped = f"does not fit the device: {problem}"
            return out
        error = verify_variant(engine, spec, built, sizes, values)
    except Timeout as exc:
        engine.reset()
        out.failure = f"run timed out: {exc}"
        return out
    except Exception as exc:  # noqa: BLE001 -- a device error on one variant must not end the run
        engine.reset()
        if device_error_status(exc) == "out_of_resources":
            out.skipped = f"does not fit the device: {type(exc).__name__}: {str(exc)[:200]}"
            return out
        out.failure = f"run failed: {type(exc).__name__}: {str(exc).strip()[:300]}"
        return out
    out.ran, out.max_error = True, error
    out.matched = error <= 1.0
    if not out.matched:
        out.failure = (f"wrong answer: max scaled error {error:.3g} > 1 "
                       f"(tolerance {dict(spec.tolerance)})")
    return out
