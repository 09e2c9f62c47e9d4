"""Find, import and validate spec files. Every problem becomes one SpecError naming file, field."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import os
import re
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from gencl.errors import SpecError
from gencl.spec._probe import SpecTimeLimit
from gencl.spec._spec import BenchmarkSpec, Knob

#: Folders searched for a spec given by name, in order.
SPEC_DIRS = ("specs", "tuning")


def _search_roots() -> list[Path]:
    # the working directory first (a user's own specs), then the checkout gencl was installed from
    repo = Path(__file__).resolve().parents[2]
    return [Path.cwd(), repo]


def find_spec_file(name_or_path: str) -> Path:
    """Resolve a spec name (``copy``) or a path (``specs/copy.py``) to a file."""
    path = Path(name_or_path)
    if path.suffix == ".py" or path.exists() or os.sep in name_or_path:
        if path.is_dir():
            raise SpecError(name_or_path, "path", "is a directory, not a spec file")
        if not path.exists():
            raise SpecError(name_or_path, "path", "no such file")
        if not path.is_file():
            raise SpecError(name_or_path, "path", "is not a regular file")
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
    """The spec field a BenchmarkSpec(...) construction error is about, else "SPEC"."""
    msg = str(exc)
    m = re.search(r"argument[s]?: '(\w+)'", msg) or re.search(r"keyword argument '(\w+)'", msg)
    return m.group(1) if m else "SPEC"


#: Seconds a spec may take to import and probe (``GENCL_SPEC_TIMEOUT_S``; 0: no limit).
SPEC_TIMEOUT_S = 120.0


@contextlib.contextmanager
def _time_limit() -> Iterator[None]:
    """SIGALRM after ``GENCL_SPEC_TIMEOUT_S``, in the main thread of a POSIX process; a limit
    already running (a spec that loads another spec) covers the nested load."""
    try:
        seconds = float(os.environ.get("GENCL_SPEC_TIMEOUT_S", SPEC_TIMEOUT_S))
    except ValueError:
        seconds = SPEC_TIMEOUT_S
    if seconds <= 0 or not hasattr(signal, "setitimer") or \
            threading.current_thread() is not threading.main_thread() or \
            signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield
        return

    def expire(signum, frame):
        raise SpecTimeLimit(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _line_of(exc: BaseException, path: Path) -> str:
    """``line N`` of the spec file where *exc* was raised (the innermost frame in that file)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if Path(f.filename).resolve() == path.resolve()]
    frame = frames[-1] if frames else traceback.extract_tb(exc.__traceback__)[-1]
    return f"line {frame.lineno}"


def _import(path: Path):
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(str(path), "path", f"cannot read: {exc}") from None
    try:
        code = compile(text, str(path), "exec")
    except (SyntaxError, ValueError) as exc:
        line = f"line {exc.lineno}" if isinstance(exc, SyntaxError) else "text"
        raise SpecError(str(path), line, f"syntax error: {getattr(exc, 'msg', exc)}") from None
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]
    module_name = f"gencl_spec_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[module_name] = module
    try:
        exec(code, module.__dict__)
    except SpecError:
        raise  # a spec that loads another spec: that one's error names its own file
    except TypeError as exc:
        field = _field_of(exc)  # BenchmarkSpec(...) missing or unknown field
        if field == "SPEC":
            field, exc_text = _line_of(exc, path), f"TypeError: {exc}"
        else:
            exc_text = str(exc)
        raise SpecError(str(path), field, exc_text) from None
    except Exception as exc:  # noqa: BLE001 -- any error while importing a user's spec is bad input
        raise SpecError(str(path), _line_of(exc, path),
                        f"{type(exc).__name__}: {exc}") from None
    except SystemExit as exc:
        raise SpecError(str(path), _line_of(exc, path),
                        f"the spec called sys.exit({exc.code!r}) while being imported") from None
    except KeyboardInterrupt:
        raise SpecError(str(path), "import", "interrupted (KeyboardInterrupt) while importing "
                        "the spec") from None
    except SpecTimeLimit as exc:
        raise SpecError(str(path), _line_of(exc, path),
                        f"importing the spec took longer than {exc.args[0]:g} s "
                        "(GENCL_SPEC_TIMEOUT_S)") from None
    return module, source_digest(text, path)


