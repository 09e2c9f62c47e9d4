"""Call a spec's functions once, on one probe point, before anything trusts them.

A spec's ``sizes``, ``inputs``, ``reference`` and ``program`` are the user's code. A bug in one of
them must be a load error naming the file and the field, not a traceback in the middle of a run,
a point "outside the space", or a kernel blamed with ``wrong_answer``. The probe runs them at the
spec's quick (or verify) sizes on a made-up CPU-like device, checks what they return against the
loopy program (argument names, dtypes, shapes), and records the size names. The outcome is cached
on disk under a key of everything that decides it, so a spec is probed once, not per command.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gencl.errors import SpecError

#: Skip the inputs/reference probe when the probe sizes ask for more host memory than this.
PROBE_MAX_BYTES = 256 << 20


def probe_device() -> Any:
    """A CPU-like device for the probe: sizes() and constraints may read any of its fields."""
    from gencl.device import DeviceInfo

    return DeviceInfo(
        index=0, name="probe", platform="gencl probe", vendor="gencl", driver="0",
        opencl_version="OpenCL 1.2", device_type="CPU", compute_units=4, max_clock_hz=2e9,
        local_mem_bytes=64 << 10, max_work_group_size=1024, global_mem_bytes=8 << 30,
        global_cache_bytes=1 << 20, global_cacheline_bytes=64, constant_mem_bytes=64 << 10,
        max_alloc_bytes=2 << 30, timer_resolution_s=1e-9, warp_size=None,
        compute_capability=None, registers_per_block=None, fp64=True,
        extensions=("cl_khr_fp64",))


@dataclass(frozen=True)
class Probe:
    """What the probe learned: the point it used and the names sizes() returns."""

    point: dict[str, Any]
    size_names: tuple[str, ...]


class SpecTimeLimit(BaseException):
    """Raised (by SIGALRM, see gencl.spec._load) when loading a spec runs past its time limit.
    A BaseException, so a spec's own ``except Exception`` cannot swallow it."""


class _Check:
    """Raises SpecError(file, field, message) for one spec."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, field: str, message: str) -> None:
        raise SpecError(self.file, field, message[:400])

    def call(self, field: str, function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except SpecError:
            raise
        except SpecTimeLimit as exc:
            self.fail(field, f"did not return within {exc.args[0]:g} s (GENCL_SPEC_TIMEOUT_S)")
        except (Exception, SystemExit, KeyboardInterrupt) as exc:  # noqa: BLE001 -- any error
            # in the user's function is a spec bug
            self.fail(field, f"raised {_describe(exc)}")


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def probe_point(spec: Any) -> dict[str, Any]:
    """The first quick-sweep (else sweep) point the constraints keep, completed."""
    candidates = [spec.complete(p) for p in (spec.quick_sweep or spec.sweep or [{}])]
    for point in candidates:
        try:
            if spec.excluded(point, None) is None:
                return point
        except Exception:  # noqa: BLE001 -- constraints are checked per point at run time
            continue
    return candidates[0]


def check_sizes(check: _Check, field: str, sizes: Any) -> dict[str, int]:
    if not isinstance(sizes, Mapping):
        check.fail(field, f"returned a {type(sizes).__name__}, not a dict of name -> size")
    if not sizes:
        check.fail(field, "returned no sizes")
    for name, value in sizes.items():
        if not isinstance(name, str) or not name.isidentifier():
            check.fail(field, f"size name {name!r} is not an identifier")
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            check.fail(f"{field}.{name}", f"{value!r} is a {type(value).__name__}, not an int")
        if value < 0:  # 0 is a size (an offset, an empty prologue); a negative one is a bug
            check.fail(f"{field}.{name}", f"{value} is negative")
    return {k: int(v) for k, v in sizes.items()}


def _typed_program(spec: Any, program: Any, point: dict[str, Any], check: _Check) -> Any:
    """The program at *point* with its knobs applied, preprocessed (typed) by loopy.

    Knobs first: some programs leave names to a knob (a trip count it fixes). When no sweep point's
    knobs apply, the untransformed program must type on its own.
    """
    import loopy as lp

    from gencl.generate import transform_program

    transformed = None
    for candidate in [point, *(spec.complete(p) for p in spec.sweep[:4])]:
        try:
            transformed = transform_program(spec, candidate)
            break
        except Exception:  # noqa: BLE001 -- a knob that does not apply excludes a point
            continue
    try:
        return lp.preprocess_kernel(transformed if transformed is not None else program)
    except Exception as exc:  # noqa: BLE001 -- loopy's refusal is the message
        check.fail("program", f"loopy cannot type the program at {point}: {_describe(exc)}")


def _count(arg: Any, env: Mapping[str, Any], check: _Check) -> int:
    from pymbolic import evaluate

    shape = arg.shape if isinstance(arg.shape, tuple) else ()
    try:
        return int(np.prod([int(evaluate(e, env)) for e in shape])) if shape else 1
    except Exception as exc:  # noqa: BLE001 -- an unknown name in a shape expression
        check.fail("sizes", f"shape {tuple(map(str, shape))} of argument {arg.name} cannot be "
                            f"evaluated from sizes() and scalar inputs(): {_describe(exc)}")
    raise AssertionError("unreachable")


def _dtype(arg: Any) -> np.dtype | None:
    dtype = getattr(arg, "dtype", None)
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    return np.dtype(numpy_dtype) if numpy_dtype is not None else None


def _check_array(check: _Check, field: str, name: str, value: Any, arg: Any, count: int) -> None:
    if np.isscalar(value) or not hasattr(value, "shape"):
        check.fail(f"{field}.{name}", f"is a {type(value).__name__}, not a numpy array")
    array = np.asarray(value)
    want = _dtype(arg)
    if want is not None and array.dtype != want:
        check.fail(f"{field}.{name}", f"dtype {array.dtype} but the program's {name} is {want}")
    if array.size != count:
        check.fail(f"{field}.{name}", f"shape {array.shape} ({array.size} elements) but the "
                                      f"program's {name} has {count} at these sizes")


#: words OpenCL C reserves (C99's keywords, its address spaces, access qualifiers and types)
OPENCL_RESERVED = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while bool half uchar ushort uint ulong size_t ptrdiff_t
    intptr_t uintptr_t kernel global local constant private read_only write_only read_write
    uniform pipe complex imaginary quad image1d_t image2d_t image3d_t image1d_array_t
    image2d_array_t image1d_buffer_t sampler_t event_t true false""".split())
