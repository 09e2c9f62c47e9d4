"""Lower a point of a spec's space to a Variant: program → knobs in order → OpenCL source."""

from __future__ import annotations

import functools
import os
import time
import traceback
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gencl._json import dumps_json
from gencl.errors import KnobError
from gencl.generate._cache import load_cached, store_cached
from gencl.generate._variant import ArgInfo, Variant, variant_id
from gencl.spec import BenchmarkSpec, load_spec


@dataclass(frozen=True)
class GenerationFailure:
    """A point that could not be lowered (a knob does not apply): excluded from the space."""

    spec: str
    point: dict[str, Any]
    reason: str
    id: str = ""


def transform_program(spec: BenchmarkSpec, point: dict[str, Any]):
    """The loopy program of *point*: the abstract program with every knob applied in order."""
    t = spec.program(point)
    for name, knob in spec.knobs.items():
        t = _transform(knob.transform).apply(t, point[name], point=point, **knob.options)
    return t


def _transform(name: str):
    from gencl.generate.knobs import TRANSFORMS
    return TRANSFORMS[name]


def _arg_info(arg: Any) -> ArgInfo:
    import loopy as lp

    if isinstance(arg, lp.ImageArg):
        # an image of vector texels (pyopencl.cltypes.float4, int2, …): its channels are the
        # last axis, the texel's element type the dtype (what the engine needs for the format)
        texel = np.dtype(arg.dtype.numpy_dtype)
        channels = len(texel.names) if texel.names else 1
        element = texel[0] if texel.names else texel
        return ArgInfo(arg.name, "image", element.name,
                       (*(str(s) for s in arg.shape), str(channels)))
    dtype = np.dtype(arg.dtype.numpy_dtype).name
    if isinstance(arg, lp.ValueArg):
        return ArgInfo(arg.name, "scalar", dtype)
    kind = "local" if arg.address_space == lp.AddressSpace.LOCAL else "global"
    return ArgInfo(arg.name, kind, dtype, tuple(str(s) for s in arg.shape),
                   bool(arg.is_input), bool(arg.is_output))


def _device_arg_names(t: Any) -> set[str] | None:
    """Arguments the device kernel of linearized *t* takes: loopy drops arguments a subkernel
    does not use (an unused coefficient, say), so the launch must bind only these. None when there
    is not exactly one subkernel."""
    from loopy.kernel.tools import get_subkernels
    from loopy.schedule.tools import get_subkernel_arg_info

    knl = t.default_entrypoint
    subkernels = get_subkernels(knl)
    if len(subkernels) != 1:
        return None
    return set(get_subkernel_arg_info(knl, subkernels[0]).passed_arg_names)


def squares_as_products(t: Any) -> Any:
    """*t* with every ``x**2`` written ``x * x``, as loopy's code generator writes a square
    anyway, before it generates code: its vectorizability check (loopy 2025.2) has no rule for
    a power and raises a bare NotImplementedError under a ``vec`` iname (a user's gradient
    magnitude, ``sqrt(dx**2 + dy**2 + dz**2)``, at any vector width). Only the code generator
    and that check see this form; the model counts the program as the knobs left it, each
    square one multiplication (``gencl.model._stats._folded_powers``), where the product would
    count the squared operand's loads and arithmetic twice."""
    knl = t.default_entrypoint
    return t.with_kernel(knl.copy(instructions=[
        insn.with_transformed_expressions(square_products) for insn in knl.instructions]))


def square_products(expr: Any, *args: Any) -> Any:
    """*expr* with every ``x**2`` written ``x * x`` (``squares_as_products``)."""
    return _squares_mapper()(expr, *args)


@functools.cache
def _squares_mapper() -> Any:
    from loopy.symbolic import IdentityMapper
    from pymbolic.primitives import Product, is_constant

    class Squares(IdentityMapper):
        def map_power(self, e: Any, *args: Any) -> Any:
            base = self.rec(e.base, *args)
            if is_constant(e.exponent) and e.exponent == 2:
                return Product((base, base))
            return type(e)(base, self.rec(e.exponent, *args))

    return Squares()


