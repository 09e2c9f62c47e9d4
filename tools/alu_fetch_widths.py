"""alu_fetch's curve per vector width, from its raw results: how far each width's arithmetic hides
behind its loads.

    python tools/alu_fetch_widths.py RAW.json… > widths.md

RAW: a ``raw/alu_fetch.json`` a profile run wrote (``gencl profile --device … --only alu_fetch``).
One table a file: per width (float, floatW), the flat memory time T_mem and the arithmetic
roof of ``t = max(T_mem, k·ρ)``, the ALU:fetch ratio where they cross (seed 004's balance),
and the exponent p of ``t = (T_mem^p + (k·ρ)^p)^(1/p)`` with its RMS log-time residual, each
fitted as the profile's analysis fits them (``gencl.characterize.alu_fetch``; the profile
reports the widths the form fits as ``overlap_exponent_by_vector_width``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gencl.characterize._cycles import ok_records
from gencl.characterize.alu_fetch import _balance_of, _per_ratio, _type_label, fit_overlap


def width_rows(results: list[dict]) -> list[dict]:
    """One row a width: its label, T_mem (s), ALU-bound FLOP/s, balance ratio (None where the
    crossing lies outside the sweep), overlap exponent and its RMS log-time residual."""
    ok = [r for r in ok_records(results) if r.get("work")]
    labels = sorted({_type_label(r["point"]) for r in ok}, key=lambda lb: (len(lb), lb))
    rows = []
    for label in labels:
        runs = _per_ratio([r for r in ok if _type_label(r["point"]) == label])
        if len(runs) < 3:
            continue
        value, fit, _ = _balance_of(label, runs)
        ratios = sorted(runs)
        overlap = fit_overlap(ratios, [float(runs[r]["median_s"]) for r in ratios], fit)
        rows.append({"type": label, "t_mem_s": fit.t_mem,
                     "alu_bound_flops": value["alu_bound_flops"] if value else None,
                     "balance_ratio": value["ratio"] if value else None,
                     "exponent": overlap.exponent, "rms_log_error": overlap.rms_log_error})
    return rows


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    device = data.get("device", {})
    head = (f"{path}: {device.get('name')}, driver {device.get('driver')}, "
            f"{data.get('date')}\n\n"
            "| type | T_mem µs | ALU-bound TFLOP/s | balance ratio | overlap p | RMS log |\n"
            "|---|---|---|---|---|---|\n")
    lines = [f"| {r['type']} | {r['t_mem_s'] * 1e6:.1f} | "
             + (f"{r['alu_bound_flops'] / 1e12:.1f}" if r["alu_bound_flops"] else "–") + " | "
             + (f"{r['balance_ratio']:.2f}" if r["balance_ratio"] else "–") + " | "
             + f"{r['exponent']:.2f} | {r['rms_log_error']:.3f} |"
             for r in width_rows(data["results"])]
    return head + "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", nargs="+", type=Path)
    args = parser.parse_args()
    print("\n".join(table(p) for p in args.raw))


if __name__ == "__main__":
    main()
