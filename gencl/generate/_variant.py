"""Variant: one point of a spec's space lowered to OpenCL, with what a launch needs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, MutableMapping
from dataclasses import asdict, dataclass, field
from typing import Any

from gencl._version import __version__


@dataclass(frozen=True)
class ArgInfo:
    """A kernel argument in order. ``shape`` entries are expressions over the sizes.

    An ``image`` (a loopy ``ImageArg``, read through the texture path) has the image's axes
    (height, width) then its channels (1, 2 or 4) as its shape, the channel's type as dtype.
    """

    name: str
    kind: str  # "global" | "scalar" | "local" | "image"
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
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    return value


def _generator_hash() -> str:
    """Hash of the generator's own code: a changed transform must not reuse cached variants."""
    from pathlib import Path

    root = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _loopy_version() -> str:
    from loopy.version import VERSION_TEXT

    return VERSION_TEXT


#: gencl version plus the hash of gencl/generate/: part of every variant id and cache key.
GENERATOR_VERSION = f"{__version__}+{_generator_hash()}"


# {{{ the program's own hash

def _program_key_builder():
    """loopy's persistent-hash builder, with isl sets hashed in a canonical parameter order:
    loopy orders the parameters of a kernel's assumptions by set iteration, which moves with
    PYTHONHASHSEED, and a cache key must not."""
    import islpy as isl
    from loopy.tools import LoopyKeyBuilder

    class ProgramKeyBuilder(LoopyKeyBuilder):
        def update_for_BasicSet(self, key_hash, key):  # pytools names its hooks so
            names = sorted(key.get_var_names(isl.dim_type.param))
            model = isl.Space.create_from_names(key.get_ctx(), set=[], params=names).params()
            super().update_for_BasicSet(key_hash, key.align_params(model))

        update_for_Set = update_for_BasicSet
        update_for_BasicMap = update_for_BasicSet
        update_for_Map = update_for_BasicSet

    return ProgramKeyBuilder()


def hash_program(program: Any) -> str:
    """Persistent hash of a loopy TranslationUnit (what the code is generated from)."""
    return _program_key_builder()(program)


class _ReadTracker(MutableMapping):
    """The point as a program function sees it, noting which axes it reads.

    Not a dict subclass on purpose: ``{**point}`` and ``dict(point)`` on a dict subclass skip
    ``__getitem__``, and a read the tracker misses would make two different programs share a hash.
    """

    def __init__(self, point: Mapping[str, Any]) -> None:
        self._data: dict[str, Any] = dict(point)
        self.read: set[Any] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        self.read.add(key)
        return key in self._data

    def __setitem__(self, key: str, value: Any) -> None:
        self._data[key] = value

    def __delitem__(self, key: str) -> None:
        del self._data[key]

    def __iter__(self):
        self.read.update(self._data)  # iterating shows every axis: the program may use any
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def copy(self) -> dict[str, Any]:  # what a dict offers that a program may use
        self.read.update(self._data)
        return dict(self._data)

    def __or__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        return {**self.copy(), **other}

    def __ror__(self, other: Mapping[str, Any]) -> dict[str, Any]:
        return {**other, **self.copy()}


class _Unmemoized:
    """A program callable that cannot key the memo: a fresh key object per call."""

    def __init__(self, program: Any) -> None:
        self.program = program

    def __call__(self, point: Any) -> Any:
        return self.program(point)


#: per program function: the axes it has been seen to read, and hashes by their values
_AXES_READ: dict[Any, set[str]] = {}
_PROGRAM_HASHES: dict[tuple[Any, tuple], str] = {}


def _read_key(program: Any, point: Mapping[str, Any]) -> tuple:
    axes = sorted(_AXES_READ.get(program, ()))
    return (program, tuple((a, json.dumps(_canonical(point.get(a)), default=repr)) for a in axes))


def program_hash(spec: Any, point: Mapping[str, Any], *, strict: bool = False) -> str:
    """Hash of the untransformed program ``spec.program(point)`` builds.

    A program function is called once per distinct value of the axes it reads (a deterministic
    function given the same values of everything it reads builds the same program), so a space
    of many knob values costs one build per program parameter combination. A program that
    raises hashes as its error, unless *strict* (the loader: a broken program is a spec error).
    """
    program = spec.program
    try:
        hash(program)
    except TypeError:  # an unhashable callable object: no memo
        program = _Unmemoized(program)
    if program in _AXES_READ:
        cached = _PROGRAM_HASHES.get(_read_key(program, point))
        if cached is not None:
            return cached
    tracker = _ReadTracker(point)
    try:
        built = program(tracker)
    except Exception as exc:
        if strict:
            raise
        # a point whose program fails is not generated; its id still names the failure, so a
        # fixed program gets a new id
        digest = "unbuildable:" + hashlib.sha256(
            f"{type(exc).__name__}: {exc}".encode()).hexdigest()
    else:
        digest = hash_program(built)
    _AXES_READ.setdefault(program, set()).update(tracker.read)
    _PROGRAM_HASHES[_read_key(program, point)] = digest
    return digest

# }}}


def variant_id(spec: Any, point: Mapping[str, Any]) -> str:
    """Stable id of *point* of *spec*: what determines its code, and nothing else.

    Hashes the untransformed program the spec builds for the point (loopy's persistent hash, so
    a spec that builds on another spec's program changes when that one is edited), the knobs
    (transform and options, in order), the point, the loopy version and the generator version
    (gencl version + the source of gencl/generate/). Not the spec file's text: an edited comment
    keeps the cache; two specs of one name with different programs never share it.
    """
    knobs = [[name, knob.transform, _canonical(dict(knob.options))]
             for name, knob in spec.knobs.items()]
    key = json.dumps({"spec": spec.name, "program": program_hash(spec, point), "knobs": knobs,
                      "generator": GENERATOR_VERSION, "loopy": _loopy_version(),
                      "point": {k: _canonical(v) for k, v in sorted(point.items())}},
                     sort_keys=True, default=repr)
    return f"{spec.name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
