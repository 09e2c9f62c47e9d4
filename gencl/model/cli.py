"""``gencl explain``: a variant's predicted time, bottleneck and seed-001 criteria."""

from __future__ import annotations

import argparse

from gencl._commands import command, knob_item, parse_knobs, parse_sizes, size_item
from gencl._json import dumps_json


def _cfg_explain(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="spec name (specs/, tuning/) or path")
    p.add_argument("--knob", action="append", type=knob_item, metavar="NAME=VALUE",
                   help="fix a knob/parameter")
    p.add_argument("--size", action="append", type=size_item, metavar="NAME=INT",
                   help="override a problem size")
    p.add_argument("--quick", action="store_true", help="small sizes")
    p.add_argument("--device", help="device index or name substring (its profile is used)")
    p.add_argument("--profile", help="profile.json (or its folder) to price the variant "
                   "with; without --device, a what-if for the profiled device, which need "
                   "not be present (default: the committed profile of the device's slug)")
    p.add_argument("--accuracy", metavar="CACHE",
                   help="results file of a measured space: report Spearman ρ and ±15 %% share")
    p.add_argument("--repeat", metavar="CACHE",
                   help="with --accuracy: a second measurement of the same space on the same "
                   "device, scored against the first as the model is (how far the "
                   "measurement's own noise lets a model go), and the model against it")
    p.add_argument("--rank", nargs="?", type=int, const=10, metavar="N",
                   help="price every point of the space (those with the --knob values) and "
                   "print the N fastest predictions (default 10; --json: every point) and the "
                   "variant the model would run; nothing is built or run")
    p.add_argument("--json", action="store_true", help="print JSON")


@command("explain", _cfg_explain)
def cmd_explain(args: argparse.Namespace) -> int:
    """Predict a variant's time from loopy statistics and the device profile."""
    from gencl import api
    from gencl.model import nominal_inputs

    if args.accuracy:
        from gencl.model._heldout import DEVELOPED_ON, heldout_note, model_role

        acc, params = api.model_accuracy(args.spec, args.accuracy, profile=args.profile,
                                         repeat=args.repeat)
        name = api.load(args.spec).name
        print(dumps_json({**acc.to_json(), "params": params.sources, "spec": name,
                          "model_role": model_role(name), "model_heldout": heldout_note()},
                         indent=1) if args.json else
              f"{name} on {params.device} ({model_role(name)}; the terms were developed on "
              f"{', '.join(sorted(DEVELOPED_ON))}): {acc.n} variants, Spearman ρ = "
              f"{acc.spearman:.3f}, within ±15 %: {acc.within_15pct:.0%}, median "
              f"predicted/measured {acc.median_ratio:.2f}")
        if not args.json:
            from gencl.model._report import print_accuracy_by_value, print_repeat, print_scatter

            if acc.scatter:
                print_scatter(acc.spearman, acc.scatter)
            print_accuracy_by_value(acc)
            if acc.repeat:
                print_repeat(acc.repeat)
        return 0
    if args.repeat:
        from gencl.errors import GenclError

        raise GenclError("--repeat: scores a second run against --accuracy's; give --accuracy")
    if args.rank is not None:
        return _rank(args)
    e = api.explain(args.spec, knobs=parse_knobs(args.knob), sizes=parse_sizes(args.size),
                    quick=args.quick, device=args.device, profile=args.profile)
    if args.json:
        print(dumps_json({"point": e.point, "sizes": e.sizes, "stats": e.stats.to_json(),
                          "prediction": e.prediction.to_json(), "params": e.params.to_json(),
                          "nominal_bottleneck_inputs": nominal_inputs(e.prediction.bottleneck,
                                                                      e.params)},
                         indent=1, default=str))
        return 0
    from gencl.model._report import print_explanation

    print_explanation(api.load(args.spec).name, e.point, e.sizes, e.stats, e.prediction,
                      e.params)
    return 0


def _rank(args: argparse.Namespace) -> int:
    """``--rank``: the space as the model orders it."""
    from gencl import api
    from gencl.model import point_key

    ranking = api.rank(args.spec, knobs=parse_knobs(args.knob), sizes=parse_sizes(args.size),
                       quick=args.quick, device=args.device, profile=args.profile)
    spec = ranking.spec
    if args.json:
        def row(r):
            return {"point": r.point, "sizes": r.sizes,
                    "predicted_s_per_sweep": r.predicted_s, **r.prediction.to_json()}
        print(dumps_json({"spec": spec.name, "device": ranking.params.device,
                          "params": ranking.params.sources,
                          "pick": row(ranking.pick),
                          "tied": [point_key(r.point) for r in ranking.tied],
                          "ranked": [row(r) for r in ranking.ranked],
                          "unpriced": [{"point": p, "reason": why}
                                       for p, why in ranking.unpriced]},
                         indent=1, default=str))
        return 0
    from gencl.model._report import print_ranking

    print_ranking(spec, ranking, args.rank)
    return 0


def _cfg_residual(p: argparse.ArgumentParser) -> None:
    p.add_argument("spaces", nargs="*", metavar="SPACE",
                   help="results files (gencl space) measured on one device")
    p.add_argument("--profile", help="profile.json (or its folder) to price them with "
                   "(default: the committed profile of the files' device)")
    p.add_argument("--out", help="the table's JSON file, e.g. bench_results/<device>/"
                   "residual.json")
    p.add_argument("--score", metavar="TABLE",
                   help="leave one kernel out over a table: each kernel as the terms price it "
                   "and corrected by the residual learned on the others (no device, seconds)")
    p.add_argument("--json", action="store_true", help="with --score: print JSON")


@command("residual", _cfg_residual)
def cmd_residual(args: argparse.Namespace) -> int:
    """Build the table the model's per-device residual is learned from (each measured variant's
    features and times; gencl.model._residual), or score one kernel by kernel."""
    import sys
    from pathlib import Path

    from gencl.errors import GenclError
    from gencl.model import load_params, load_results
    from gencl.model._residual import build_table, load_table, score_table

    if args.score:
        if args.spaces or args.out:
            raise GenclError("--score: scores a table; give no SPACE or --out")
        score = score_table(load_table(args.score), args.score)
        if args.json:
            print(dumps_json(score, indent=1))
            return 0
        for name, k in score["kernels"].items():
            t, r = k["terms"], k.get("residual")
            print(f"{name:>16} {k['variants']:5d} variants: ρ {t['spearman']:.3f}"
                  + (f" → {r['spearman']:.3f}" if r else "")
                  + f", within ±15 % {t['within_15pct']:.1%}"
                  + (f" → {r['within_15pct']:.1%}" if r else ""))
        m = score["mean"]
        if m["residual"]["spearman"] is not None:
            print(f"{'mean':>16}: ρ {m['terms']['spearman']:.3f} → {m['residual']['spearman']:.3f}"
                  f", within ±15 % {m['terms']['within_15pct']:.1%} → "
                  f"{m['residual']['within_15pct']:.1%}")
        return 0
    if not args.spaces or not args.out:
        raise GenclError("residual: give SPACE… and --out (or --score TABLE)")
    device = load_results(args.spaces[0]).get("device") or {}
    params = load_params(device, profile=args.profile)
    table = build_table(args.spaces, params, str(device.get("name") or ""),
                        progress=lambda path, n: print(f"{path}: {n} variants", file=sys.stderr,
                                                       flush=True))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps_json(table.to_json(), indent=None))
    print(f"{out}: {len(table.rows)} variants of {len(table.kernels)} kernels "
          f"({', '.join(table.kernels)}) on {table.device}")
    return 0