def lower(spec: BenchmarkSpec, point: dict[str, Any]) -> Variant:
    """Generate the OpenCL variant of *point* (no cache)."""
    import loopy as lp

    start = time.perf_counter()
    t = lp.linearize(lp.preprocess_kernel(squares_as_products(transform_program(spec, point))))
    code = lp.generate_code_v2(t)
    knl = t.default_entrypoint
    passed = _device_arg_names(t)
    gsize, lsize = knl.get_grid_size_upper_bounds_as_exprs(t.callables_table)
    lsize = tuple(lsize) or (1,)
    gsize = tuple(gsize) or (1,)
    ndim = max(len(gsize), len(lsize))
    gsize = gsize + (1,) * (ndim - len(gsize))
    lsize = lsize + (1,) * (ndim - len(lsize))
    return Variant(
        id=variant_id(spec, point),
        spec=spec.name,
        point=dict(point),
        source=code.device_code(),
        kernel_name=knl.name,
        args=tuple(_arg_info(a) for a in knl.args if passed is None or a.name in passed),
        global_size=tuple(str(g * size) for g, size in zip(gsize, lsize)),
        local_size=tuple(str(size) for size in lsize),
        assumptions=str(knl.assumptions),
        codegen_s=time.perf_counter() - start,
    )


def generate(spec: BenchmarkSpec, point: dict[str, Any]) -> Variant:
    """The variant of *point*, from the disk cache or generated and stored.

    Raises:
        KnobError: a knob does not apply to this point (it is not in the space).
    """
    vid = variant_id(spec, point)
    cached = load_cached(vid)
    if cached is not None:
        return cached
    try:
        variant = lower(spec, point)
    except KnobError:
        raise
    except Exception as exc:  # noqa: BLE001 -- loopy refuses some knob combinations
        raise KnobError(_failure_text(exc)) from exc
    store_cached(variant)
    return variant


def _failure_text(exc: Exception) -> str:
    """One line for a point loopy could not lower: the exception and its message, or, where it
    has none (a bare ``NotImplementedError`` of a pymbolic mapper), the function that raised it."""
    text = str(exc).strip()
    if text:
        return f"{type(exc).__name__}: {text.splitlines()[0][:200]}"
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return type(exc).__name__
    last = frames[-1]
    where = "/".join(Path(last.filename).parts[-2:])
    return f"{type(exc).__name__} raised by {last.name} ({where}:{last.lineno})"


def _generate_one(spec: BenchmarkSpec, point: dict[str, Any]) -> Variant | GenerationFailure:
    try:
        return generate(spec, point)
    except KnobError as exc:
        return GenerationFailure(spec.name, point, str(exc),
                                 variant_id(spec, point))


def _generate_in_worker(args: tuple[str, dict[str, Any]]) -> Variant | GenerationFailure:
    path, point = args
    return _generate_one(load_spec(path, check_program=False), point)


def generate_many(spec: BenchmarkSpec, points: Iterable[dict[str, Any]], *,
                  workers: int | None = None) -> list[Variant | GenerationFailure]:
    """Generate many variants, cached ones first, the rest in parallel processes.

    Order follows *points*. ``workers=1`` (or ``GENCL_WORKERS=1``) generates in-process, and so
    does a spec built in memory (no file a worker process could load it from).
    """
    points = list(points)
    results: list[Variant | GenerationFailure | None] = [
        load_cached(variant_id(spec, p)) for p in points]
    todo = [i for i, r in enumerate(results) if r is None]
    workers = workers or int(os.environ.get("GENCL_WORKERS", 0)) or os.cpu_count() or 1
    workers = min(workers, len(todo)) if spec.path else 1
    if workers <= 1:
        for i in todo:
            results[i] = _generate_one(spec, points[i])
    elif todo:
        import multiprocessing

        ctx = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            for i, result in zip(todo, pool.map(_generate_in_worker,
                                                [(spec.path, points[i]) for i in todo])):
                results[i] = result
    return results  # type: ignore[return-value]


def write_variants(variants: Sequence[Variant | GenerationFailure], out_dir: str) -> str:
    """Write each variant's ``.cl`` file and a ``manifest.json``; return the manifest path."""
    from pathlib import Path

    from gencl._version import __version__

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for v in variants:
        if isinstance(v, GenerationFailure):
            entries.append({"id": v.id, "point": v.point, "status": "excluded", "reason": v.reason})
            continue
        (out / f"{v.id}.cl").write_text(v.source)
        meta = v.to_json()
        meta.pop("source")
        entries.append({**meta, "file": f"{v.id}.cl", "source_hash": v.source_hash,
                        "status": "generated"})
    manifest = out / "manifest.json"
    manifest.write_text(dumps_json({"schema_version": "1.0", "gencl_version": __version__,
                                    "variants": entries}, indent=1))
    return str(manifest)
