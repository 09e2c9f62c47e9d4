"""``gencl tune``: a study over a kernel's space on a device, or replayed/simulated from a cache."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gencl.cli import command, parse_knobs, parse_sizes


def _cfg_tune(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="tuning kernel (tuning/) or spec name or path")
    p.add_argument("--device", help="device index or name substring")
    p.add_argument("--size", action="append", metavar="NAME=INT", help="override a problem size")
    p.add_argument("--quick", action="store_true", help="small sizes")
    p.add_argument("--knob", action="append", metavar="NAME=VALUE", help="fix an axis")
    p.add_argument("--trials", type=int, default=40, help="finished trials in the study (40)")
    p.add_argument("--sampler", default="guided", help="guided | tpe | random | grid (guided)")
    p.add_argument("--seed", type=int, help="sampler seed")
    p.add_argument("--storage", help="Optuna storage URL, or journal:PATH (default: SQLite file "
                   "next to the results)")
    p.add_argument("--study", help="study name (default <spec>-<sampler>)")
    p.add_argument("--workers", type=int, default=1, help="worker processes on one study")
    p.add_argument("--replay", metavar="CACHE", help="answer from a measured space, no device")
    p.add_argument("--simulate", action="store_true",
                   help="compare strategies over --cache (20 seeds); writes tuning/summary.json")
    p.add_argument("--cache", help="measured space for --simulate")
    p.add_argument("--seeds", type=int, default=20, help="seeds per strategy in --simulate")
    p.add_argument("--max-evals", type=int, help="evaluation budget per simulated search")
    p.add_argument("--strategies", help="comma-separated strategies for --simulate, e.g. "
                   "tpe,random,kt_bayes_opt (kt_<name>: a Kernel Tuner strategy; default: guided,"
                   "tpe,random and the --kt-strategies)")
    p.add_argument("--no-kernel-tuner", action="store_true", help="skip Kernel Tuner strategies")
    p.add_argument("--kt-strategies", help="comma-separated Kernel Tuner strategies (default: "
                   "random_sample,genetic_algorithm,bayes_opt,simulated_annealing,dual_annealing)")
    p.add_argument("--profile", help="summary.json for the model (default bench_results/<slug>/)")
    p.add_argument("--out", help="output folder (default bench_results/<slug>/tuning; with --quick "
                   "out/<slug>/tuning)")
    p.add_argument("--json", action="store_true", help="print the result (best.json, or "
                   "--simulate's summary) as JSON")


@command("tune", _cfg_tune)
def cmd_tune(args: argparse.Namespace) -> int:
    """Autotune a kernel with Optuna (model-guided), or simulate search strategies on a cache."""
    from gencl.spec import load_spec

    spec = load_spec(args.spec)
    if args.simulate:
        return _simulate(spec, args)
    return _tune(spec, args)


def _simulate(spec, args: argparse.Namespace) -> int:
    from gencl.errors import GenclError
    from gencl.model import load_params
    from gencl.tune import KT_STRATEGIES, ReplayEngine, goal_check, plot_convergence, simulate

    if not (args.cache or args.replay):
        raise GenclError("--simulate needs --cache bench_results/<slug>/<spec>/space.json")
    strategies, kt_strategies = _strategies(args, KT_STRATEGIES)
    replay = ReplayEngine(args.cache or args.replay)
    params = load_params(replay.device, summary_path=args.profile)
    out = Path(args.out or f"bench_results/{replay.device.get('slug', 'unknown')}/tuning")
    out.mkdir(parents=True, exist_ok=True)
    summary, runs = simulate(
        spec, replay, params, seeds=args.seeds, max_evals=args.max_evals,
        strategies=strategies, kt_strategies=kt_strategies,
        progress=lambda name, seed: print(f"\r{name} seed {seed + 1}/{args.seeds}   ", end="",
                                          flush=True, file=sys.stderr))
    print(file=sys.stderr)
    summary["goal"] = goal_check(summary)
    summary["profile_sources"] = dict(params.sources)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
    plot_convergence(runs, summary["best_time_s"], out / "convergence.png",
                     f"{spec.name} on {summary['device']}: {summary['space_size']} variants, "
                     f"{args.seeds} seeds")
    if args.json:
        print(json.dumps(summary, indent=1, default=str))
        return 0
    for name, med in summary["evals_to_target"].items():
        print(f"{name:>26}: median {med:g} evaluations to within 3 % "
              f"(reached in {summary['reached_share'][name]:.0%} of seeds)")
    print(f"model: Spearman ρ {summary['model_spearman']:.3f}, within ±15 % "
          f"{summary['model_within_15pct']:.1%}")
    cal = summary.get("model_calibrated")
    if cal:
        print(f"model corrected by {cal['known_variants']} measured variants: Spearman ρ "
              f"{cal['spearman']:.3f}, within ±15 % {cal['within_15pct']:.1%} on the others")
    print(f"written {out / 'summary.json'}, {out / 'convergence.png'}")
    return 0


def _strategies(args: argparse.Namespace, kt_default: tuple[str, ...]
                ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(Optuna samplers, Kernel Tuner strategies) that --simulate runs, names checked."""
    from gencl.errors import GenclError
    from gencl.tune import SAMPLERS
    from gencl.tune._kerneltuner import kt_strategy_names

    if args.strategies and (args.kt_strategies or args.no_kernel_tuner):
        raise GenclError("--strategies names the Kernel Tuner strategies too (kt_<name>); "
                         "drop --kt-strategies/--no-kernel-tuner")
    if args.strategies:
        names = [n.strip() for n in args.strategies.split(",") if n.strip()]
        ours = tuple(n for n in names if not n.startswith("kt_"))
        kt = tuple(n[3:] for n in names if n.startswith("kt_"))
    else:
        ours = ("guided", "tpe", "random")
        kt = () if args.no_kernel_tuner else (
            tuple(n.strip() for n in args.kt_strategies.split(",")) if args.kt_strategies
            else kt_default)
    bad = [n for n in ours if n not in SAMPLERS]
    if bad:
        raise GenclError(f"--strategies {bad[0]}: expected one of {', '.join(SAMPLERS)} or "
                         "kt_<Kernel Tuner strategy>")
    known = kt_strategy_names()
    bad = [n for n in kt if n not in known]
    if bad:
        raise GenclError(f"Kernel Tuner strategy {bad[0]}: expected one of {', '.join(known)}")
    return ours, kt


