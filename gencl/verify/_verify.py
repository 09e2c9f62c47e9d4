"""``gencl verify``: numerics on the device, then oclgrind and PTX checks, into one report."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gencl.generate import GenerationFailure, generate_many
from gencl.measure import OpenCLEngine
from gencl.spec import BenchmarkSpec, check_knob
from gencl.verify import ptx as ptx_rules
from gencl.verify._numerics import run_numerics, small_sizes
from gencl.verify._result import VariantCheck, VerifyReport
from gencl.verify._sample import choose_points


def verify(specs: Sequence[BenchmarkSpec], *, device: str | int | None = None,
           oclgrind: bool = False, ptx: bool = False, sample: int | None = None,
           exhaustive: bool = False, artifacts: str | Path | None = None,
           oclgrind_timeout_s: float = 120.0, fixed: Mapping[str, Any] | None = None,
           on_check: Callable[[VariantCheck], None] | None = None) -> VerifyReport:
    """Check variants of *specs*: numerics always, oclgrind and PTX when asked.

    Args:
        specs: loaded specs (``gencl.spec.load_spec``).
        device: where numerics (and PTX) run; oclgrind always runs on the simulator.
        sample: cap on points per spec (pairwise covering sample; the whole space if smaller).
        exhaustive: every point of every space, however large.
        fixed: knob values every checked point has (``--knob``), for every spec.
        artifacts: folder for PTX files and build logs (``<variant>.ptx``, ``<variant>.log``).
        on_check: called with each variant's checks once they are complete (progress output).
    """
    for spec in specs:  # a knob a spec lacks stops the run before any device work
        for name, value in (fixed or {}).items():
            check_knob(spec, name, value)
    engine = OpenCLEngine(device)  # on NVIDIA its builds print ptxas's summary
    want_ptx = ptx and engine.info.is_nvidia
    report = VerifyReport(engine.info.to_json(), [s.name for s in specs], oclgrind, want_ptx)
    if ptx and not want_ptx:
        report.notes.append(f"PTX step skipped: {engine.info.name} ({engine.info.platform}) is "
                            "not an NVIDIA device, its program binary is not PTX")
    for spec in specs:
        points, how = choose_points(spec, engine.info, sample=sample, exhaustive=exhaustive,
                                    fixed=fixed)
        report.selection[spec.name] = how
        checks = _check_spec(engine, spec, points, oclgrind=oclgrind, ptx=want_ptx,
                             artifacts=Path(artifacts) if artifacts else None,
                             oclgrind_timeout_s=oclgrind_timeout_s, notes=report.notes)
        for check in checks:
            report.checks.append(check)
            if on_check:
                on_check(check)
    return report


def _check_spec(engine: OpenCLEngine, spec: BenchmarkSpec, points: list[dict[str, Any]], *,
                oclgrind: bool, ptx: bool, artifacts: Path | None,
                oclgrind_timeout_s: float, notes: list[str]) -> list[VariantCheck]:
    variants = generate_many(spec, points)
    checks: list[VariantCheck] = []
    runnable = []
    for point, variant in zip(points, variants):
        if isinstance(variant, GenerationFailure):
            checks.append(VariantCheck(spec.name, variant.id, point,
                                       skipped=f"excluded: {variant.reason}"))
            continue
        sizes = small_sizes(spec, point, engine.info)
        outcome = run_numerics(engine, spec, variant, sizes)
        check = VariantCheck(spec.name, variant.id, point, sizes, True, outcome.built,
                             outcome.ran, outcome.matched, outcome.max_error,
                             [outcome.failure] if outcome.failure else [], outcome.skipped)
        if ptx and outcome.built_program is not None:
            check.ptx = _check_ptx(engine, spec, outcome.built_program, artifacts)
            check.failures += [f"ptx: {p}" for p in check.ptx["problems"]]
        checks.append(check)
        if check.skipped is None:
            runnable.append((check, variant))
    if oclgrind and runnable:
        from gencl.verify._oclgrind import judge, run_under_oclgrind

        results = run_under_oclgrind(spec.path or spec, [v for _, v in runnable],
                                     timeout_s=oclgrind_timeout_s, exempt=spec.exempt)
        for check, variant in runnable:
            r = results[variant.id]
            failures, exempted = judge(r["findings"], spec.exempt)
            if r["failure"]:
                failures.insert(0, f"oclgrind: {r['failure']}")
            check.oclgrind = {"sizes": r["sizes"], "ran": r["ran"], "matched": r["matched"],
                              "max_error": r["max_error"], "skipped": r["skipped"],
                              "findings": r["findings"], "exempted": exempted}
            check.failures += failures
            if r["skipped"]:
                notes.append(f"{variant.id}: {r['skipped']}")
    return checks


def _check_ptx(engine: OpenCLEngine, spec: BenchmarkSpec, built: Any,
               artifacts: Path | None) -> dict[str, Any]:
    """Apply the PTX rules of *built*'s point; save its PTX and verbose build log."""
    text = built.binary.decode("utf-8", "replace") if built.binary else ""
    log = built.build_log
    if not log:
        # a binary reloaded from a cache older than its kept log prints no ptxas summary
        log = _fresh_build_log(engine, built) or log
    result: dict[str, Any] = {"problems": [], "ptx_file": None, "log_file": None}
    if not ptx_rules.is_ptx(text):
        result["problems"].append("program binary is not PTX text")
        return result
    rules = ptx_rules.rules_for(spec, built.variant.point)
    result["rules"] = rules
    result["problems"] = (ptx_rules.check_ptx(text, rules) + ptx_rules.check_build_log(
        log, spills_allowed="spills" in spec.exempt))
    if artifacts is not None:
        artifacts.mkdir(parents=True, exist_ok=True)
        vid = built.variant.id
        (artifacts / f"{vid}.ptx").write_text(text)
        (artifacts / f"{vid}.log").write_text(log)
        result["ptx_file"], result["log_file"] = (str(artifacts / f"{vid}.ptx"),
                                                  str(artifacts / f"{vid}.log"))
    return result


def _fresh_build_log(engine: OpenCLEngine, built: Any) -> str:
    import pyopencl as cl

    try:
        program = cl.Program(engine.ctx, built.variant.source).build(
            options=engine.build_options, devices=[engine.cl_device])
        return (program.get_build_info(engine.cl_device, cl.program_build_info.LOG) or "").strip()
    except cl.Error:
        return ""
