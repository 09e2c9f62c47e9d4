"""``gencl space SPEC``: measure a tuning kernel's whole space once per device (resumable)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gencl.cli import command, parse_knobs, parse_sizes
from gencl.errors import GenclError


def _cfg_space(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="tuning kernel (e.g. jacobi)")
    p.add_argument("--device", help="device index or name substring (gencl devices)")
    p.add_argument("--dtype", default="float32", help="element type (float32)")
    p.add_argument("--size", action="append", metavar="NAME=INT", help="problem size, e.g. n=8192")
    p.add_argument("--variant", help="only one named hand variant (baseline, vec4_BE, BE_mcStat…)")
    p.add_argument("--knob", action="append", metavar="NAME=VALUE", help="fix a knob")
    p.add_argument("--shard", default="0/1", metavar="I/N", help="measure every N-th point from I")
    p.add_argument("--sample", type=int, help="measure the named variants + K random points")
    p.add_argument("--quick", action="store_true", help="small grid (the spec's quick size)")
    p.add_argument("--repeats", type=int, default=25, help="samples per measurement (25)")
    p.add_argument("--peers", choices=("auto", "yes", "no", "only"), default="auto",
                   help="copy bandwidth + peers: auto = once the space is complete")
    p.add_argument("--generate-only", action="store_true",
                   help="only generate the variants into $GENCL_CACHE_DIR (no device needed)")
    p.add_argument("--limits", help="with --generate-only: cut the space to a remote device's "
                   "limits (nvidia: 1024 work items, 48 KiB local)")
    p.add_argument("--out", help="folder (default bench_results/<device>/<spec>; with --quick "
                   "out/<device>/<spec>)")
    p.add_argument("--json", action="store_true", help="print the space's summary as JSON")


def _fixed(spec, args: argparse.Namespace) -> dict:
    fixed = {"dtype": args.dtype, **parse_knobs(args.knob)}
    if args.variant:
        variants = spec.extra.get("variants", {})
        if args.variant not in variants:
            raise GenclError(f"--variant {args.variant}: known are {', '.join(variants)}")
        fixed.update(variants[args.variant])
    for name, value in fixed.items():
        if name not in spec.axes:
            raise GenclError(f"--knob {name}: unknown (known: {', '.join(spec.axes)})")
        if value not in spec.axes[name]:
            raise GenclError(f"--knob {name}: {value!r} is outside the space {spec.axes[name]}")
    # the fixed axes together, not one by one at the defaults (local=static alone would be
    # excluded at the default boundary form); no point of the space left is said by the caller
    return fixed


def _shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise GenclError(f"--shard {text}: expected I/N, e.g. 0/2") from None
    if not 0 <= i < n:
        raise GenclError(f"--shard {text}: need 0 <= I < N")
    return i, n


@command("space", _cfg_space)
def cmd_space(args: argparse.Namespace) -> int:
    """Measure a tuning kernel's whole space (cache for replay, Table-2 report, roofline)."""
    from gencl.generate import GenerationFailure, generate_many
    from gencl.space import limits_for, space_points
    from gencl.spec import load_spec

    spec = load_spec(args.spec)
    fixed, shard = _fixed(spec, args), _shard(args.shard)
    always = list(spec.extra.get("variants", {}).values())
    if args.generate_only:
        device = limits_for(args.limits) if args.limits else None
        points = space_points(spec, device, fixed=fixed, shard=shard, sample=args.sample,
                              always=always)
        start = time.perf_counter()
        variants = generate_many(spec, points)
        failed = sum(isinstance(v, GenerationFailure) for v in variants)
        print(f"{len(variants) - failed} variants of {spec.name} generated ({failed} excluded) in "
              f"{time.perf_counter() - start:.0f} s")
        return 0
    return _measure(spec, args, fixed, shard, always)


def _measure(spec, args, fixed, shard, always) -> int:
    from gencl.measure import OpenCLEngine, results_header
    from gencl.space import (
        measure_copy_bandwidth, measure_peers, measure_space, open_results, space_points,
        summarize_space, write_report)

    engine = OpenCLEngine(args.device, repeats=args.repeats)
    overrides = parse_sizes(args.size)

    def sizes_of(point):
        return {**spec.sizes(point, engine.info, args.quick), **overrides}

    full = space_points(spec, engine.info, fixed=fixed)
    points = space_points(spec, engine.info, fixed=fixed, shard=shard, sample=args.sample,
                          always=always)
    n = sizes_of(full[0])["n"] if full else overrides.get("n")
    # a quick run never lands next to (or resumes into) committed full results
    root = "out" if args.quick else "bench_results"
    out = Path(args.out or f"{root}/{engine.info.slug}/{spec.name}")
    header = results_header(engine, spec=spec.name, n=n, dtype=args.dtype, quick=args.quick,
                            sampled=args.sample is not None,
                            slice={k: v for k, v in fixed.items() if k != "dtype"})
    sink = open_results(out / "space.json", header)
    if args.peers != "only":
        start, total = time.perf_counter(), len(points)

        def progress(m):
            done = progress.count = getattr(progress, "count", 0) + 1
            if done % 50 == 0 or done == total:
                print(f"  {done}/{total} measured ({time.perf_counter() - start:.0f} s)",
                      flush=True, file=sys.stderr)

        print(f"{spec.name}: {len(points)} points in this call (space on {engine.info.name}: "
              f"{len(full)}), n={n}, {args.dtype}", flush=True, file=sys.stderr)
        measure_space(spec, engine, points, sizes_of, sink, on_result=progress)
    sink.close()
    from gencl.generate import variant_id

    done = sink.done_ids
    complete = all(variant_id(spec.name, spec.source_hash, p) in done for p in points) and (
        args.sample is not None or all(variant_id(spec.name, spec.source_hash, p) in done
                                       for p in full))
    peers_path = out / "peers.json"
    if args.peers in ("yes", "only") or (args.peers == "auto" and complete):
        copy = measure_copy_bandwidth(engine, quick=args.quick)
        times, skipped = measure_peers(engine, n, args.dtype)
        peers_path.write_text(json.dumps({**header, "copy": copy, "peers": times,
                                          "skipped": skipped}, indent=1, default=str) + "\n")
    saved = json.loads(peers_path.read_text()) if peers_path.is_file() else {}
    copy, times, skipped = saved.get("copy", {}), saved.get("peers", {}), saved.get("skipped", {})
    summary = summarize_space(spec, sink.results, device=engine.info.name, n=n, dtype=args.dtype,
                              space_size=len(full), copy_bw=copy.get("copy_bw_Bps"), peers=times)
    write_report(out, spec, sink.results, header, summary, sampled=args.sample is not None,
                 skipped_peers=skipped, copy=copy)
    best = summary["best_time_s"]
    if args.json:
        print(json.dumps({**summary, "report": str(out / "report.md")}, indent=1, default=str))
    else:
        print(f"{summary['measured']}/{summary['space_size']} measured; best "
              f"{best * 1e6 if best else float('nan'):.1f} µs/sweep; report: {out / 'report.md'}")
    return _nothing_measured(sink.results, engine.info) if args.peers != "only" else 0


def _nothing_measured(records, device) -> int:
    """Exit status 1, with the dominant cause and its fix, when no variant was measured."""
    from gencl.measure import explain_failure

    if any(r.get("status") == "ok" for r in records):
        return 0
    print(f"gencl: error: {explain_failure(records, device)}", file=sys.stderr)
    return 1
