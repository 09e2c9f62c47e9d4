"""Measurement: what one variant did on one device — status, samples, statistics, metrics."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

#: Every status a measurement can end in. Only "ok" carries timings.
STATUSES = ("ok", "build_error", "out_of_resources", "wrong_answer", "timeout", "invalid_size",
            "excluded", "error")


#: OpenCL errors that say a variant needs more than the device has, not that it is wrong.
DOES_NOT_FIT = ("OUT_OF_RESOURCES", "INVALID_WORK_GROUP_SIZE", "MEM_OBJECT_ALLOCATION")


def device_error_status(exc: BaseException) -> str:
    """Status of a variant whose launch raised *exc*: out_of_resources or error."""
    return "out_of_resources" if any(code in str(exc) for code in DOES_NOT_FIT) else "error"


#: a kernel source's file in a compiler's diagnostic (PoCL's kcache/tempfile_XXXXXX.cl)
SOURCE_FILE = re.compile(r"\S*\.cl\b")
#: a compiler's diagnostic at a line and column of the source: the source's fault, not the
#: runtime's
SOURCE_DIAGNOSTIC = re.compile(r"\.cl:\d+:\d+:|:\d+:\d+: error")


def dominant_failure(records: Sequence[Any]) -> tuple[str, str, int]:
    """(status, reason, count) of the most common failure among measurement records (dicts
    or Measurements): what a run that measured nothing should say first."""
    from collections import Counter

    def fields(r: Any) -> tuple[str, str]:
        status = r.get("status") if isinstance(r, dict) else r.status
        reason = (r.get("reason") if isinstance(r, dict) else r.reason) or ""
        # each build's source sits in a temporary file of its own: one failure, many names
        first = SOURCE_FILE.sub("<source>.cl", (reason.strip().splitlines() or [""])[0])
        return str(status), first[:300]

    failed = [fields(r) for r in records if fields(r)[0] != "ok"]
    if not failed:
        return "no_measurement", "no variant was run", 0
    (status, reason), count = Counter(failed).most_common(1)[0]
    return status, reason, count


def explain_failure(records: Sequence[Any], device: Any) -> str:
    """One line for a run that measured nothing: what failed, on which device, and the likely fix.

    *device* is a DeviceInfo or its JSON. The cause first (``every build failed on …: unknown
    target CPU 'generic'``), then the fix (for builds that fail on a CPU, another CPU runtime).
    """
    from gencl.device._info import fix_for

    status, reason, count = dominant_failure(records)
    get = device.get if isinstance(device, dict) else lambda k, d=None: getattr(device, k, d)
    where = f"{get('name')} ({get('slug')})"
    every = count == len(records) and count > 0
    what = {"build_error": "every build failed", "wrong_answer": "every result was wrong",
            "timeout": "every launch timed out", "out_of_resources": "no variant fit the device",
            }.get(status, f"every variant ended in {status}") if every else \
        f"nothing measured ({count} of {len(records)} variants: {status})"
    if status == "build_error" and SOURCE_DIAGNOSTIC.search(reason):
        fix = ("the generated source does not compile here: `gencl generate SPEC --knob … --out "
               "DIR` writes it (a name OpenCL C reserves, a type it has no conversion for)")
    elif status == "build_error":
        fix = fix_for(device) + " (then: gencl devices)"
    else:
        fix = "see each variant's reason in the results"
    return f"{what} on {where}: {reason} — {fix}"


@dataclass(frozen=True)
class Measurement:
    """One variant measured (or why not).

    ``samples_s`` are per-launch times (each sample is ``launches_per_sample`` back-to-back
    launches, first START to last END by OpenCL profiling events, divided by that count).
    ``ci95_s`` is the half-width 1.96 σ of the samples. ``metrics`` are rates (per second) from the
    spec's work formulas over the median time, e.g. ``bytes`` → bytes/s.
    """

    variant_id: str
    spec: str
    point: dict[str, Any]
    sizes: dict[str, int]
    status: str
    reason: str = ""
    samples_s: tuple[float, ...] = ()
    median_s: float | None = None
    ci95_s: float | None = None
    launches_per_sample: int = 0
    attempts: int = 0
    wide_spread: bool = False
    max_error: float | None = None
    work: dict[str, float] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    source_hash: str = ""
    binary_hash: str = ""
    clock_hz: float | None = None
    build_log: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def timed(cls, variant_id: str, spec: str, point: dict[str, Any], sizes: dict[str, int],
              samples_s: Sequence[float], *, work: dict[str, float] | None = None,
              **fields: Any) -> Measurement:
        """An "ok" measurement from raw samples: median, 1.96 σ, and rates = work / median."""
        median = float(np.median(samples_s))
        std = float(np.std(samples_s, ddof=1)) if len(samples_s) > 1 else 0.0
        work = dict(work or {})
        return cls(variant_id, spec, dict(point), dict(sizes), "ok", samples_s=tuple(samples_s),
                   median_s=median, ci95_s=1.96 * std, work=work,
                   metrics={name: amount / median for name, amount in work.items()}, **fields)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        """A dict for standard JSON: a non-finite float (max error of a size mismatch) is None."""
        from gencl._json import finite

        return finite(asdict(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        data = dict(data)
        data["samples_s"] = tuple(data.get("samples_s", ()))
        return cls(**data)