_VECTOR_TYPE = re.compile(r"(char|uchar|short|ushort|int|uint|long|ulong|float|double|half)"
                          r"(2|3|4|8|16)")


def opencl_reserved_names(knl: Any) -> list[str]:
    """The kernel's, arguments', temporaries' and loop indices' names OpenCL C reserves, each
    as "kernel name 'restrict'" (a kernel named ``restrict`` fails every build with "expected
    identifier", which reads as the runtime's fault)."""
    names = [("kernel name", knl.name), *(("argument", a.name) for a in knl.args),
             *(("temporary", n) for n in knl.temporary_variables),
             *(("loop index", n) for n in sorted(knl.all_inames()))]
    return [f"{what} {name!r}" for what, name in names
            if name in OPENCL_RESERVED or _VECTOR_TYPE.fullmatch(name)]


def probe_spec(spec: Any, file: str) -> Probe:
    """Call the spec's functions on its probe point; raise SpecError on the first problem."""
    import loopy as lp

    check = _Check(file)
    point = probe_point(spec)
    device = probe_device()
    sizes = check_sizes(check, "sizes", check.call("sizes", spec.sizes, point, device, True))
    vsizes = sizes
    if spec.verify_sizes is not None:
        vsizes = check_sizes(check, "verify_sizes",
                             check.call("verify_sizes", spec.verify_sizes, point, device))
    program = check.call("program", spec.program, dict(point))
    if not isinstance(program, lp.TranslationUnit):
        check.fail("program", f"returned a {type(program).__name__}, not a loopy "
                              "TranslationUnit (lp.make_kernel(...))")
    typed = _typed_program(spec, program, point, check)
    reserved = opencl_reserved_names(typed.default_entrypoint)
    if reserved:
        check.fail("program", f"{reserved[0]} is a reserved word of OpenCL C: no build of it "
                              "compiles (rename it)")
    args = typed.default_entrypoint.args
    read = typed.default_entrypoint.get_read_variables()
    globals_ = [a for a in args if isinstance(a, lp.ArrayArg)
                and a.address_space != lp.AddressSpace.LOCAL]
    scalars = [a for a in args if isinstance(a, lp.ValueArg)]
    sized = dict(vsizes)
    env0: dict[str, int] | None = sized
    if not all(a.name in sized for a in scalars):
        env0 = None  # a shape may need a scalar input: counted once inputs() has run
    if env0 is not None:
        nbytes = sum(_count(a, env0, check) * (_dtype(a) or np.dtype(np.float64)).itemsize
                     for a in globals_)
        if nbytes > PROBE_MAX_BYTES:
            return Probe(point, tuple(sizes))
    values = check.call("inputs", spec.inputs, point, vsizes, np.random.default_rng(0))
    if not isinstance(values, Mapping):
        check.fail("inputs", f"returned a {type(values).__name__}, not a dict of name -> array")
    for name, value in values.items():
        if not np.isscalar(value) and not hasattr(value, "shape"):
            check.fail(f"inputs.{name}", f"is a {type(value).__name__}, not an array or scalar")
    env = {**{k: v for k, v in values.items() if np.isscalar(v)}, **vsizes}
    for arg in scalars:
        if arg.name not in env:
            check.fail("inputs", f"no value for the program's scalar argument {arg.name} "
                                 "(give it in inputs() or sizes())")
        if arg.name in values and not isinstance(values[arg.name], int | float | complex
                                                  | np.number | bool | np.bool_):
            check.fail(f"inputs.{arg.name}", f"{values[arg.name]!r} is not a number")
    for arg in globals_:
        count = _count(arg, env, check)
        if arg.name in values:
            _check_array(check, "inputs", arg.name, values[arg.name], arg, count)
            # data, not an index (a pointer chase's start position 0 is one)
            if arg.name in read and np.asarray(values[arg.name]).dtype.kind in "fc" \
                    and not np.any(values[arg.name]):
                check.fail(f"inputs.{arg.name}", "is all zeros: a variant that skips reading "
                                                 "it would still match the reference; draw it "
                                                 "from rng")
        elif arg.is_input:
            check.fail("inputs", f"no array for the program's input {arg.name} "
                                 f"(inputs() gives {', '.join(map(str, values)) or 'nothing'})")
    outputs = {a.name: a for a in globals_ if a.is_output}
    expected = check.call("reference", spec.reference, values, point, vsizes)
    if not isinstance(expected, Mapping):
        check.fail("reference", f"returned a {type(expected).__name__}, not a dict of "
                                "output name -> array")
    if not expected:
        check.fail("reference", "returned no outputs: nothing would be checked")
    for name, value in expected.items():
        if name not in outputs:
            check.fail(f"reference.{name}", "is not an output of the program (outputs: "
                                             f"{', '.join(outputs) or 'none'})")
        _check_array(check, "reference", name, value, outputs[name],
                     _count(outputs[name], env, check))
    return Probe(point, tuple(sizes))


