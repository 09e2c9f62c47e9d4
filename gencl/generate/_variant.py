"""Variant: one point of a spec's space lowered to OpenCL, with what a launch needs."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from gencl._version import __version__


@dataclass(frozen=True)
class ArgInfo:
    """A kernel argument in order. ``shape`` entries are expressions over the sizes."""

    name: str
    kind: str  # "global" | "scalar" | "local"
    dtype: str
    shape: tuple[str, ...] = ()
    is_input: bool = True
    is_output: bool = False


@dataclass(frozen=True)
class Variant:
    """OpenCL source and launch description of one point of a spec's space.

    ``global_size``/``local_size`` are expressions over the sizes (OpenCL NDRange terms: the
    global size counts work items); ``assumptions`` is the isl set of sizes the code is valid for.
    """

    id: str
    spec: str
    point: dict[str, Any]
    source: str
    kernel_name: str
    args: tuple[ArgInfo, ...]
    global_size: tuple[str, ...]
    local_size: tuple[str, ...]
    assumptions: str = ""
    gencl_version: str = __version__
    codegen_s: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def source_hash(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Variant:
        data = dict(data)
        data["args"] = tuple(ArgInfo(**{**a, "shape": tuple(a["shape"])}) for a in data["args"])
        data["global_size"] = tuple(data["global_size"])
        data["local_size"] = tuple(data["local_size"])
        return cls(**data)


def _canonical(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_canonical(v) for v in value]
    return value


def _generator_hash() -> str:
    """Hash of the generator's own code: a changed transform must not reuse cached variants."""
    from pathlib import Path

    root = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


#: gencl version plus the hash of gencl/generate/: part of every variant id and cache key.
GENERATOR_VERSION = f"{__version__}+{_generator_hash()}"


def variant_id(spec_name: str, spec_hash: str, point: dict[str, Any]) -> str:
    """Stable id: hash of the spec's name and text, the point, and the generator version."""
    key = json.dumps({"spec": spec_name, "hash": spec_hash, "version": GENERATOR_VERSION,
                      "point": {k: _canonical(v) for k, v in sorted(point.items())}},
                     sort_keys=True, default=str)
    return f"{spec_name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
