"""The `gencl tune --simulate` command that rewrites each committed simulation summary, from what
the summary itself records (its cache, repeat, strategies, budget, seeds, Kernel Tuner or not).

    python tools/resimulate.py                      # print every command under bench_results/
    python tools/resimulate.py --run [PATH …]       # run them (PATH: summaries or folders)

A change to the model or the guided sampler moves every summary; this re-runs each with the
command its README row names, in one go, without copying options by hand.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gencl.tune import SIMULATED_SAMPLERS


def command(summary_path: Path) -> list[str]:
    """The command that writes *summary_path* again."""
    d: dict[str, Any] = json.loads(summary_path.read_text())
    cmd = ["gencl", "tune", d["spec"], "--simulate", "--cache", d["cache"]]
    cmd += [f"--knob={k}={v}" for k, v in (d.get("knobs") or {}).items()]
    repeat = d.get("measurement_repeat")
    if isinstance(repeat, dict) and repeat.get("file"):
        cmd += ["--repeat", repeat["file"]]
    evals = d.get("evals_to_target") or {}
    kt = d.get("kernel_tuner")
    if evals:
        own = [s for s in evals if s in SIMULATED_SAMPLERS]
        if not kt and own != list(SIMULATED_SAMPLERS):
            cmd += ["--strategies", ",".join(own)]
        if d.get("max_evals") and d["max_evals"] != d.get("space_size"):
            cmd += ["--max-evals", str(d["max_evals"])]
        if d.get("seeds") and d["seeds"] != 20:
            cmd += ["--seeds", str(d["seeds"])]
    if not kt and "--strategies" not in cmd:
        cmd += ["--no-kernel-tuner"]
    return cmd + ["--out", str(summary_path.parent)]


def summaries(paths: list[str]) -> list[Path]:
    """Simulation summaries: summary.json in a folder named ``tuning`` or ``…-tuning``."""
    found: list[Path] = []
    for p in map(Path, paths or ["bench_results"]):
        found += [p] if p.is_file() else sorted(
            s for s in p.rglob("summary.json")
            if s.parent.name == "tuning" or s.parent.name.endswith("-tuning"))
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*",
                    help="summary.json files or folders (default bench_results)")
    ap.add_argument("--run", action="store_true", help="run each command (else print them)")
    args = ap.parse_args(argv)
    failed = 0
    for path in summaries(args.paths):
        cmd = command(path)
        print(shlex.join(cmd), flush=True)
        if args.run:
            start = time.monotonic()
            rc = subprocess.run(cmd).returncode
            failed += rc != 0
            print(f"  rc={rc}, {time.monotonic() - start:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