def _tune(spec, args: argparse.Namespace) -> int:
    import os

    from gencl.model import load_params
    from gencl.tune import (
        DeviceEvaluator, ReplayEngine, SearchSpace, best_trial, export_t4, make_sampler,
        open_storage, run_study, storage_url, write_best)

    fixed = parse_knobs(args.knob)
    if args.replay:
        from gencl.tune import fixed_from_records

        evaluator = ReplayEngine(args.replay,
                                 delay_s=float(os.environ.get("GENCL_REPLAY_DELAY_S", 0)))
        fixed = {**fixed_from_records(spec, evaluator.records), **fixed}
        device = evaluator.device
        sizes_of = _replay_sizes(evaluator)
    else:
        from gencl.measure import OpenCLEngine

        engine = OpenCLEngine(args.device)
        evaluator = DeviceEvaluator(engine, quick=args.quick,
                                    size_overrides=parse_sizes(args.size))
        device = engine.info.to_json()
        sizes_of = lambda p: evaluator.sizes(spec, p)  # noqa: E731
    space = SearchSpace(spec, fixed)
    slug = device.get("slug", "unknown")
    # a quick run never lands next to (or adds trials to) committed full results
    out = Path(args.out or f"{'out' if args.quick else 'bench_results'}/{slug}/tuning")
    study_name = args.study or f"{spec.name}-{args.sampler}"
    default_store = out / (f"{study_name}.journal" if args.workers > 1 else "study.db")
    url = storage_url(args.storage, default_store) if args.storage or args.workers <= 1 \
        else f"journal:{default_store}"
    if args.workers > 1 and not os.environ.get("GENCL_TUNE_WORKER"):
        from gencl.tune._workers import run_workers, worker_devices

        import optuna

        optuna.create_study(study_name=study_name, storage=open_storage(url),
                            direction="minimize", load_if_exists=True)  # tables before workers
        argv = _worker_argv(args, url, study_name)
        codes = run_workers(argv, args.workers, worker_devices(args.device, args.workers))
        print(f"{args.workers} workers finished (exit codes {codes})")
    else:
        params = load_params(device, summary_path=args.profile)
        predicted = _predict_space(spec, space, sizes_of, params) if args.sampler == "guided" \
            else {}
        from gencl.tune import knob_preferences
        from gencl.tune._progress import TrialProgress

        sampler = make_sampler(args.sampler, space, seed=args.seed, predicted=predicted,
                               preferred=knob_preferences(spec, params))
        run_study(spec, space, evaluator, study_name=study_name, storage=open_storage(url),
                  sampler=sampler, trials=args.trials, callbacks=[TrialProgress(args.trials)])
        if os.environ.get("GENCL_TUNE_WORKER"):
            return 0
    import optuna

    study = optuna.load_study(study_name=study_name, storage=open_storage(url))
    if best_trial(study) is None:
        from gencl.measure import explain_failure

        records = [{"status": t.user_attrs.get("status", t.state.name.lower()),
                    "reason": t.user_attrs.get("reason", "")} for t in study.trials]
        print(f"gencl: error: study {study_name}: no trial measured a variant; "
              f"{explain_failure(records, device)}", file=sys.stderr)
        return 1
    header = {"device": device, "spec": spec.name, "sampler": args.sampler, "storage": url,
              "sizes": dict(parse_sizes(args.size)), "quick": args.quick,
              "replay": args.replay}
    best = write_best(study, spec, space, out, header)
    t4 = export_t4(study, space, out / "t4_results.json", header)
    data = json.loads(best.read_text())
    if args.json:
        print(json.dumps({**data, "best_json": str(best), "t4": str(t4)}, indent=1, default=str))
        return 0
    print(f"best of {len(study.trials)} trials: {data['point']} {data['median_s'] * 1e6:.1f} µs "
          f"(trial {data['trial']}); {best}, {out / 'best.cl'}, {t4}; storage {url}")
    return 0


