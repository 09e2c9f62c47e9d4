"""Two profiles side by side: every characteristic either has, with the ratio B / A."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gencl.profile._profile import DeviceProfile
from gencl.profile._summary import MEASURED_KEYS


@dataclass(frozen=True)
class ComparisonRow:
    name: str
    unit: str
    a: Any
    b: Any

    @property
    def ratio(self) -> float | None:
        """B / A where both are positive numbers, else None."""
        if isinstance(self.a, int | float) and isinstance(self.b, int | float) and \
                not isinstance(self.a, bool) and self.a > 0:
            return float(self.b) / float(self.a)
        return None


def compare_profiles(a: DeviceProfile, b: DeviceProfile) -> list[ComparisonRow]:
    """Summary keys first (in summary.json order), then every other characteristic by name."""
    ca, cb = a.characteristics, b.characteristics
    names = list(MEASURED_KEYS) + sorted((set(ca) | set(cb)) - set(MEASURED_KEYS))
    rows = [ComparisonRow("clock_hz", "Hz", a.clock_hz, b.clock_hz),
            ComparisonRow("compute_units", "", a.device_json.get("compute_units"),
                          b.device_json.get("compute_units"))]
    for name in names:
        x, y = ca.get(name), cb.get(name)
        either = x or y
        unit = either.unit if either else MEASURED_KEYS.get(name, "")
        rows.append(ComparisonRow(name, unit, x.value if x else None, y.value if y else None))
    return rows
