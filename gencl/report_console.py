"""Tables printed to the terminal (rich). Printing stays here, at the edge.

On a terminal, rich's boxed tables fit the window. In a pipe or a log (``gencl devices | grep
pocl``) nothing is cut: the console is as wide as the longest row and tables lose their boxes,
so each row is one line of space-separated columns with every name in full.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

#: Wide enough for any row: rich pads only to a table's own width, not the console's.
_PIPE_WIDTH = 100_000


def make_console(file: Any = None) -> Console:
    """A console for *file* (stdout): the terminal's width, or unlimited in a pipe or log."""
    stream = file or sys.stdout
    if stream.isatty():
        return Console(file=file)
    return Console(file=file, width=_PIPE_WIDTH, soft_wrap=True)


def make_table(*columns: str, title: str | None = None, console: Console | None = None,
               **kwargs: Any) -> Table:
    """A rich Table that prints as plain columns (no box, no folding) outside a terminal."""
    plain = not (console.is_terminal if console is not None else sys.stdout.isatty())
    table = Table(*columns, title=title, **({"box": None, "show_edge": False} if plain else {}),
                  **kwargs)
    return table

_UNITS = {"bytes": ("B/s", 1e9, "GB/s"), "ops": ("op/s", 1e9, "Gop/s"),
          "flops": ("FLOP/s", 1e9, "GFLOP/s"), "points": ("pt/s", 1e9, "Gpt/s")}


def format_rate(name: str, value: float) -> str:
    _, scale, label = _UNITS.get(name, ("/s", 1.0, f"{name}/s"))
    return f"{value / scale:,.2f} {label}"


def print_devices(devices: Sequence[Any], default: int | None,
                  health: dict[int, Any] | None = None) -> None:
    """Devices with seed 000 Table I parameters and whether each works (and why not)."""
    console = make_console()
    table = make_table(title="OpenCL devices", console=console)
    for col in ("#", "slug", "device", "runtime", "status", "CUs", "clock MHz", "local KiB",
                "max WG", "warp", "global GiB", "cache KiB", "line B", "driver"):
        table.add_column(col)
    health = health or {}
    for d in devices:
        mark = " (default)" if d.index == default else ""
        h = health.get(d.index)
        status = "?" if h is None else "usable" if h.usable else f"[red]{h.reason}[/]"
        table.add_row(str(d.index), d.slug + mark, d.name, d.runtime, status,
                      str(d.compute_units),
                      f"{d.max_clock_hz / 1e6:.0f}", f"{d.local_mem_bytes / 1024:.0f}",
                      str(d.max_work_group_size), str(d.warp_size or "?"),
                      f"{d.global_mem_bytes / 2**30:.1f}", f"{d.global_cache_bytes / 1024:.0f}",
                      str(d.global_cacheline_bytes), d.driver)
    console.print(table)
    for d in devices:
        h = health.get(d.index)
        if h is not None and not h.usable:
            console.print(f"{d.slug}: not usable: {h.reason}; fix: {h.fix}", markup=False,
                          highlight=False)


def print_measurements(spec: Any, results: Sequence[dict[str, Any]], device: Any) -> None:
    from gencl.spec import steps_per_launch

    knob_names = list(spec.axes)
    console = make_console()
    table = make_table(title=f"{spec.name} on {device.name} ({device.platform})",
                       console=console)
    for col in knob_names + ["status", "rate", "median", "95% CI (1.96σ)", "samples"]:
        table.add_column(col, overflow="fold")
    for r in results:
        point = r["point"]
        row = [str(point.get(k, "")) for k in knob_names]
        if r["status"] == "ok":
            rates = ", ".join(format_rate(k, v) for k, v in r["metrics"].items())
            steps = steps_per_launch(spec, point)  # a launch of k sweeps: per sweep beside it
            per = f" ({r['median_s'] / steps * 1e6:,.2f} per sweep)" if steps > 1 else ""
            row += ["ok", rates, f"{r['median_s'] * 1e6:,.2f} µs{per}",
                    f"±{r['ci95_s'] * 1e6:,.2f} µs", str(len(r["samples_s"]))]
        else:
            reason = r["reason"] if not console.is_terminal else r["reason"][:60]
            row += [r["status"], reason, "", "", ""]
        table.add_row(*row)
    console.print(table)


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 \
        else f"{seconds // 60}:{seconds % 60:02d}"


class ProgressLine:
    """``label: k/N (elapsed, ETA)`` on stderr for a long loop: rewritten in place on a terminal,
    a new line at most every *every_s* seconds (and at the end) in a log."""

    def __init__(self, label: str, total: int, *, every_s: float = 10.0, file: Any = None) -> None:
        import time

        self.label, self.total, self.every_s = label, total, every_s
        self.file = file or sys.stderr
        self.tty = self.file.isatty()
        self.start = self._last = time.monotonic()

    def __call__(self, done: int, note: str = "") -> None:
        import time

        now = time.monotonic()
        final = done >= self.total
        if not (self.tty or final or now - self._last >= self.every_s):
            return
        self._last = now
        elapsed = now - self.start
        eta = elapsed / done * (self.total - done) if done else None
        text = (f"{self.label}: {done}/{self.total} ({_duration(elapsed)} elapsed"
                + (f", ETA {_duration(eta)}" if eta is not None and not final else "") + ")"
                + (f" {note}" if note else ""))
        if self.tty:
            print("\r" + text + "\033[K", end="\n" if final else "", file=self.file, flush=True)
        else:
            print(text, file=self.file, flush=True)
