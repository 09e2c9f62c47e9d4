"""Add the SASS load-round counts to the records of a space measured before builds counted them.

    python tools/sass_space.py SPACE.json… [--device nvidia] [--workers 16]

On the NVIDIA machine with the CUDA toolkit (ptxas, cuobjdump: ``/usr/local/cuda/bin``). Each ok
record's variant is generated again, built on the device with the options a measurement uses,
and where the binary is the one that was timed (its hash is the record's ``binary_hash``) the
SASS counts of ``gencl.measure._sass`` are written into the record's ``extra["sass"]``, as a
measurement today writes them; records whose binary differs are left as they are and counted.
The file is rewritten in place (atomically); nothing else in it changes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gencl._json import dumps_json
from gencl.api import load
from gencl.generate import generate_many
from gencl.measure import OpenCLEngine
from gencl.measure._sass import toolkit


def counted(engine: OpenCLEngine, record: dict[str, Any], variant: Any) -> str:
    """Count *record*'s SASS into it where its binary is the one timed; what happened."""
    if not hasattr(variant, "source"):
        return "not generated"
    try:
        built = engine.build(variant)  # prebuilt: the memo answers
    except Exception:  # noqa: BLE001 -- it was built when measured: say so, go on
        return "build failed"
    if built.binary_hash != record.get("binary_hash"):
        return "other binary"
    if built.sass is None:
        return "no SASS"
    record.setdefault("extra", {})["sass"] = built.sass
    return "counted"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spaces", type=Path, nargs="+", help="space.json files")
    ap.add_argument("--device", default="nvidia")
    ap.add_argument("--workers", type=int, default=16, help="parallel builds and ptxas runs")
    opts = ap.parse_args(argv)
    if toolkit() is None:
        print("sass_space: ptxas and cuobjdump are not on PATH (the CUDA toolkit)",
              file=sys.stderr)
        return 2
    engine = OpenCLEngine(opts.device)
    for path in opts.spaces:
        start = time.perf_counter()
        data = json.loads(path.read_text())
        spec = load(data["spec"])
        records = [r for r in data["results"] if r.get("status") == "ok"]
        # a point measured before a knob was added takes its default, as the model reads it
        # (gencl.model._explain.space_records); the binary hash says whether that is the build
        variants = generate_many(spec, [{**spec.complete(r["point"]), **r["point"]}
                                        for r in records])
        engine.prebuild([v for v in variants if hasattr(v, "source")], workers=opts.workers)
        with ThreadPoolExecutor(opts.workers) as pool:
            outcomes = list(pool.map(lambda pair: counted(engine, *pair),
                                     zip(records, variants)))
        rewrite(path, data, outcomes, start)
    return 0


def rewrite(path: Path, data: dict[str, Any], outcomes: list[str], start: float) -> None:
    """Write the space *data* back to *path* in place (atomically) and print what happened to its
    records (*outcomes*: one word each) and the seconds since *start*."""
    tmp = path.with_suffix(".counted.tmp")
    tmp.write_text(dumps_json(data, indent=1))
    tmp.replace(path)
    tally = {o: outcomes.count(o) for o in sorted(set(outcomes))}
    print(f"{path}: {tally} ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
