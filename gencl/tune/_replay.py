"""ReplayEngine: a real engine over recorded results — answers a point from a measured space.

Kernel Tuner calls this simulation mode. The engine reads a results file (``gencl run --all`` or
``gencl space``: header + "results"), and ``evaluate(point)`` returns the recorded Measurement, with
its status (failures replay as failures). A point the file does not hold is an ``error`` status
saying so, never a guess.

Given the spec, the records are read as points of its space today
(``gencl.model.space_records``): a record measured before an axis joined the space stands at
that axis's first value, and one whose value has left the space is set aside (``outside``, with
the reason): no search can ask for it, and a prediction for it would be compared with another
kernel.
Given *fixed* values (``gencl tune --simulate --knob``), only the records of that slice are
kept: spmv_ell's matrix is the user's, not a choice a search makes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from gencl.errors import GenclError
from gencl.measure import Measurement
from gencl.model import load_results, point_key, space_records


class ReplayEngine:
    """Recorded measurements of one spec's space, keyed by point."""

    def __init__(self, path: str | os.PathLike, *, delay_s: float = 0.0,
                 spec: Any = None, fixed: Mapping[str, Any] | None = None) -> None:
        self.path = str(path)
        self.delay_s = delay_s  # wall time per evaluation, to exercise workers like a device
        data = load_results(path)
        self.header = {k: v for k, v in data.items() if k != "results"}
        self.device: dict[str, Any] = dict(data.get("device") or {})
        #: a sampled cache (``gencl space --sample``) is the space searched: points outside it
        #: are pruned like excluded points instead of replaying as errors
        self.sampled = bool(data.get("sampled", False))
        self._records: dict[str, dict[str, Any]] = {}
        #: records whose point the spec's space no longer holds: (point, reason)
        self.outside: list[tuple[dict[str, Any], str]] = []
        records = data["results"]
        if spec is not None:
            records, self.outside = space_records(spec, records)
        for record in records:
            if fixed and any(point_key({"v": record["point"].get(k)}) != point_key({"v": v})
                             for k, v in fixed.items()):
                continue  # another slice of the space than the one asked for
            self._records[point_key(record["point"])] = record
        self.evaluations = 0
        if fixed and not self._records:
            held = ", ".join(f"{k}={v}" for k, v in fixed.items())
            raise GenclError(f"{self.path}: no measured point has {held}")

    def __len__(self) -> int:
        return len(self._records)

    @property
    def records(self) -> list[dict[str, Any]]:
        return list(self._records.values())

    def contains(self, point: Mapping[str, Any]) -> bool:
        """Whether *point* was measured (a sampled cache holds only part of the space)."""
        return point_key(point) in self._records

    def best(self, spec: Any = None) -> dict[str, Any]:
        """The fastest ok record: per sweep with *spec* (a launch of k sweeps over k), else
        per launch."""
        from gencl.measure._sweeps import time_per_sweep

        ok = [r for r in self._records.values() if r.get("status") == "ok"]
        return min(ok, key=lambda r: float((time_per_sweep(spec, r) if spec is not None
                                            else r["median_s"]) or "inf"))

    def evaluate(self, spec: Any, point: Mapping[str, Any]) -> Measurement:
        """The recorded measurement of *point*."""
        self.evaluations += 1
        if self.delay_s:
            import time
            time.sleep(self.delay_s)
        record = self._records.get(point_key(point))
        if record is None:
            return Measurement("", spec.name, dict(point), {}, "error",
                               f"point not in the replay cache {self.path}")
        return Measurement.from_json(record)
