"""Numerics: a variant through the measure pipeline without timing — built, run on random data
with outputs poisoned, compared with numpy (over ping-pong launches where the spec has them).

The same function runs on the chosen device and, inside the oclgrind subprocess, on the simulator;
it never raises for a variant's fault: every outcome is a field of the returned ``Outcome``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gencl.generate import Variant
from gencl.measure import OpenCLEngine, evaluate_variant


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


#: how a pipeline status reads in the verify report: (skipped or failure, prefix)
_SAYS = {"invalid_size": ("skipped", "verify sizes outside the variant's assumptions"),
         "out_of_resources": ("skipped", "does not fit the device"),
         "build_error": ("failure", "build failed"), "timeout": ("failure", "run timed out"),
         "error": ("failure", "run failed"), "wrong_answer": ("failure", "wrong answer")}


def run_numerics(engine: OpenCLEngine, spec: Any, variant: Variant, sizes: Mapping[str, int], *,
                 seed: int = 0) -> Outcome:
    """Build, bind random inputs, run with poisoned outputs, compare at the spec's tolerance.

    Sizes outside the variant's assumptions or resources the device lacks make the variant
    *skipped* (the spec's constraints should exclude it; the report says so), not failed.
    """
    ev = evaluate_variant(engine, spec, variant, sizes, verify_sizes=sizes, seed=seed,
                          time=False)
    m = ev.measurement
    out = Outcome(built=ev.built is not None, built_program=ev.built, max_error=m.max_error)
    if m.ok:
        out.ran, out.matched = True, True
        return out
    kind, prefix = _SAYS.get(m.status, ("failure", m.status))
    setattr(out, kind, f"{prefix}: {m.reason}")
    out.ran = m.status == "wrong_answer"
    return out
