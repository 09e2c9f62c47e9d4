"""The subcommand registry and the parsers of command-line values, shared by every stage's CLI.

Stage packages register their subcommands here (``gencl/<stage>/cli.py``); ``gencl/cli.py`` only
builds the parser and dispatches, so no stage imports the command line's entry point.
"""

from __future__ import annotations

import argparse
import ast
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from gencl.errors import GenclError

Configure = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]

#: subcommand name → (configure its parser, run it)
COMMANDS: dict[str, tuple[Configure, Run]] = {}


def command(name: str, configure: Configure) -> Callable[[Run], Run]:
    """Register the decorated function as subcommand *name*, its arguments set by *configure*."""
    def register(run: Run) -> Run:
        COMMANDS[name] = (configure, run)
        return run
    return register


# {{{ option values: checked by argparse (``type=``), so a bad one is one line and exit 2

class ArgumentParser(argparse.ArgumentParser):
    """argparse, with a bad option said in one line (no usage block): ``gencl: error: ...``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"gencl: error: {self.prog}: {message} (see {self.prog} --help)\n")


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def int_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type=``: an integer ≥ *minimum*."""
    def parse(text: str) -> int:
        value = _integer(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is less than {minimum}")
        return value
    parse.__name__ = f"integer ≥ {minimum}"
    return parse


#: ``--trials``, ``--repeats``, ``--workers``, ``--seeds``, ``--max-evals``: at least one.
positive_int = int_at_least(1)
#: a count that may be zero (``--sample 0``: only the named variants)
count_int = int_at_least(0)


def seed_int(text: str) -> int:
    """A random seed: numpy and Optuna take 0 ≤ seed < 2³²."""
    value = _integer(text)
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"{value} is not a seed (0 ≤ seed < 2^32)")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def size_item(text: str) -> str:
    """``--size NAME=INT``, INT ≥ 1 (the names are checked against the spec once it is loaded)."""
    name, eq, value = text.partition("=")
    if not eq or not name.strip().isidentifier():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=INTEGER")
    try:
        size = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not an integer") from None
    if size < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a size must be at least 1")
    return text


def knob_item(text: str) -> str:
    """``--knob NAME=VALUE`` (the name and value are checked against the spec's space)."""
    name, eq, _ = text.partition("=")
    if not eq or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return text


def shard_item(text: str) -> str:
    """``--shard I/N``: every N-th point from I, 0 ≤ I < N."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not m or not int(m.group(2)) >= 1 or not int(m.group(1)) < int(m.group(2)):
        raise argparse.ArgumentTypeError(f"{text!r} is not I/N with 0 ≤ I < N")
    return text


def check_size_names(spec: Any, items: Sequence[str] | None) -> None:
    """``--size`` names must be sizes the spec has (those its sizes() returned on its probe)."""
    known = tuple(getattr(spec, "size_names", ()) or ())
    for item in items or ():
        name = item.partition("=")[0].strip()
        if known and name not in known:
            raise GenclError(f"--size {item}: {spec.path or spec.name}: no size named {name!r} "
                             f"(its sizes: {', '.join(known)})")

# }}}


def parse_knobs(items: Sequence[str] | None) -> dict[str, Any]:
    """``--knob name=value``: values are Python literals where they parse, ``AxB…`` (integers,
    as ``--list`` and the reports print a tuple value: ``workgroup=128x8``) a tuple, else
    strings."""
    point: dict[str, Any] = {}
    for item in items or ():
        if "=" not in item:
            raise GenclError(f"--knob {item}: expected name=value")
        name, text = item.split("=", 1)
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = tuple(int(v) for v in text.split("x")) \
                if re.fullmatch(r"\s*\d+(x\d+)+\s*", text) else text
        point[name.strip()] = value
    return point


def parse_sizes(items: Sequence[str] | None) -> dict[str, int]:
    sizes = {}
    for item in items or ():
        name, _, text = item.partition("=")
        try:
            sizes[name.strip()] = int(text)
        except ValueError:
            raise GenclError(f"--size {item}: expected name=integer") from None
        if sizes[name.strip()] < 1:
            raise GenclError(f"--size {item}: a size must be at least 1")
    return sizes


def device_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", help="device index or name substring (gencl devices)")