# {{{ cache of probes that passed

def _gencl_source_hash() -> str:
    """Hash of gencl's own source: a changed validator or helper a spec imports re-probes."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_GENCL_HASH: str | None = None


def probe_key(text_hash: str, program_hash: str) -> str:
    """Cache key of a probe: the spec's text, the program it builds, gencl's and loopy's code."""
    global _GENCL_HASH
    from loopy.version import VERSION_TEXT

    if _GENCL_HASH is None:
        _GENCL_HASH = _gencl_source_hash()
    text = json.dumps([text_hash, program_hash, _GENCL_HASH, VERSION_TEXT])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _probe_path(name: str, key: str) -> Path | None:
    from gencl.generate._cache import cache_dir

    root = cache_dir()
    return root / "specs" / f"{name}-{key}.json" if root else None


def load_probe(name: str, key: str) -> Probe | None:
    path = _probe_path(name, key)
    if path is None or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
        return Probe(dict(data["point"]), tuple(data["size_names"]))
    except (ValueError, TypeError, KeyError):
        return None  # a torn entry: probe again


def store_probe(name: str, key: str, probe: Probe) -> None:
    path = _probe_path(name, key)
    if path is None:
        return
    from gencl._json import dumps_json

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(dumps_json({"point": probe.point, "size_names": list(probe.size_names)}))
    tmp.replace(path)

# }}}
