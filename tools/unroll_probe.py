"""Time variants as generated and with their loops' unrolling forced, and keep their PTX.

    python tools/unroll_probe.py --device nvidia --out DIR [--sizes small]

Each case is built three ways: as gencl generates it, with ``#pragma unroll 1`` before every
loop (the compilers keep each loop rolled: NVVM writes ``.pragma "nounroll"`` into the PTX,
which ptxas obeys) and with ``#pragma unroll 4``. Each is checked against numpy and timed
as ``gencl run`` times a variant; one JSON line a build is printed and ``DIR/rows.json``
collects them, with each build's PTX (``<id>-<how>.ptx``, an NVIDIA binary) and source beside.
SASS: ``tr -d '\\000' < X.ptx > y.ptx; ptxas -arch=sm_90 y.ptx -o y.cubin; cuobjdump -sass
y.cubin``. The cases are docs/tuning.md's ("A tile's fetch loop as the compiler unrolls it"):
Jacobi's local tiles at 32 × 4 and box2d9's streams at 64 × 2, 8192²; ``--sizes small`` runs
a few at 512² (a check of the tool on a CPU).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from gencl.api import load
from gencl.generate import generate
from gencl.measure import OpenCLEngine
from gencl.measure._run import evaluate_variant

JACOBI = {"dtype": "float32", "boundary": "padded", "temporal": "none", "sweeps": 1,
          "temporal_points": [1, 1], "vector_width": 1, "local": "dynamic",
          "workgroup": [32, 4]}
BOX = {"dtype": "float32", "temporal": "none", "sweeps": 1, "temporal_points": [1, 1],
       "workgroup": [64, 2]}


def cases() -> list[tuple[str, dict[str, Any], dict[str, int]]]:
    """(kernel, point, sizes) of every probe."""
    found: list[tuple[str, dict[str, Any], dict[str, int]]] = [
        ("jacobi", {**JACOBI, "block_x": bx, "block_y": by}, {"n": 8192})
        for bx, by in [(1, 1), (1, 2), (1, 4), (2, 1), (2, 2), (2, 4), (4, 1), (4, 2), (4, 4)]]
    found.append(("jacobi", {**JACOBI, "local": "none", "block_x": 2, "block_y": 4},
                  {"n": 8192}))
    found += [("box2d9", {**BOX, "vector_width": vw, "stream": stream}, {"ny": 8192, "nx": 8192})
              for vw in (1, 4, 8) for stream in (4, 16)]
    return found


def with_unroll(source: str, count: int) -> str:
    """*source* with ``#pragma unroll count`` before each of its loops."""
    return re.sub(r"^(\s*)for \(",
                  lambda m: f"{m.group(1)}#pragma unroll {count}\n{m.group(1)}for (",
                  source, flags=re.M)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="nvidia")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sizes", choices=["full", "small"], default="full")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    engine = OpenCLEngine(args.device)
    probes = cases()
    if args.sizes == "small":
        probes = [(k, p, dict.fromkeys(s, 512)) for k, p, s in probes[3:4] + probes[-1:]]
    rows = []
    for kernel, point, sizes in probes:
        spec = load(kernel)
        variant = generate(spec, point)
        for how, source in [("as-generated", variant.source),
                            ("unroll-1", with_unroll(variant.source, 1)),
                            ("unroll-4", with_unroll(variant.source, 4))]:
            built = dataclasses.replace(variant, source=source, id=f"{variant.id}-{how}")
            outcome = evaluate_variant(engine, spec, built, sizes)
            m = outcome.measurement
            row = {"kernel": kernel, "point": point, "sizes": sizes, "how": how,
                   "status": m.status, "reason": m.reason, "median_s": m.median_s,
                   "registers": [int(r) for r in re.findall(r"Used (\d+) registers",
                                                            m.build_log or "")],
                   "id": built.id}
            print(json.dumps(row), flush=True)
            rows.append(row)
            (args.out / f"{built.id}.cl").write_text(source)
            if outcome.built is not None and outcome.built.binary:
                (args.out / f"{built.id}.ptx").write_bytes(outcome.built.binary)
    (args.out / "rows.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
