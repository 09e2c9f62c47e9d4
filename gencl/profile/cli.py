"""``gencl profile`` and ``gencl report``: thin over gencl.profile."""

from __future__ import annotations

import argparse

from gencl._commands import command, positive_int


def _cfg_profile(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", help="device index or name substring (gencl devices)")
    p.add_argument("--quick", action="store_true", help="reduced suite, small sizes (CI)")
    p.add_argument("--only", nargs="+", action="extend", metavar="GROUP",
                   help="groups (compute, memory, runtime) or benchmark names to run "
                        "(repeatable: --only a --only b runs both)")
    p.add_argument("--out", help="folder (default bench_results/<device-slug>/; with --quick "
                   "out/<device-slug>/)")
    p.add_argument("--fresh", action="store_true",
                   help="start over instead of resuming the profile in --out")
    p.add_argument("--repeats", type=positive_int, help="samples per measurement (25; quick: 10)")
    p.add_argument("--json", action="store_true",
                   help="print the summary and each benchmark's status as JSON")
    p.add_argument("--clpeak", action=argparse.BooleanOptionalAction, default=None,
                   help="run clpeak (PATH or $CLPEAK) on the same device as a peer; default: "
                        "on when installed, off with --quick")


@command("profile", _cfg_profile)
def cmd_profile(args: argparse.Namespace) -> int:
    """Run the microbenchmark suite: profile.json, summary.json, report.md, plots.

    Exit status 1 when a benchmark of this run measured nothing (or failed another way); the log
    names the first cause and its fix.
    """
    import json
    import sys

    from gencl.profile import render_report, run_profile

    profile, folder = run_profile(args.out, device=args.device, quick=args.quick,
                                  only=args.only, fresh=args.fresh, repeats=args.repeats,
                                  clpeak=args.clpeak,
                                  progress=sys.stderr.isatty(),
                                  log=lambda msg: print(msg, file=sys.stderr, flush=True))
    report = render_report(profile, folder)
    # a benchmark the device cannot run (``skipped``, with its reason) is not a failure
    bad = {b.name: b for b in profile.benchmarks.values()
           if not b.ok and b.status != "skipped"}
    if args.json:
        print(json.dumps({"profile": str(folder / "profile.json"), "report": str(report),
                          "device": profile.device_json, "summary": profile.summary,
                          "benchmarks": {b.name: {"status": b.status, "reason": b.reason}
                                         for b in profile.benchmarks.values()}},
                         indent=1, default=str))
    else:
        print(f"profile: {folder / 'profile.json'}; report: {report}"
              + (f"; not ok: {', '.join(bad)}" if bad else ""))
    if bad:
        measured = len(profile.benchmarks) - len(bad)
        first = next(iter(bad.values()))
        print(f"gencl: error: {len(bad)} of {len(profile.benchmarks)} benchmarks not measured"
              + (" (nothing at all)" if not measured else "")
              + f"; first: {first.name}: {first.reason}", file=sys.stderr)
        return 1
    return 0


def _cfg_report(p: argparse.ArgumentParser) -> None:
    p.add_argument("dirs", nargs="+", metavar="DIR",
                   help="profile folder (or profile.json), or a space folder (space.json)")
    p.add_argument("--compare", action="store_true", help="two profiles side by side (A B)")
    p.add_argument("--json", action="store_true", help="with --compare: print the rows as JSON")
    p.add_argument("--reanalyse", action="store_true",
                   help="analyse the measurements stored in profile.json again (no device, "
                        "nothing measured) and rewrite profile.json and summary.json first")
    p.add_argument("--only", action="append", metavar="BENCHMARK",
                   help="with --reanalyse: only these benchmarks (repeatable)")


@command("report", _cfg_report)
def cmd_report(args: argparse.Namespace) -> int:
    """Re-render report.md and plots from profile.json (no device); --reanalyse: analyse the
    stored measurements again first; --compare A B."""
    from gencl.errors import GenclError
    from gencl.profile import compare_profiles, load_profile, render_report

    if args.only and not args.reanalyse:
        raise GenclError("--only: only with --reanalyse")
    if args.compare:
        if len(args.dirs) != 2:
            raise GenclError("--compare: give exactly two profile folders (A B)")
        a, b = (load_profile(d) for d in args.dirs)
        rows = compare_profiles(a, b)
        if args.json:
            import json

            print(json.dumps({"a": a.device_json.get("name"), "b": b.device_json.get("name"),
                              "rows": [{"name": r.name, "unit": r.unit, "a": r.a, "b": r.b,
                                        "ratio": r.ratio} for r in rows]},
                             indent=1, default=str))
        else:
            _print_comparison(a, b, rows)
        return 0
    from pathlib import Path

    for folder in args.dirs:
        if (Path(folder) / "space.json").is_file():  # a tuning kernel's space (gencl space)
            from gencl import api

            print(f"report: {api.report(folder).out / 'report.md'}")
            continue
        profile = load_profile(folder)
        if args.reanalyse:
            from gencl.profile import save_profile
            from gencl.profile._suite import reanalyse_profile

            profile = reanalyse_profile(profile, args.only)
            save_profile(profile, Path(profile.path).parent if profile.path else folder)
        print(f"report: {render_report(profile)}")
    return 0


def _print_comparison(a, b, rows) -> None:  # noqa: ANN001 -- printing edge
    from gencl.profile._report import fmt
    from gencl.report_console import make_console, make_table

    console = make_console()
    table = make_table(title="gencl profiles compared (ratio = B / A)", console=console)
    table.add_column("characteristic")
    table.add_column(f"A: {a.device_json.get('name')}", justify="right")
    table.add_column(f"B: {b.device_json.get('name')}", justify="right")
    table.add_column("B / A", justify="right")
    for r in rows:
        table.add_row(r.name, fmt(r.a, r.unit), fmt(r.b, r.unit),
                      f"{r.ratio:.3g}" if r.ratio is not None else "–")
    console.print(table)
