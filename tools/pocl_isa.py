"""Add the counts of PoCL's work-group machine code to the records of a space measured before
measurements counted it.

    python tools/pocl_isa.py SPACE.json… [--device pocl]

On the machine the space was measured on (its device's name and driver; a space of another
device is refused: the code is that device's compiler's). Each ok record's variant is generated
again; where its source is the one timed (its hash is the record's ``source_hash``) it is built
with the options a measurement uses and launched once at the record's sizes on uninitialised
buffers (PoCL compiles a work-group function for each local size at its first launch), and the
counts a measurement writes today (``extra["isa"]``, ``gencl.measure._isa``) are added to the
record; records whose source differs are left as they are and counted. The file is rewritten in
place (atomically); nothing else in it changes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gencl.api import load
from gencl.generate import generate
from gencl.measure import OpenCLEngine
from gencl.measure._engine import evaluate
from gencl.measure._isa import work_group_isa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sass_space  # noqa: E402 -- the tool beside this one: its atomic rewrite of a space file


def launched_isa(engine: OpenCLEngine, variant: Any, sizes: Mapping[str, int]
                 ) -> dict[str, Any] | None:
    """Build *variant*, launch it once at *sizes* on uninitialised buffers (only the code
    matters) and count its work-group function (None where it cannot be found)."""
    import numpy as np
    import pyopencl as cl

    built = engine.build(variant)
    args: list[Any] = []
    for arg in variant.args:
        itemsize = np.dtype(arg.dtype).itemsize
        count = int(np.prod([evaluate(str(s), sizes) for s in arg.shape])) if arg.shape else 0
        if arg.kind == "local":
            args.append(cl.LocalMemory(count * itemsize))
        elif arg.kind == "global":
            args.append(cl.Buffer(engine.ctx, cl.mem_flags.READ_WRITE, max(count, 1) * itemsize))
        else:
            args.append(np.dtype(arg.dtype).type(sizes.get(arg.name, 1)))
    local = [evaluate(str(e), sizes) for e in variant.local_size]
    built.kernel(engine.queue, [evaluate(str(e), sizes) for e in variant.global_size], local,
                 *args).wait()
    return work_group_isa(built.binary, variant.kernel_name, local)


def counted(engine: OpenCLEngine, spec: Any, record: dict[str, Any]) -> str:
    """Count *record*'s work-group code into it where its source is the one timed; what
    happened."""
    point = {**spec.complete(record["point"]), **record["point"]}
    try:
        variant = generate(spec, point)
    except Exception:  # noqa: BLE001 -- it was generated when measured: say so, go on
        return "not generated"
    if variant.source_hash != record.get("source_hash"):
        return "other source"
    try:
        isa = launched_isa(engine, variant, record["sizes"])
    except Exception:  # noqa: BLE001 -- it was built and launched when measured
        return "build or launch failed"
    if isa is None:
        return "no work-group function"
    record.setdefault("extra", {})["isa"] = isa
    return "counted"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spaces", type=Path, nargs="+", help="space.json files")
    ap.add_argument("--device", default="pocl")
    opts = ap.parse_args(argv)
    engine = OpenCLEngine(opts.device)
    for path in opts.spaces:
        start = time.perf_counter()
        data = json.loads(path.read_text())
        device = data.get("device") or {}
        if (device.get("name"), device.get("driver")) != (engine.info.name,
                                                          engine.info.driver):
            print(f"{path}: device: measured on {device.get('name')!r} "
                  f"(driver {device.get('driver')!r}), not this machine's "
                  f"{engine.info.name!r} ({engine.info.driver!r})", file=sys.stderr)
            return 2
        spec = load(data["spec"])
        outcomes = [counted(engine, spec, r) for r in data["results"]
                    if r.get("status") == "ok"]
        sass_space.rewrite(path, data, outcomes, start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
