"""Find, import and validate spec files. Every problem becomes one SpecError naming file and field."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
import traceback
from pathlib import Path

from gencl.errors import SpecError
from gencl.spec._spec import BenchmarkSpec

#: Folders searched for a spec given by name, in order.
SPEC_DIRS = ("specs", "tuning")


def _search_roots() -> list[Path]:
    # the working directory first (a user's own specs), then the checkout gencl was installed from
    repo = Path(__file__).resolve().parents[2]
    return [Path.cwd(), repo]


def find_spec_file(name_or_path: str) -> Path:
    """Resolve a spec name (``copy``) or a path (``specs/copy.py``) to a file."""
    path = Path(name_or_path)
    if path.suffix == ".py" or path.exists():
        if not path.is_file():
            raise SpecError(name_or_path, "path", "no such file")
        return path
    for root in _search_roots():
        for folder in SPEC_DIRS:
            candidate = root / folder / f"{name_or_path}.py"
            if candidate.is_file():
                return candidate
    raise SpecError(name_or_path, "name", f"no spec of that name in {', '.join(SPEC_DIRS)}/")


def list_spec_files() -> list[Path]:
    """Every spec file found, by folder then name, without duplicates by name."""
    seen: dict[str, Path] = {}
    for root in _search_roots():
        for folder in SPEC_DIRS:
            for file in sorted((root / folder).glob("[!_]*.py")):
                seen.setdefault(file.stem, file)
    return list(seen.values())


def _field_of(exc: BaseException) -> str:
    """Best guess of the spec field a construction error is about."""
    msg = str(exc)
    m = re.search(r"argument[s]?: '(\w+)'", msg) or re.search(r"keyword argument '(\w+)'", msg)
    return m.group(1) if m else "SPEC"


def _import(path: Path):
    text = path.read_text()
    try:
        code = compile(text, str(path), "exec")
    except SyntaxError as exc:
        raise SpecError(str(path), f"line {exc.lineno}", f"syntax error: {exc.msg}") from None
    module_name = f"gencl_spec_{path.stem}_{hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[module_name] = module
    try:
        exec(code, module.__dict__)
    except TypeError as exc:
        raise SpecError(str(path), _field_of(exc), str(exc)) from None
    except Exception as exc:  # noqa: BLE001 -- any error while importing a user's spec is bad input
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        raise SpecError(str(path), f"line {frame.lineno}",
                        f"{type(exc).__name__}: {exc}") from None
    return module, hashlib.sha256(text.encode()).hexdigest()


_CACHE: dict[tuple[str, float], BenchmarkSpec] = {}


def load_spec(name_or_path: str, *, check_program: bool = True) -> BenchmarkSpec:
    """Load and validate a spec by name or path.

    Raises:
        SpecError: one line naming the file and the field.
    """
    path = find_spec_file(name_or_path).resolve()
    key = (str(path), path.stat().st_mtime)
    if key in _CACHE:
        return _CACHE[key]
    module, source_hash = _import(path)
    spec = getattr(module, "SPEC", None)
    if spec is None:
        raise SpecError(str(path), "SPEC", "the module defines no SPEC")
    if not isinstance(spec, BenchmarkSpec):
        raise SpecError(str(path), "SPEC", f"is a {type(spec).__name__}, not a BenchmarkSpec")
    spec = _with_origin(spec, str(path), source_hash)
    if not spec.knobs:  # a kernel that binds no knobs gets the space its program implies
        from gencl.generate import with_derived_space
        spec = with_derived_space(spec)
    validate_spec(spec, check_program=check_program)
    _CACHE[key] = spec
    return spec


def _with_origin(spec: BenchmarkSpec, path: str, source_hash: str) -> BenchmarkSpec:
    import dataclasses
    return dataclasses.replace(spec, path=path, source_hash=source_hash)


def validate_spec(spec: BenchmarkSpec, *, check_program: bool = True) -> None:
    """Check every field; raise SpecError on the first problem."""
    from gencl.generate.knobs import TRANSFORMS

    file = spec.path or spec.name

    def fail(field: str, message: str) -> None:
        raise SpecError(file, field, message)

    if not spec.name or not re.fullmatch(r"[a-z][a-z0-9_]*", spec.name):
        fail("name", f"{spec.name!r} is not a lowercase identifier")
    for field_name in ("program", "inputs", "reference", "sizes"):
        if not callable(getattr(spec, field_name)):
            fail(field_name, "must be a function")
    for name, values in spec.params.items():
        if not isinstance(values, tuple | list) or not values:
            fail(f"params.{name}", "must be a non-empty tuple of values")
    for name, knob in spec.knobs.items():
        if name in spec.params:
            fail(f"knobs.{name}", "is also a program parameter")
        if knob.transform not in TRANSFORMS:
            fail(f"knobs.{name}.transform",
                 f"unknown knob {knob.transform!r} (known: {', '.join(sorted(TRANSFORMS))})")
        if not knob.values:
            fail(f"knobs.{name}.values", "is empty")
        for value in knob.values:
            problem = TRANSFORMS[knob.transform].check(value)
            if problem:
                fail(f"knobs.{name}.values", f"{value!r}: {problem}")
    axes = spec.axes
    for i, point in enumerate(spec.sweep):
        for name, value in point.items():
            if name not in axes:
                fail(f"sweep[{i}].{name}", f"unknown knob or parameter (known: {', '.join(axes)})")
            if value not in axes[name]:
                fail(f"sweep[{i}].{name}", f"value {value!r} is outside the space {axes[name]}")
    for name, metric in spec.metrics.items():
        if not callable(metric):
            fail(f"metrics.{name}", "must be a function of (point, sizes)")
    if check_program:
        point = spec.complete(spec.sweep[0] if spec.sweep else {})
        try:
            spec.program(point)
        except Exception as exc:  # noqa: BLE001 -- a broken program is bad input, said in one line
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            fail("program", f"{type(exc).__name__}: {first}"[:300])


def check_point(spec: BenchmarkSpec, point: dict) -> dict:
    """Validate a user-given (partial) point against the space and complete it."""
    axes = spec.axes
    for name, value in point.items():
        if name not in axes:
            raise SpecError(spec.path, f"knob {name}",
                            f"unknown knob or parameter (known: {', '.join(axes)})")
        if value not in axes[name]:
            raise SpecError(spec.path, f"knob {name}",
                            f"value {value!r} is outside the space {axes[name]}")
    full = spec.complete(point)
    reason = spec.excluded(full)
    if reason:
        raise SpecError(spec.path, "knobs", f"point excluded: {reason}")
    return full
