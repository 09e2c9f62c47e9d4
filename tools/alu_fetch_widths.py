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

from gencl.characterize.alu_fetch import fit_types


def width_rows(results: list[dict]) -> list[dict]:
    """One row a width whose curve has a balance inside the sweep (the analysis fits the overlap
    only there): its label, T_mem (s), ALU-bound FLOP/s, balance ratio, overlap exponent and
    its RMS log-time residual."""
    return [{"type": label, "t_mem_s": t.balance.t_mem,
             "alu_bound_flops": t.value["alu_bound_flops"], "balance_ratio": t.value["ratio"],
             "exponent": t.overlap.exponent, "rms_log_error": t.overlap.rms_log_error}
            for label, t in fit_types(results)[0].items()
            if t.balance and t.value and t.overlap]


def table(path: Path) -> str:
    data = json.loads(path.read_text())
    device = data.get("device", {})
    head = (f"{path}: {device.get('name')}, driver {device.get('driver')}, "
            f"{data.get('date')}\n\n"
            "| type | T_mem µs | ALU-bound TFLOP/s | balance ratio | overlap p | RMS log |\n"
            "|---|---|---|---|---|---|\n")
    lines = [f"| {r['type']} | {r['t_mem_s'] * 1e6:.1f} | {r['alu_bound_flops'] / 1e12:.1f} | "
             f"{r['balance_ratio']:.2f} | {r['exponent']:.2f} | {r['rms_log_error']:.3f} |"
             for r in width_rows(data["results"])]
    return head + "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", nargs="+", type=Path)
    args = parser.parse_args()
    print("\n".join(table(p) for p in args.raw))


if __name__ == "__main__":
    main()
