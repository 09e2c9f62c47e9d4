"""The subcommand registry and the parsers of command-line values, shared by every stage's CLI.

Stage packages register their subcommands here (``gencl/<stage>/cli.py``); ``gencl/cli.py`` only
builds the parser and dispatches, so no stage imports the command line's entry point.
"""

from __future__ import annotations

import argparse
import ast
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


def parse_knobs(items: Sequence[str] | None) -> dict[str, Any]:
    """``--knob name=value``: values are Python literals where they parse, else strings."""
    point: dict[str, Any] = {}
    for item in items or ():
        if "=" not in item:
            raise GenclError(f"--knob {item}: expected name=value")
        name, text = item.split("=", 1)
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        point[name.strip()] = value
    return point


def parse_sizes(items: Sequence[str] | None) -> dict[str, int]:
    """``--size name=int``."""
    sizes = {}
    for item in items or ():
        name, _, text = item.partition("=")
        try:
            sizes[name] = int(text)
        except ValueError:
            raise GenclError(f"--size {item}: expected name=integer") from None
    return sizes


def device_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", help="device index or name substring (gencl devices)")
