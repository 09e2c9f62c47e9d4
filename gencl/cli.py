"""gencl command line: thin subcommands over the Python API; bad input → one line, exit 2."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gencl._commands import (
    COMMANDS, ArgumentParser, check_size_names, command, device_arg, knob_item, parse_knobs,
    parse_sizes, positive_int, size_item)
from gencl.errors import GenclError

__all__ = ["COMMANDS", "build_parser", "command", "main", "parse_knobs", "parse_sizes"]

# {{{ devices

def _cfg_devices(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")


@command("devices", _cfg_devices)
def cmd_devices(args: argparse.Namespace) -> int:
    """List OpenCL devices, whether each works (a test kernel is run once), and the default."""
    from gencl.device import default_device_index, device_health, list_devices
    from gencl.errors import DeviceError
    from gencl.report_console import print_devices

    devices = list_devices()
    health = {d.index: device_health(d) for d in devices}
    try:
        default = default_device_index(devices, health)
    except DeviceError:
        default = None  # listed below with each device's reason; exit status says it
    if args.json:
        print(json.dumps([{**d.to_json(), "runtime": d.runtime, **health[d.index].to_json(),
                           "status": health[d.index].status, "default": d.index == default}
                          for d in devices], indent=1))
    else:
        print_devices(devices, default, health)
        if not any(d.slug == "intel-cpu" for d in devices):
            from gencl.device._icd import intel_cpu_load_problem

            problem = intel_cpu_load_problem()
            if problem:
                print(f"Intel's CPU runtime is installed but does not load: {problem}",
                      file=sys.stderr)
        if default is None:
            print("no usable OpenCL device: install Debian's PoCL (apt-get install "
                  "pocl-opencl-icd, as root) or Intel's CPU runtime (pip install 'gencl[intel]')",
                  file=sys.stderr)
    return 0 if default is not None else 1

# }}}


# {{{ generate

def _cfg_generate(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="spec name (specs/, tuning/) or path")
    p.add_argument("--knob", action="append", type=knob_item, metavar="NAME=VALUE",
                   help="fix a knob/parameter")
    p.add_argument("--all", action="store_true", help="the whole space, not the sweep")
    p.add_argument("--out", required=True, help="folder for .cl files and manifest.json")
    p.add_argument("--workers", type=positive_int, help="parallel code generation processes")


@command("generate", _cfg_generate)
def cmd_generate(args: argparse.Namespace) -> int:
    from gencl.generate import GenerationFailure, generate_many, write_variants
    from gencl.api import load

    spec = load(args.spec)
    points = _points(spec, args)
    variants = generate_many(spec, points, workers=args.workers)
    manifest = write_variants(variants, args.out)
    failed = sum(isinstance(v, GenerationFailure) for v in variants)
    print(f"{len(variants) - failed} variants of {spec.name} written to {args.out} "
          f"({failed} excluded); manifest: {manifest}")
    return 0


def _points(spec: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    from gencl.spec import check_knob, check_point, matches

    fixed = parse_knobs(args.knob)
    if args.all:  # validate names/values, then filter the space
        fixed = {name: check_knob(spec, name, value) for name, value in fixed.items()}
        return [p for p in spec.points(None, fixed) if matches(p, fixed)]
    if fixed:
        return [check_point(spec, fixed)]
    return spec.sweep_points(quick=getattr(args, "quick", False))

# }}}


# {{{ run

def _cfg_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", help="spec name (specs/, tuning/) or path")
    p.add_argument("--knob", action="append", type=knob_item, metavar="NAME=VALUE")
    p.add_argument("--all", action="store_true", help="the whole space, not the sweep")
    p.add_argument("--size", action="append", type=size_item, metavar="NAME=INT",
                   help="override a problem size")
    p.add_argument("--quick", action="store_true", help="small sizes")
    p.add_argument("--repeats", type=positive_int, default=25,
                   help="samples per measurement (25)")
    p.add_argument("--json", nargs="?", const="-", metavar="FILE",
                   help="results file (default bench_results/<device>/<spec>.json); --json alone "
                        "prints the results as JSON instead of the table; a run resumes its own "
                        "partial file, and refuses a file holding results of other sizes, spec "
                        "or device")
    device_arg(p)


@command("run", _cfg_run)
def cmd_run(args: argparse.Namespace) -> int:
    """Build, verify and time a spec's variants on a device: a table of rates and medians."""
    from gencl.measure import OpenCLEngine, ResultsFile, results_header, run_points
    from gencl.report_console import print_measurements
    from gencl.api import load

    spec = load(args.spec)
    points = _points(spec, args)
    engine = OpenCLEngine(args.device, repeats=args.repeats)
    to_stdout = args.json == "-"
    path = Path(args.json if args.json and not to_stdout
                else f"bench_results/{engine.info.slug}/{spec.name}.json")
    overrides = parse_sizes(args.size)
    sink = ResultsFile(path, results_header(engine, spec=spec.name, quick=args.quick,
                                            size_overrides=overrides, repeats=args.repeats))
    results = run_points(spec, points, engine, quick=args.quick, size_overrides=overrides,
                         sink=sink)
    sink.close()
    measured = [r for r in sink.results if r["status"] == "ok"]
    if to_stdout:
        print(json.dumps({"device": engine.info.to_json(), "results_file": str(path),
                          "results": sink.results}, indent=1, default=str))
    else:
        print_measurements(spec, sink.results, engine.info)
        print(f"{len(results)} run, {len(measured)} measured; results: {path}")
    if results and not measured:
        from gencl.measure import explain_failure

        print(f"gencl: error: {explain_failure(sink.results, engine.info)}", file=sys.stderr)
        return 1
    return 0


# }}}


def _verbose_arg(p: argparse.ArgumentParser, default: Any) -> None:
    p.add_argument("-v", "--verbose", action="store_true", default=default,
                   help="show loopy's and the OpenCL compilers' own warnings")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="gencl", description="OpenCL kernel generator, benchmark and autotuner on loopy")
    _verbose_arg(parser, False)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (configure, _) in COMMANDS.items():
        p = sub.add_parser(name, help=(COMMANDS[name][1].__doc__ or "").strip())
        _verbose_arg(p, argparse.SUPPRESS)  # gencl -v CMD and gencl CMD -v both work
        configure(p)
    return parser


def _load_plugins() -> None:
    """Subcommands that live with their stage register themselves on import."""
    import importlib

    for module in ("gencl.profile.cli", "gencl.tune.cli", "gencl.verify.cli",
                   "gencl.model.cli", "gencl.space.cli"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise  # a missing stage is fine; a missing import inside one is a bug


def _check_args(args: argparse.Namespace) -> None:
    """Checks that need the spec: ``--size`` names."""
    spec_arg = getattr(args, "spec", None)
    if isinstance(spec_arg, str) and getattr(args, "size", None):
        from gencl.spec import load_spec

        check_size_names(load_spec(spec_arg), args.size)


def main(argv: Sequence[str] | None = None) -> int:
    _load_plugins()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # a bad option (said in one line), or --help
        return exc.code if isinstance(exc.code, int) else 2
    from gencl import show_third_party_warnings

    show_third_party_warnings(args.verbose)
    _, run = COMMANDS[args.command]
    try:
        _check_args(args)
        return run(args)
    except GenclError as exc:
        print(f"gencl: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gencl: interrupted; finished results are kept", file=sys.stderr)
        return 130
    except BrokenPipeError:  # gencl devices | head: the reader left, nothing is wrong
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