def _predict_space(spec, space, sizes_of, params) -> dict:
    """The guided sampler's up-front step, said and shown: it takes minutes on a large space."""
    from gencl.report_console import ProgressLine
    from gencl.tune import predictions

    total = len(space.points())
    print(f"model: predicting the time of all {total} variants of {spec.name} before trial 1 "
          "(loopy's operation and memory counts × the device profile; the guided sampler tries "
          "the fastest predicted first)", file=sys.stderr, flush=True)
    return predictions(spec, space, sizes_of, params,
                       progress=ProgressLine("model: variants predicted", total))


def _replay_sizes(replay):
    from gencl.model import point_key

    table = {point_key(r["point"]): r.get("sizes", {}) for r in replay.records}
    return lambda p: table.get(point_key(p), {})


def _worker_argv(args: argparse.Namespace, url: str, study: str) -> list[str]:
    argv = [args.spec, "--trials", str(args.trials), "--sampler", args.sampler,
            "--storage", url, "--study", study, "--workers", str(args.workers)]
    for flag, value in (("--replay", args.replay), ("--profile", args.profile),
                        ("--out", args.out)):
        if value:
            argv += [flag, value]
    if args.seed is not None:
        argv += ["--seed", str(args.seed)]
    if args.quick:
        argv.append("--quick")
    for item in args.knob or ():
        argv += ["--knob", item]
    for item in args.size or ():
        argv += ["--size", item]
    return argv
