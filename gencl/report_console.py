"""Tables printed to the terminal (rich). Printing stays here, at the edge."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

_UNITS = {"bytes": ("B/s", 1e9, "GB/s"), "ops": ("op/s", 1e9, "Gop/s"),
          "flops": ("FLOP/s", 1e9, "GFLOP/s"), "points": ("pt/s", 1e9, "Gpt/s")}


def format_rate(name: str, value: float) -> str:
    _, scale, label = _UNITS.get(name, ("/s", 1.0, f"{name}/s"))
    return f"{value / scale:,.2f} {label}"


def print_devices(devices: Sequence[Any], default: int | None) -> None:
    table = Table(title="OpenCL devices")
    for col in ("#", "device", "platform", "CUs", "clock MHz", "local KiB", "max WG",
                "warp", "global GiB", "cache KiB", "line B", "driver"):
        table.add_column(col)
    for d in devices:
        mark = " (default)" if d.index == default else ""
        table.add_row(str(d.index), d.name + mark, d.platform, str(d.compute_units),
                      f"{d.max_clock_hz / 1e6:.0f}", f"{d.local_mem_bytes / 1024:.0f}",
                      str(d.max_work_group_size), str(d.warp_size or "?"),
                      f"{d.global_mem_bytes / 2**30:.1f}", f"{d.global_cache_bytes / 1024:.0f}",
                      str(d.global_cacheline_bytes), d.driver)
    Console().print(table)


def print_measurements(spec: Any, results: Sequence[dict[str, Any]], device: Any) -> None:
    knob_names = list(spec.axes)
    table = Table(title=f"{spec.name} on {device.name} ({device.platform})")
    for col in knob_names + ["status", "rate", "median", "95% CI (1.96σ)", "samples"]:
        table.add_column(col, overflow="fold")
    for r in results:
        point = r["point"]
        row = [str(point.get(k, "")) for k in knob_names]
        if r["status"] == "ok":
            rates = ", ".join(format_rate(k, v) for k, v in r["metrics"].items())
            row += ["ok", rates, f"{r['median_s'] * 1e6:,.2f} µs",
                    f"±{r['ci95_s'] * 1e6:,.2f} µs", str(len(r["samples_s"]))]
        else:
            row += [r["status"], r["reason"][:60], "", "", ""]
        table.add_row(*row)
    Console().print(table)
