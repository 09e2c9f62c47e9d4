"""Analyses: pure functions from a benchmark's measurements to device characteristics.

A spec names its analysis (``analysis="bandwidth"``); the function registered under that name
turns the spec's measurement records into Characteristics (value, unit, CI, method, variants) and
series for plots. Nothing here touches a device or a file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Characteristic:
    """One device characteristic.

    ``name`` is a summary.json key where one exists (``sp_peak_flops``, ``copy_bw_Bps``, …), else
    a descriptive snake_case name. ``value`` is in SI units given by ``unit`` (B/s, FLOP/s, op/s,
    cycles, s, B, items); it may be a list or dict for structured results (``cache_levels``).
    """

    name: str
    value: Any
    unit: str
    ci95: float | None = None
    method: str = ""
    variants: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AnalysisResult:
    """What an analysis found: characteristics plus named series for the report's plots/tables."""

    characteristics: tuple[Characteristic, ...]
    series: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"characteristics": [c.to_json() for c in self.characteristics],
                "series": dict(self.series), "notes": list(self.notes)}


#: ``(records, device, clock_hz) -> AnalysisResult``. ``records`` are Measurement.to_json() dicts
#: (every status, failures included); ``device`` is DeviceInfo.to_json(); ``clock_hz`` is the clock
#: seen during the run, or None (then use device["max_clock_hz"] and say so in ``method``).
Analysis = Callable[[Sequence[Mapping[str, Any]], Mapping[str, Any], float | None], AnalysisResult]

ANALYSES: dict[str, Analysis] = {}


def analysis(name: str) -> Callable[[Analysis], Analysis]:
    """Register an analysis under *name* (the value of a spec's ``analysis`` field)."""
    def register(fn: Analysis) -> Analysis:
        ANALYSES[name] = fn
        return fn
    return register


def get_analysis(name: str) -> Analysis:
    import importlib
    import pkgutil

    import gencl.characterize as pkg

    if name not in ANALYSES:  # modules register on import: import every family once
        for mod in pkgutil.iter_modules(pkg.__path__):
            if not mod.name.startswith("_"):
                importlib.import_module(f"gencl.characterize.{mod.name}")
    if name not in ANALYSES:
        raise KeyError(f"no analysis named {name!r} (known: {', '.join(sorted(ANALYSES))})")
    return ANALYSES[name]
