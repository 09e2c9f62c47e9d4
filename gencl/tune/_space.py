"""A spec's space as Optuna distributions: one categorical per axis.

Optuna's categorical choices must be None, bool, int, float or str; axis values that are not
(work-group tuples) are encoded as their JSON text and decoded back, so trials in the storage read
naturally (``"[32, 4]"``) and optuna-dashboard shows them as they are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from optuna.distributions import CategoricalDistribution


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value)


class SearchSpace:
    """The axes of *spec* (parameters and knobs) with encode/decode to Optuna params.

    *device* (a DeviceInfo) applies the spec's device- and size-dependent constraints to
    ``points()``, so a sampler that ranks the points (guided) never proposes one the device
    excludes (a tile larger than the grid, a work-group above the device's limit)."""

    def __init__(self, spec: Any, fixed: Mapping[str, Any] | None = None,
                 device: Any = None) -> None:
        from gencl.spec._hooks import axis_value

        self.spec = spec
        self.fixed = {k: axis_value(spec.axes[k], v) if k in spec.axes else v
                      for k, v in (fixed or {}).items()}
        self.device = device
        self.axes = {k: v for k, v in spec.axes.items() if k not in self.fixed}
        self._decode = {k: {_encode(v): v for v in values} for k, values in self.axes.items()}

    def distributions(self) -> dict[str, CategoricalDistribution]:
        return {k: CategoricalDistribution([_encode(v) for v in values])
                for k, values in self.axes.items()}

    def encode(self, point: Mapping[str, Any]) -> dict[str, Any]:
        return {k: _encode(point[k]) for k in self.axes}

    def decode(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {**self.fixed, **{k: self._decode[k][params[k]] for k in self.axes}}

    def points(self) -> list[dict[str, Any]]:
        """Every point of the space (constraints applied) that agrees with the fixed values."""
        return [p for p in self.spec.points(self.device, self.fixed)
                if all(p.get(k) == v for k, v in self.fixed.items())]

    @property
    def size(self) -> int:
        n = 1
        for values in self.axes.values():
            n *= len(values)
        return n
