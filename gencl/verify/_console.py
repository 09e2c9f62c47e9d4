"""The verify summary table (rich). Printing stays here, at the edge."""

from __future__ import annotations

from rich.console import Console

from gencl.report_console import make_console, make_table
from gencl.verify._result import VariantCheck, VerifyReport


def _mark(flag: bool | None) -> str:
    return {True: "[green]✓[/]", False: "[red]✗[/]", None: "–"}[flag]


def _oclgrind_cell(check: VariantCheck) -> str:
    if check.oclgrind is None:
        return "–"
    if check.oclgrind.get("skipped"):
        return "[yellow]not checked[/]"
    bad = [f for f in check.failures if f.startswith("oclgrind")]
    if bad:
        return "[red]" + "; ".join(sorted({f.split(":")[0] for f in bad})) + "[/]"
    return "[green]clean[/]" + (" (exempt findings)" if check.oclgrind["exempted"] else "")


def _ptx_cell(check: VariantCheck) -> str:
    if check.ptx is None:
        return "–"
    return f"[red]{len(check.ptx['problems'])} problem(s)[/]" if check.ptx["problems"] \
        else "[green]ok[/]"


def print_report(report: VerifyReport, console: Console | None = None) -> None:
    """One row per variant, then the failures in full and the run's notes."""
    console = console or make_console()
    table = make_table(title=f"gencl verify on {report.device['name']} "
                             f"({report.device['platform']})", console=console)
    for col in ("spec", "point", "built", "ran", "matched", "max err", "oclgrind", "ptx",
                "result"):
        table.add_column(col, overflow="fold")
    for c in report.checks:
        point = ", ".join(f"{k}={v}" for k, v in c.point.items())
        err = "" if c.max_error is None else f"{c.max_error:.2g}"
        result = ("[yellow]skipped[/]" if c.skipped else
                  "[green]pass[/]" if c.passed else "[red]FAIL[/]")
        table.add_row(c.spec, point, _mark(c.built), _mark(c.ran), _mark(c.matched), err,
                      _oclgrind_cell(c), _ptx_cell(c), result)
    console.print(table)
    for spec, how in report.selection.items():
        console.print(f"{spec}: {how}")
    for c in report.checks:
        if c.skipped:
            console.print(f"[yellow]skipped[/] {c.variant_id}: {c.skipped}")
    for c in report.failed:
        console.print(f"[red]FAIL[/] {c.variant_id} {c.point}")
        for reason in c.failures:
            console.print(f"    {reason}", markup=False, highlight=False)
    for note in report.notes:
        console.print(f"note: {note}")
    console.print(f"{len(report.checked)} variants checked, {len(report.failed)} failed, "
                  f"{len(report.checks) - len(report.checked)} skipped")
