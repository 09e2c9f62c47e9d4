"""``gencl space SPEC``: thin over ``gencl.api.space`` (measure a tuning kernel's whole space)."""

from __future__ import annotations

import argparse
import json
import sys

from gencl._commands import (
    command, count_int, knob_item, parse_knobs, parse_sizes, positive_int, shard_item, size_item)
from gencl.errors import GenclError


def _cfg_space(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="tuning kernel name (tuning/) or path")
    p.add_argument("--device", help="device index or name substring (gencl devices)")
    p.add_argument("--dtype", help="element type (default float32 where the spec has a dtype)")
    p.add_argument("--size", action="append", type=size_item, metavar="NAME=INT",
                   help="problem size, e.g. n=8192")
    p.add_argument("--variant", help="only one named variant (the spec's hooks: baseline, …)")
    p.add_argument("--knob", action="append", type=knob_item, metavar="NAME=VALUE",
                   help="fix a knob")
    p.add_argument("--shard", default="0/1", type=shard_item, metavar="I/N",
                   help="measure every N-th point from I")
    p.add_argument("--sample", type=count_int,
                   help="measure the named variants + K random points")
    p.add_argument("--quick", action="store_true", help="small sizes (the spec's quick sizes)")
    p.add_argument("--repeats", type=positive_int, default=25,
                   help="samples per measurement (25)")
    p.add_argument("--rounds", type=count_int, default=0,
                   help="then time every variant again in R interleaved rounds, a new random "
                   "order each round (a machine whose speed drifts: a VM, a shared host)")
    p.add_argument("--peers", choices=("auto", "yes", "no", "only"), default="auto",
                   help="copy bandwidth + peers: auto = once the space is complete")
    p.add_argument("--generate-only", action="store_true",
                   help="only generate the variants into $GENCL_CACHE_DIR (no device needed)")
    p.add_argument("--limits", help="with --generate-only: cut the space to a remote device's "
                   "limits (nvidia: 1024 work items, 48 KiB local)")
    p.add_argument("--list", action="store_true", help="print the space's axes and exit")
    p.add_argument("--out", help="folder (default bench_results/<device>/<spec>; with --quick "
                   "out/<device>/<spec>)")
    p.add_argument("--json", action="store_true", help="print the space's summary as JSON")


def _shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise GenclError(f"--shard {text}: expected I/N, e.g. 0/2") from None
    return i, n


@command("space", _cfg_space)
def cmd_space(args: argparse.Namespace) -> int:
    """Measure a tuning kernel's whole space (cache for replay, Table-2 report, roofline, peers)."""
    import time

    from gencl import api

    fixed = {**({"dtype": args.dtype} if args.dtype else {}), **parse_knobs(args.knob)}
    if args.list:
        for line in api.describe(args.spec):
            print(line)
        return 0
    if args.generate_only:
        start = time.perf_counter()
        done, failed = api.generate_space(args.spec, limits=args.limits, fixed=fixed,
                                          variant=args.variant, shard=_shard(args.shard),
                                          sample=args.sample)
        print(f"{done} variants generated ({failed} excluded) in "
              f"{time.perf_counter() - start:.0f} s")
        return 0
    run = api.space(args.spec, device=args.device, fixed=fixed, variant=args.variant,
                    sizes=parse_sizes(args.size), quick=args.quick, shard=_shard(args.shard),
                    sample=args.sample, repeats=args.repeats, rounds=args.rounds,
                    peers=args.peers, out=args.out,
                    log=lambda line: print(line, flush=True, file=sys.stderr))
    s = run.summary
    if args.json:
        print(json.dumps({**s, "report": str(run.out / "report.md")}, indent=1, default=str))
    else:
        best = s["best_time_s"]
        roof = f", roofline {s['roofline_s'] * 1e6:.1f} µs" if s.get("roofline_s") else ""
        found = f"best {best * 1e6:.1f} µs ({s['best_variant']}){roof}" if best \
            else "no variant ran correctly (the cause below)"
        print(f"{s['measured']}/{s['space_size']} measured; {found}; "
              f"report: {run.out / 'report.md'}")
        if s.get("temporal_best_time_per_sweep_s") and s.get("best_single_sweep_s"):
            over = s.get("temporal_effective_over_copy")
            print(f"temporal blocking: {s['temporal_best_time_per_sweep_s'] * 1e6:.1f} µs per "
                  f"sweep ({s['temporal_best_variant']}), {s['temporal_speedup']:.2f}× the best "
                  f"single sweep ({s['best_single_sweep_s'] * 1e6:.1f} µs, "
                  f"{s['best_single_sweep_variant']})"
                  + (f"; effective bandwidth {over:.2f}× the copy bandwidth" if over else ""))
    return _nothing_measured(run.results, run.device) if args.peers != "only" else 0


def _nothing_measured(records, device) -> int:
    """Exit status 1, with the dominant cause and its fix, when no variant was measured."""
    from gencl.measure import explain_failure

    if any(r.get("status") == "ok" for r in records):
        return 0
    print(f"gencl: error: {explain_failure(records, device)}", file=sys.stderr)
    return 1
