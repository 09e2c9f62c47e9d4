"""What verify found: one VariantCheck per variant, one VerifyReport per run."""

from __future__ import annotations

import datetime as _dt
from dataclasses import asdict, dataclass, field
from typing import Any

from gencl._version import __version__

SCHEMA_VERSION = "1.0"


@dataclass
class VariantCheck:
    """The checks of one variant. ``failures`` empty and ``skipped`` None → it passed.

    Args:
        generated/built/ran/matched: how far the numerics check got on the device.
        max_error: largest error scaled by the spec's tolerance (≤ 1 passes).
        skipped: why the variant was not checked at all (excluded point, does not fit the
            device), or None. A skipped variant is neither a pass nor a failure.
        oclgrind: ``{"ran", "matched", "max_error", "findings", "exempted"}`` or None.
        ptx: ``{"problems", "ptx_file", "log_file", "rules"}`` or None.
    """

    spec: str
    variant_id: str
    point: dict[str, Any]
    sizes: dict[str, int] = field(default_factory=dict)
    generated: bool = False
    built: bool = False
    ran: bool = False
    matched: bool = False
    max_error: float | None = None
    failures: list[str] = field(default_factory=list)
    skipped: str | None = None
    oclgrind: dict[str, Any] | None = None
    ptx: dict[str, Any] | None = None

    @property
    def passed(self) -> bool:
        return self.skipped is None and not self.failures

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        if d["max_error"] is not None and d["max_error"] == float("inf"):
            d["max_error"] = "inf"
        d["passed"] = self.passed
        return d


@dataclass
class VerifyReport:
    """A whole ``gencl verify`` run: device, what was asked, every variant's checks."""

    device: dict[str, Any]
    specs: list[str]
    oclgrind: bool
    ptx: bool
    checks: list[VariantCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. "PTX step skipped: not NVIDIA"
    selection: dict[str, str] = field(default_factory=dict)  # spec -> how points were chosen
    date: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(
        timespec="seconds"))

    @property
    def checked(self) -> list[VariantCheck]:
        return [c for c in self.checks if c.skipped is None]

    @property
    def failed(self) -> list[VariantCheck]:
        return [c for c in self.checks if c.failures]

    @property
    def ok(self) -> bool:
        """Every checked variant passed, and at least one was checked (nothing checked ≠ pass)."""
        return not self.failed and bool(self.checked)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION, "gencl_version": __version__, "date": self.date,
            "device": self.device, "specs": self.specs, "oclgrind": self.oclgrind,
            "ptx": self.ptx, "variants_checked": len(self.checked),
            "variants_skipped": len(self.checks) - len(self.checked),
            "failures": [{"spec": c.spec, "variant_id": c.variant_id, "point": c.point,
                          "reasons": c.failures} for c in self.failed],
            "passed": self.ok, "notes": self.notes, "selection": self.selection,
            "results": [c.to_json() for c in self.checks]}
