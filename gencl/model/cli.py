"""``gencl explain``: a variant's predicted time, bottleneck and seed-001 criteria."""

from __future__ import annotations

import argparse

from gencl._json import dumps_json
from gencl.cli import command, knob_item, parse_knobs, parse_sizes, size_item


def _cfg_explain(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="spec name (specs/, tuning/) or path")
    p.add_argument("--knob", action="append", type=knob_item, metavar="NAME=VALUE",
                   help="fix a knob/parameter")
    p.add_argument("--size", action="append", type=size_item, metavar="NAME=INT",
                   help="override a problem size")
    p.add_argument("--quick", action="store_true", help="small sizes")
    p.add_argument("--device", help="device index or name substring (its profile is used)")
    p.add_argument("--profile", help="summary.json to use (default bench_results/<slug>/)")
    p.add_argument("--accuracy", metavar="CACHE",
                   help="results file of a measured space: report Spearman ρ and ±15 %% share")
    p.add_argument("--json", action="store_true", help="print JSON")


@command("explain", _cfg_explain)
def cmd_explain(args: argparse.Namespace) -> int:
    """Predict a variant's time from loopy statistics and the device profile."""
    from gencl.model import cache_accuracy, explain, load_params, load_results
    from gencl.spec import check_point, load_spec

    spec = load_spec(args.spec)
    if args.accuracy:
        data = load_results(args.accuracy)
        params = load_params(data.get("device", {}), summary_path=args.profile)
        acc, _ = cache_accuracy(spec, data["results"], params)
        print(dumps_json({**acc.to_json(), "params": params.sources}, indent=1) if args.json else
              f"{spec.name} on {params.device}: {acc.n} variants, Spearman ρ = "
              f"{acc.spearman:.3f}, within ±15 %: {acc.within_15pct:.0%}, median "
              f"predicted/measured {acc.median_ratio:.2f}")
        return 0
    from gencl.device import select_device

    _, info = select_device(args.device)
    point = check_point(spec, parse_knobs(args.knob))
    sizes = {**spec.sizes(point, info, args.quick), **parse_sizes(args.size)}
    params = load_params(info.to_json(), summary_path=args.profile)
    stats, pred = explain(spec, point, sizes, params)
    if args.json:
        print(dumps_json({"point": point, "sizes": sizes, "stats": stats.to_json(),
                          "prediction": pred.to_json(), "params": params.to_json()},
                         indent=1, default=str))
        return 0
    from gencl.model._report import print_explanation

    print_explanation(spec.name, point, sizes, stats, pred, params)
    return 0
