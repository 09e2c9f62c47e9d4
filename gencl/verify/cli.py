"""``gencl verify``: check emitted code (numerics, oclgrind, PTX); exit 0 only if all pass."""

from __future__ import annotations

import argparse
from pathlib import Path

from gencl._commands import command, knob_item, parse_knobs, positive_float, positive_int
from gencl._json import dumps_json


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("specs", nargs="*", metavar="SPEC",
                   help="spec or tuning-kernel names or paths (default: every one found)")
    p.add_argument("--device", help="device index or name substring (gencl devices)")
    p.add_argument("--oclgrind", action="store_true",
                   help="also run each variant on oclgrind (races, uninitialized, out of bounds)")
    p.add_argument("--ptx", action="store_true",
                   help="inspect PTX on NVIDIA (skipped, and said so, elsewhere)")
    p.add_argument("--knob", action="append", type=knob_item, metavar="NAME=VALUE",
                   help="check only the points with this value (repeatable; every SPEC named "
                        "must have the knob), e.g. one variant and its PTX")
    p.add_argument("--sample", type=positive_int, metavar="N",
                   help="at most N points per spec (pairwise covering sample)")
    p.add_argument("--all", action="store_true", help="every point of every space")
    p.add_argument("--json", nargs="?", const="-", metavar="FILE",
                   help="write the JSON report here (PTX and build logs go to FILE's folder, "
                        "<stem>_ptx/); --json alone prints it instead of the table")
    p.add_argument("--results", action="store_true",
                   help="write the report to bench_results/<device-slug>/verify.json")
    p.add_argument("--oclgrind-timeout", type=positive_float, default=120.0, metavar="S",
                   help="seconds per variant on oclgrind before it counts as hung (120)")


@command("verify", _configure)
def cmd_verify(args: argparse.Namespace) -> int:
    """check generated variants: numerics vs numpy, oclgrind, PTX rules"""
    from gencl.device import select_device
    from gencl.errors import GenclError
    from gencl.api import load
    from gencl.spec import list_spec_files
    from gencl.verify import print_report, verify

    if args.sample is not None and args.sample < 1:
        raise GenclError(f"--sample {args.sample}: must be at least 1")
    names = args.specs or [str(p) for p in list_spec_files()]
    specs = [load(name) for name in names]
    to_stdout = args.json == "-"
    path = Path(args.json) if args.json and not to_stdout else None
    if args.results:
        path = Path("bench_results") / select_device(args.device)[1].slug / "verify.json"
    artifacts = path.with_name(f"{path.stem}_ptx") if path and args.ptx else None
    report = verify(specs, device=args.device, oclgrind=args.oclgrind, ptx=args.ptx,
                    sample=args.sample, exhaustive=args.all, artifacts=artifacts,
                    oclgrind_timeout_s=args.oclgrind_timeout, fixed=parse_knobs(args.knob))
    if to_stdout:
        print(dumps_json(report.to_json(), indent=1))
    else:
        print_report(report)
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps_json(report.to_json(), indent=1))
        if not to_stdout:
            print(f"report: {path}")
    return 0 if report.ok else 1
