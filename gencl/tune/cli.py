"""``gencl tune``: thin over ``gencl.api.tune`` and ``gencl.api.simulate``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gencl._commands import (
    command, knob_item, parse_knobs, parse_sizes, positive_int, seed_int, size_item)


def _cfg_tune(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="tuning kernel (tuning/) or spec name or path")
    p.add_argument("--device", help="device index or name substring")
    p.add_argument("--size", action="append", type=size_item, metavar="NAME=INT",
                   help="override a problem size")
    p.add_argument("--quick", action="store_true", help="small sizes")
    p.add_argument("--knob", action="append", type=knob_item, metavar="NAME=VALUE",
                   help="fix an axis")
    p.add_argument("--trials", type=positive_int, default=40,
                   help="complete trials the study holds when done, counted over every run "
                        "and worker (40)")
    p.add_argument("--sampler", default="guided", help="guided | tpe | random | grid (guided)")
    p.add_argument("--seed", type=seed_int, help="sampler seed")
    p.add_argument("--storage", help="Optuna storage URL, or journal:PATH (default: SQLite file "
                   "next to the results)")
    p.add_argument("--study", help="study name (default <spec>-<sampler>)")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="worker processes on one study")
    p.add_argument("--replay", metavar="CACHE", help="answer from a measured space, no device")
    p.add_argument("--simulate", action="store_true",
                   help="compare strategies over --cache (20 seeds) and score the model there; "
                   "writes bench_results/<slug>/<spec>/tuning/summary.json")
    p.add_argument("--cache", help="measured space for --simulate")
    p.add_argument("--repeat", metavar="CACHE",
                   help="with --simulate: a second measurement of --cache's space on the same "
                   "device; the summary's measurement_repeat scores it against the cache as the "
                   "model is scored")
    p.add_argument("--residual", metavar="TABLE",
                   help="with --simulate: a residual table (gencl residual); the summary's "
                   "model_residual scores the model corrected by what it missed on the table's "
                   "other kernels (default: the committed table of the cache's device; none: "
                   "no table)")
    p.add_argument("--seeds", type=positive_int, default=20,
                   help="seeds per strategy in --simulate")
    p.add_argument("--max-evals", type=positive_int, help="evaluation budget per simulated search")
    p.add_argument("--strategies", help="comma-separated strategies for --simulate, e.g. "
                   "tpe,random,kt_bayes_opt (kt_<name>: a Kernel Tuner strategy; default: guided,"
                   "tpe,random and the --kt-strategies)")
    p.add_argument("--no-kernel-tuner", action="store_true", help="skip Kernel Tuner strategies")
    p.add_argument("--kt-strategies", help="comma-separated Kernel Tuner strategies (default: "
                   "random_sample,genetic_algorithm,bayes_opt,simulated_annealing,dual_annealing)")
    p.add_argument("--profile",
                   help="profile.json for the model (default: the device's committed profile)")
    p.add_argument("--out", help="output folder (default bench_results/<slug>/tuning; with --quick "
                   "out/<slug>/tuning)")
    p.add_argument("--json", action="store_true", help="print the result (best.json, or "
                   "--simulate's summary) as JSON")


@command("tune", _cfg_tune)
def cmd_tune(args: argparse.Namespace) -> int:
    """Autotune a kernel with Optuna (model-guided), or simulate search strategies on a cache."""
    import os

    from gencl import api
    from gencl.errors import GenclError
    from gencl.tune import SAMPLERS
    from gencl.tune._progress import TrialProgress

    if args.sampler not in SAMPLERS:
        raise GenclError(f"--sampler {args.sampler}: expected one of {', '.join(SAMPLERS)}")
    if args.simulate:
        return _simulate(args)
    if args.repeat:
        raise GenclError("--repeat: scores a second run of --cache's space; give --simulate")
    run = api.tune(args.spec, device=args.device, trials=args.trials, sampler=args.sampler,
                   fixed=parse_knobs(args.knob), sizes=parse_sizes(args.size), quick=args.quick,
                   seed=args.seed, storage=args.storage, study=args.study, workers=args.workers,
                   replay=args.replay, profile=args.profile, out=args.out,
                   callbacks=[TrialProgress(args.trials)], predict_progress=_PredictProgress(),
                   warn=lambda line: print(f"gencl: warning: {line}", file=sys.stderr))
    if os.environ.get("GENCL_TUNE_WORKER"):  # a worker of several: the parent reports
        return 0
    if run.point is None:
        from gencl.measure import explain_failure

        records = [{"status": t.user_attrs.get("status", t.state.name.lower()),
                    "reason": t.user_attrs.get("reason", "")} for t in run.study.trials]
        print(f"gencl: error: study {run.study.study_name}: no trial measured a variant; "
              f"{explain_failure(records, run.device)}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({**run.best, "out": str(run.out), "storage": run.storage}, indent=1,
                         default=str))
        return 0
    steps = run.best.get("steps", 1)
    per = f" per sweep ({steps} sweeps per launch)" if steps > 1 else ""
    print(f"best of {len(run.study.trials)} trials: {run.point} {run.time_s * 1e6:.1f} µs{per} "
          f"(trial {run.best['trial']}); {run.out / 'best.json'}, {run.out / 'best.cl'}, "
          f"{run.out / 't4_results.json'}; storage {run.storage}")
    return 0


class _PredictProgress:
    """The guided sampler's first batch (the cold start before trial 1), said and shown; the
    later batches between trials stay quiet."""

    def __init__(self) -> None:
        self.batches = 0

    def __call__(self, spec_name: str, total: int) -> Any:
        from gencl.report_console import ProgressLine

        self.batches += 1
        if self.batches > 1:
            return None
        print(f"model: predicting {total} variants of {spec_name} before trial 1, covering every "
              "knob value (loopy's operation and memory counts × the device profile); a few more "
              "before each later trial, the fastest predicted first", file=sys.stderr, flush=True)
        return ProgressLine("model: variants predicted", total)


def _simulate(args: argparse.Namespace) -> int:
    from gencl import api
    from gencl.errors import GenclError

    if not (args.cache or args.replay):
        raise GenclError("--simulate needs --cache bench_results/<slug>/<spec>/space.json")
    strategies, kt = _strategies(args)
    summary = api.simulate(
        args.spec, args.cache or args.replay, seeds=args.seeds, max_evals=args.max_evals,
        strategies=strategies, kt_strategies=kt, profile=args.profile, out=args.out,
        fixed=parse_knobs(args.knob), repeat=args.repeat, residual=args.residual,
        progress=lambda name, seed: print(f"\r{name} seed {seed + 1}/{args.seeds}   ", end="",
                                          flush=True, file=sys.stderr))
    print(file=sys.stderr)
    sources = summary.get("profile_sources") or {}
    if sources and "measured" not in sources.values():
        # every figure below is priced by nominal numbers: easy to miss in the file alone
        why = summary.get("profile_note") or ("no profile of the cache's device was found "
                                              "(under $GENCL_RESULTS or the checkout's "
                                              "bench_results/; --profile names one)")
        print(f"gencl: warning: {why}: the model priced this replay with nominal numbers only",
              file=sys.stderr)
    if args.json:
        print(json.dumps(summary, indent=1, default=str))
        return 0
    for name, med in summary["evals_to_target"].items():
        print(f"{name:>26}: median {med:g} evaluations to within 3 % "
              f"(reached in {summary['reached_share'][name]:.0%} of seeds)")
    if summary.get("strategies_skipped"):
        print(f"strategies not run: {summary['strategies_skipped']}")
    rho, gap = summary["model_spearman"], summary.get("model_predicted_best_gap")
    print(f"model ({summary.get('model_role')}, uncalibrated): Spearman ρ "
          f"{rho if rho is None else f'{rho:.3f}'}, within ±15 % "
          f"{summary['model_within_15pct'] or 0:.1%}, predicted best "
          f"{'?' if gap is None else f'{gap:+.1%}'} from the measured best")
    learned = summary.get("model_residual")
    if learned:
        print(f"  with the residual learned on {len(learned['trained_on'])} other kernels "
              f"of this device ({learned['table']}): ρ {learned['spearman']:.3f}, within ±15 % "
              f"{learned['within_15pct']:.1%}, predicted best "
              f"{learned['predicted_best_gap']:+.1%}")
    ties = summary.get("model_predicted_best_ties")
    if ties and ties["variants"] > 1:
        print(f"  a tie: {ties['variants']} variants priced within {ties['within']:.0%} of the "
              f"fastest prediction (the pick: the one whose terms sum lowest), measured "
              f"{ties['gap_min']:+.1%} to {ties['gap_max']:+.1%} from the best "
              f"(median {ties['gap_median']:+.1%})")
    off = [(abs(f["median_ratio"] - 1), axis, value, f)
           for axis, values in (summary.get("model_by_value") or {}).items()
           for value, f in values.items() if abs(f["median_ratio"] - 1) > 0.15]
    if off:
        print("model misses most (median predicted/measured, share within ±15 %): " + "; ".join(
            f"{axis}={value} {f['median_ratio']:.2f}, {f['within_15pct']:.0%} of {f['n']}"
            for _, axis, value, f in sorted(off, key=lambda x: x[0], reverse=True)[:3]))
    rep = summary.get("measurement_repeat")
    if rep:
        print(f"the second run ({rep['file']}) against the first: Spearman ρ "
              f"{rep['spearman']:.3f}, within ±15 % {rep['within_15pct']:.1%} of {rep['n']}")
    cal = summary.get("model_calibrated")
    if cal:
        print(f"model corrected by {cal['known_variants']} measured variants: Spearman ρ "
              f"{cal['spearman']:.3f}, within ±15 % {cal['within_15pct']:.1%} on the others")
    plot = "" if summary.get("strategies_skipped") else f", {summary['out']}/convergence.png"
    print(f"written {summary['out']}/summary.json{plot}")
    return 0


def _strategies(args: argparse.Namespace) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(Optuna samplers, Kernel Tuner strategies) that --simulate runs, names checked."""
    from gencl.errors import GenclError
    from gencl.tune import KT_STRATEGIES, SAMPLERS, SIMULATED_SAMPLERS
    from gencl.tune._kerneltuner import kt_strategy_names

    if args.strategies and (args.kt_strategies or args.no_kernel_tuner):
        raise GenclError("--strategies names the Kernel Tuner strategies too (kt_<name>); "
                         "drop --kt-strategies/--no-kernel-tuner")
    if args.strategies:
        names = [n.strip() for n in args.strategies.split(",") if n.strip()]
        ours = tuple(n for n in names if not n.startswith("kt_"))
        kt = tuple(n[3:] for n in names if n.startswith("kt_"))
    else:
        ours = SIMULATED_SAMPLERS
        kt = () if args.no_kernel_tuner else (
            tuple(n.strip() for n in args.kt_strategies.split(",")) if args.kt_strategies
            else KT_STRATEGIES)
    bad = [n for n in ours if n not in SAMPLERS]
    if bad:
        raise GenclError(f"--strategies {bad[0]}: expected one of {', '.join(SAMPLERS)} or "
                         "kt_<Kernel Tuner strategy>")
    known = kt_strategy_names()
    bad = [n for n in kt if n not in known]
    if bad:
        raise GenclError(f"Kernel Tuner strategy {bad[0]}: expected one of {', '.join(known)}")
    return ours, kt
