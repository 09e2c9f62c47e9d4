"""DeviceProfile: the typed view of profile.json, and its only reader and writer.

profile.json is validated against ``gencl/schema/1.0/profile.schema.json`` when written and when
read, so a file that loads is one the report, the model and the tuner can trust. A corrupt file or
one of another schema version is one ``GenclError`` line, never a traceback.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from gencl.device import DeviceInfo
from gencl.errors import GenclError
from gencl.profile._summary import MEASURED_KEYS, build_summary, pick

SCHEMA_VERSION = "1.0"
PROFILE_FILE = "profile.json"
SUMMARY_FILE = "summary.json"

#: Benchmark statuses: ``ok`` means measured and analysed; ``skipped`` that the device cannot
#: run any of its points (the reason says why); the others say which step failed (``failed``: it
#: ran, but no variant was measured — the reason says what went wrong most).
BENCHMARK_STATUSES = ("ok", "skipped", "failed", "error", "no_analysis", "analysis_error",
                      "load_error")


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


@cache
def schema() -> dict[str, Any]:
    path = Path(__file__).resolve().parents[1] / "schema" / SCHEMA_VERSION / "profile.schema.json"
    return json.loads(path.read_text())


def _validator(ref: str | None = None):
    import jsonschema

    root = schema()
    target = {"$ref": f"#/$defs/{ref}", "$defs": root["$defs"]} if ref else root
    return jsonschema.Draft202012Validator(target)


def validate(data: Any, *, where: str, ref: str | None = None) -> None:
    """Raise one-line GenclError naming *where* and the first field that breaks the schema."""
    errors = sorted(_validator(ref).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        path = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        raise GenclError(f"{where}: {path}: {err.message[:200]}")


# {{{ typed records

@dataclass(frozen=True)
class ProfileCharacteristic:
    """One characteristic of the device, with where it came from.

    ``value`` is in SI units (``unit``); ``measurements`` are the raw measurement records
    (Measurement.to_json(): variant id, samples, source and binary hash) it was derived from.
    """

    name: str
    value: Any
    unit: str
    ci95: float | None
    method: str
    benchmark: str
    variants: tuple[str, ...]
    measurements: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class BenchmarkResult:
    """One benchmark of the suite: its measurements, what its analysis found, or why not."""

    name: str
    analysis: str | None
    group: str
    status: str
    reason: str
    spec_path: str
    spec_source_hash: str
    measured: bool
    measurements: tuple[Mapping[str, Any], ...]
    characteristics: tuple[Mapping[str, Any], ...]
    series: Mapping[str, Any]
    notes: tuple[str, ...]
    started: str | None = None
    finished: str | None = None
    elapsed_s: float | None = None
    clock_hz: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def failed_measurements(self) -> list[Mapping[str, Any]]:
        return [m for m in self.measurements if m.get("status") != "ok"]

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["measurements"] = list(self.measurements)
        d["characteristics"] = list(self.characteristics)
        d["series"] = dict(self.series)
        d["notes"] = list(self.notes)
        return d

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BenchmarkResult:
        names = {f.name for f in dataclasses.fields(cls)}
        d = {k: v for k, v in data.items() if k in names}
        d["measurements"] = tuple(d.get("measurements", ()))
        d["characteristics"] = tuple(d.get("characteristics", ()))
        d["notes"] = tuple(d.get("notes", ()))
        return cls(**d)


@dataclass(frozen=True)
class DeviceProfile:
    """Everything ``gencl profile`` learned about one device.

    Typed access: ``profile.get("copy_bw_Bps").value``, ``profile.value("copy_bw_Bps")`` (None
    when not measured), ``profile.summary`` (the summary.json dict), ``profile.device``
    (DeviceInfo), ``profile.benchmarks[name]``, ``profile.missing``.
    """

    device_json: Mapping[str, Any]
    clock: Mapping[str, Any]
    quick: bool
    benchmarks: Mapping[str, BenchmarkResult]
    date: str = field(default_factory=now)
    updated: str = field(default_factory=now)
    gencl_version: str = ""
    suite: tuple[str, ...] = ()
    path: str | None = None
    #: other tools run on the same device in the same ``gencl profile`` (``clpeak``): their
    #: version, command, status and parsed figures (gencl/profile/_clpeak.py)
    peers: Mapping[str, Any] = field(default_factory=dict)

    # {{{ typed access

    @property
    def device(self) -> DeviceInfo:
        names = {f.name for f in dataclasses.fields(DeviceInfo)}
        d = {k: v for k, v in self.device_json.items() if k in names}
        d["extensions"] = tuple(d.get("extensions", ()))
        return DeviceInfo(**d)

    @property
    def driver(self) -> str:
        return str(self.device_json.get("driver", ""))

    @property
    def clock_hz(self) -> float:
        """The clock seen during the run where the platform tells, else the reported maximum."""
        return float(self.clock.get("seen_hz") or self.clock["reported_max_hz"])

    @property
    def characteristics(self) -> dict[str, ProfileCharacteristic]:
        """Every characteristic by name; a name reported by several benchmarks resolves as in
        summary.json (highest rate, else the first benchmark in suite order)."""
        by_name: dict[str, list[ProfileCharacteristic]] = {}
        for bench in self.benchmarks.values():
            records = {m["variant_id"]: m for m in bench.measurements}
            for c in bench.characteristics:
                variants = tuple(c.get("variants", ()))
                by_name.setdefault(c["name"], []).append(ProfileCharacteristic(
                    c["name"], c["value"], c["unit"], c.get("ci95"), c.get("method", ""),
                    bench.name, variants, tuple(records[v] for v in variants if v in records)))
        out = {}
        for name, cands in by_name.items():
            chosen = pick(name, [(c.benchmark, c.value) for c in cands])
            out[name] = next(c for c in cands if chosen and c.benchmark == chosen[0]) \
                if chosen else cands[0]
        return out

    def get(self, name: str) -> ProfileCharacteristic:
        """The characteristic *name*; KeyError (saying what exists) when it was not measured."""
        chars = self.characteristics
        if name not in chars:
            raise KeyError(f"{name!r} not in this profile (measured: {', '.join(sorted(chars))})")
        return chars[name]

    def value(self, name: str, default: Any = None) -> Any:
        c = self.characteristics.get(name)
        return default if c is None or c.value is None else c.value

    @property
    def summary(self) -> dict[str, Any]:
        chars = self.characteristics
        return build_summary(self.device_json, self.clock.get("seen_hz"),
                             {k: chars[k].value for k in MEASURED_KEYS if k in chars})

    @property
    def missing(self) -> dict[str, str]:
        """summary.json keys with no value, each with the reason as far as it is known."""
        why_by_analysis: list[str] = []
        for b in self.benchmarks.values():
            if not b.ok:
                why_by_analysis.append(f"{b.name}: {b.status}" + (f" ({b.reason})" if b.reason
                                                                  else ""))
        reason = ("no benchmark of the suite produced it" +
                  (f"; not finished: {'; '.join(why_by_analysis)}" if why_by_analysis else ""))
        return {k: reason for k, v in self.summary.items() if v is None and k in MEASURED_KEYS}

    @property
    def failures(self) -> list[dict[str, str]]:
        """Failed benchmarks and failed variants, each with its reason."""
        out = []
        for b in self.benchmarks.values():
            if not b.ok:
                out.append({"benchmark": b.name, "variant": "", "status": b.status,
                            "reason": b.reason})
            for m in b.failed_measurements:
                out.append({"benchmark": b.name, "variant": m["variant_id"],
                            "status": m["status"], "reason": m.get("reason", "")})
        return out

    # }}}

    def with_benchmark(self, result: BenchmarkResult) -> DeviceProfile:
        return dataclasses.replace(self, benchmarks={**self.benchmarks, result.name: result},
                                   updated=now())

    def with_peer(self, name: str, record: Mapping[str, Any]) -> DeviceProfile:
        return dataclasses.replace(self, peers={**self.peers, name: dict(record)})

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION, "kind": "gencl-profile",
            "gencl_version": self.gencl_version, "date": self.date, "updated": self.updated,
            "device": dict(self.device_json), "driver": self.driver, "clock": dict(self.clock),
            "quick": self.quick, "suite": list(self.suite),
            "benchmarks": {n: b.to_json() for n, b in self.benchmarks.items()},
            "summary": self.summary,
            **({"peers": {n: dict(r) for n, r in self.peers.items()}} if self.peers else {}),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, path: str | None = None) -> DeviceProfile:
        return cls(device_json=data["device"], clock=data["clock"], quick=data["quick"],
                   benchmarks={n: BenchmarkResult.from_json(b)
                               for n, b in data["benchmarks"].items()},
                   date=data["date"], updated=data["updated"],
                   gencl_version=data["gencl_version"], suite=tuple(data.get("suite", ())),
                   path=path, peers=data.get("peers") or {})


# }}}


# {{{ files

def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    return str(obj)


def _jsonable(data: Any) -> Any:
    """Plain JSON types (numpy scalars, tuples, NaN → null) so the schema sees what the file
    will hold."""
    text = json.dumps(data, default=_json_default)
    return json.loads(text, parse_constant=lambda _: None)


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def profile_path(path: str | os.PathLike) -> Path:
    p = Path(path)
    return p / PROFILE_FILE if p.is_dir() or not p.suffix else p


def save_profile(profile: DeviceProfile, folder: str | os.PathLike) -> Path:
    """Write profile.json and summary.json into *folder* (atomically, validated first)."""
    folder = Path(folder)
    data = _jsonable(profile.to_json())
    validate(data, where=str(folder / PROFILE_FILE))
    _atomic_write(folder / PROFILE_FILE, json.dumps(data, indent=1, allow_nan=False))
    summary = {"schema_version": SCHEMA_VERSION, "gencl_version": profile.gencl_version,
               "date": profile.updated, **data["summary"]}
    if profile.peers:
        from gencl.profile._clpeak import gencl_figures, peer_summary

        ours = gencl_figures(profile.characteristics)
        summary["peers"] = {n: peer_summary(r, ours) for n, r in profile.peers.items()}
    _atomic_write(folder / SUMMARY_FILE, json.dumps(summary, indent=1, allow_nan=False))
    return folder / PROFILE_FILE


def load_profile(path: str | os.PathLike) -> DeviceProfile:
    """Read and validate a profile (a profile.json or the folder holding one).

    Raises:
        GenclError: one line naming the file and what is wrong (missing, not JSON, another
            schema version, a field that breaks the schema).
    """
    file = profile_path(path)
    if not file.is_file():
        raise GenclError(f"{file}: no such profile (run `gencl profile --out {file.parent}`)")
    try:
        data = json.loads(file.read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise GenclError(f"{file}: not valid JSON ({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(data, dict):
        raise GenclError(f"{file}: (top level): not a JSON object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise GenclError(f"{file}: schema_version: {version!r} is not the supported "
                         f"{SCHEMA_VERSION!r} (re-run `gencl profile`)")
    validate(data, where=str(file))
    return DeviceProfile.from_json(data, path=str(file))

# }}}