def source_digest(text: str, path: Path) -> str:
    """Hash of a spec's text and of the source of every module it imports by name from gencl,
    or from its own folder (a user's helper beside the spec): a kernel, an index function or a
    constant kept in such a module is part of what the spec measures, so changing it re-runs
    what resuming would otherwise keep. Direct imports only; modules are named, not located, so
    two checkouts of the same code agree."""
    digest = hashlib.sha256(text.encode())
    for name, file in imported_sources(ast.parse(text), path):
        digest.update(f"\0{name}\0".encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def imported_sources(tree: ast.Module, path: Path) -> list[tuple[str, Path]]:
    """(module name, source file) of the modules *tree* imports by absolute name, anywhere in
    it (a function's own imports too), that live in the gencl package or beside *path*."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # ``from package import submodule`` imports a module too
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    package = Path(__file__).resolve().parents[1]
    found = []
    for name in sorted(names):
        try:
            found_spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):  # a name in a module, not a submodule; a bad name
            continue
        origin = getattr(found_spec, "origin", None)
        if not origin or not origin.endswith(".py"):
            continue
        file = Path(origin).resolve()
        if file.is_relative_to(package) or file.parent == path.resolve().parent:
            found.append((name, file))
    return found


_CACHE: dict[tuple[str, int, int], BenchmarkSpec] = {}


def load_spec(name_or_path: str, *, check_program: bool = True) -> BenchmarkSpec:
    """Load and validate a spec by name or path.

    Besides its fields, the spec's functions are called once on a probe point (gencl.spec._probe)
    unless *check_program* is false (worker processes of a spec loaded already); a probe that
    passed is cached on disk, keyed by the spec's text and the program it builds.

    Raises:
        SpecError: one line naming the file and the field.
    """
    path = find_spec_file(name_or_path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    cached = _CACHE.get(key)
    if cached is not None and (cached.size_names or not check_program):
        return cached
    with _time_limit():
        try:
            module, text_hash = _import(path)
            spec = getattr(module, "SPEC", None)
            if spec is None:
                raise SpecError(str(path), "SPEC", "the module defines no SPEC")
            if not isinstance(spec, BenchmarkSpec):
                raise SpecError(str(path), "SPEC",
                                f"is a {type(spec).__name__}, not a BenchmarkSpec")
            spec = _with_origin(spec, str(path), text_hash)
            if not spec.knobs:  # a kernel that binds no knobs gets the space its program implies
                from gencl.generate import with_derived_space

                spec = with_derived_space(spec)
            validate_spec(spec, check_program=False)
            spec = _probed(spec, text_hash, check_program=check_program)
        except SpecTimeLimit as exc:
            raise SpecError(str(path), _line_of(exc, path),
                            f"loading the spec took longer than {exc.args[0]:g} s "
                            "(GENCL_SPEC_TIMEOUT_S)") from None
    _CACHE[key] = spec
    return spec


def _with_origin(spec: BenchmarkSpec, path: str, source_hash: str) -> BenchmarkSpec:
    import dataclasses
    return dataclasses.replace(spec, path=path, source_hash=source_hash)


def _probed(spec: BenchmarkSpec, text_hash: str, *, check_program: bool) -> BenchmarkSpec:
    """The spec with its identity (text + the program it builds at the probe point) and, when
    checked, its probe's size names; the probe runs once per identity (disk cache)."""
    import dataclasses

    from gencl.generate._variant import program_hash
    from gencl.spec._probe import load_probe, probe_key, probe_point, probe_spec, store_probe

    try:  # through the variant ids' memo: the probe point's id costs no second build
        digest = program_hash(spec, probe_point(spec), strict=True)
    except SpecError:
        raise
    except SpecTimeLimit as exc:
        raise SpecError(spec.path, "program", f"did not return within {exc.args[0]:g} s "
                        "(GENCL_SPEC_TIMEOUT_S)") from None
    except (Exception, SystemExit, KeyboardInterrupt) as exc:  # noqa: BLE001 -- a broken
        # program is bad input, said in one line
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise SpecError(spec.path, "program", f"raised {type(exc).__name__}: {first}"[:300]) \
            from None
    key = probe_key(text_hash, digest)
    probe = load_probe(spec.name, key)
    if probe is None and check_program:
        probe = probe_spec(spec, spec.path)
        store_probe(spec.name, key, probe)
    identity = hashlib.sha256(f"{text_hash}:{digest}".encode()).hexdigest()
    return dataclasses.replace(spec, source_hash=identity,
                               size_names=probe.size_names if probe else ())


def validate_spec(spec: BenchmarkSpec, *, check_program: bool = True) -> None:
    """Check every field; with *check_program*, call the spec's functions on its probe point
    (sizes, inputs, reference, the program typed by loopy). Raise SpecError on the first problem."""
    from gencl.generate.knobs import TRANSFORMS

    file = spec.path or spec.name

    def fail(field: str, message: str) -> None:
        raise SpecError(file, field, message)

    if not isinstance(spec.name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", spec.name):
        fail("name", f"{spec.name!r} is not a lowercase identifier")
    for field_name in ("program", "inputs", "reference", "sizes"):
        if not callable(getattr(spec, field_name)):
            fail(field_name, "must be a function")
    for field_name in ("verify_sizes", "runner", "ptx_rules"):
        value = getattr(spec, field_name)
        if value is not None and not callable(value):
            fail(field_name, "must be a function or None")
    for field_name in ("params", "knobs", "metrics", "tolerance", "extra"):
        if not isinstance(getattr(spec, field_name), Mapping):
            fail(field_name, f"must be a dict, not a {type(getattr(spec, field_name)).__name__}")
    for field_name in ("sweep", "quick_sweep", "constraints"):
        if isinstance(getattr(spec, field_name), str | bytes) or \
                not isinstance(getattr(spec, field_name), Sequence):
            fail(field_name, "must be a list")
    for name, values in spec.params.items():
        if not isinstance(values, tuple | list) or not values:
            fail(f"params.{name}", "must be a non-empty tuple of values")
    for name, knob in spec.knobs.items():
        if not isinstance(knob, Knob):
            fail(f"knobs.{name}", f"is a {type(knob).__name__}, not a Knob")
        if name in spec.params:
            fail(f"knobs.{name}", "is also a program parameter")
        if knob.transform not in TRANSFORMS:
            fail(f"knobs.{name}.transform",
                 f"unknown knob {knob.transform!r} (known: {', '.join(sorted(TRANSFORMS))})")
        if not isinstance(knob.values, tuple | list) or not knob.values:
            fail(f"knobs.{name}.values", "must be a non-empty tuple of values")
        if not isinstance(knob.options, Mapping):
            fail(f"knobs.{name}.options", "must be a dict")
        for value in knob.values:
            problem = TRANSFORMS[knob.transform].check(value)
            if problem:
                fail(f"knobs.{name}.values", f"{value!r}: {problem}")
    axes = spec.axes
    for sweep_name in ("sweep", "quick_sweep"):
        for i, point in enumerate(getattr(spec, sweep_name)):
            if not isinstance(point, Mapping):
                fail(f"{sweep_name}[{i}]", "must be a dict of axis -> value")
            for name, value in point.items():
                if name not in axes:
                    fail(f"{sweep_name}[{i}].{name}",
                         f"unknown knob or parameter (known: {', '.join(axes)})")
                if value not in axes[name]:
                    fail(f"{sweep_name}[{i}].{name}",
                         f"value {value!r} is outside the space {axes[name]}")
    for name, metric in spec.metrics.items():
        if not callable(metric):
            fail(f"metrics.{name}", "must be a function of (point, sizes)")
    for i, constraint in enumerate(spec.constraints):
        if not callable(constraint):
            fail(f"constraints[{i}]", "must be a function of (point, device)")
    for dtype, tol in spec.tolerance.items():
        if isinstance(tol, bool) or not isinstance(tol, int | float) or not tol >= 0:
            fail(f"tolerance.{dtype}", f"{tol!r} is not a non-negative number")
    if check_program:
        from gencl.spec._probe import probe_spec

        probe_spec(spec, file)


def check_knob(spec: BenchmarkSpec, name: str, value: Any) -> Any:
    """*value* of knob *name* as the space holds it; SpecError where either is not in it."""
    axes = spec.axes
    if name not in axes:
        raise SpecError(spec.path, f"knob {name}",
                        f"unknown knob or parameter (known: {', '.join(axes)})")
    from gencl.spec._hooks import axis_value

    value = axis_value(axes[name], value)
    if value not in axes[name]:
        raise SpecError(spec.path, f"knob {name}",
                        f"value {value!r} is outside the space {axes[name]}")
    return value


def check_point(spec: BenchmarkSpec, point: dict) -> dict:
    """Validate a user-given (partial) point against the space and complete it."""
    point = {name: check_knob(spec, name, value) for name, value in point.items()}
    full = spec.complete(point)
    reason = spec.excluded(full)
    if reason:
        raise SpecError(spec.path, "knobs", f"point excluded: {reason}")
    return full
