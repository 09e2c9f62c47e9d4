"""How many times a kernel's loop waits for global loads in one pass of its body, from SASS.

    python tools/sass_rounds.py FILE… [--json]

FILE is ``cuobjdump -sass`` text, or a PTX file as NVIDIA's OpenCL build returns it (the
binary ``gencl verify --knob … --ptx --json FILE`` and ``tools/unroll_probe.py`` keep), which is
compiled first (``ptxas -arch=sm_90``, ``cuobjdump -sass``: the CUDA toolkit on PATH). One line a
file: the longest loop of its kernel (a backward branch), and in one pass of its body the
instructions, the global loads (``LDG``) and stores (``STG``, so a body the compiler unrolled
can be divided by its stores), and the load rounds: the times the pass stops for a load's data.
A kernel without a loop is counted whole, in address order ("no loop: kernel"; both sides of a
branch count, as the text holds them).

The counting is ``gencl.measure._sass``'s, which a build on NVIDIA also runs where the toolkit
is present (each Measurement's ``extra["sass"]``). The model (``gencl.model._stats._item_trace``)
counts one load round an iteration of a loop the code keeps: every load of the iteration issued,
then one wait. ptxas orders the body as
register pressure lets it, so the loads of one iteration may come in several batches, each
waited for before the next is issued. A round here: an instruction reads a register a load
wrote, and that load was issued after the last wait (the warp stalls until its data comes;
the loads issued before it came back with it); a load whose address is a pending load's value
waits the same way. Writes by other instructions end a register's wait.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from gencl.measure._sass import is_ptx, kernel_rounds, loop_rounds, sass_text, toolkit


def sass_of(path: Path) -> str:
    """SASS text of *path*: as it stands, or compiled from PTX with ptxas and cuobjdump;
    ValueError where they are missing."""
    data = path.read_bytes()
    if not is_ptx(data):
        return data.decode(errors="replace")
    tools = toolkit()
    if tools is None:
        raise ValueError(f"{path}: a PTX file needs ptxas and cuobjdump on PATH (the CUDA "
                         "toolkit: /usr/local/cuda/bin)")
    return sass_text(data, tools)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", type=Path, nargs="+", help="SASS text or NVIDIA PTX files")
    ap.add_argument("--json", action="store_true", help="one JSON object a line")
    opts = ap.parse_args(argv)
    for path in opts.files:
        if not path.is_file():
            print(f"sass_rounds: {path}: no such file", file=sys.stderr)
            return 2
        try:
            sass = sass_of(path)
        except ValueError as err:
            print(f"sass_rounds: {err}", file=sys.stderr)
            return 2
        found, what = loop_rounds(sass), "loop"
        if found is None:  # straight-line code: the whole kernel is the one pass
            found, what = kernel_rounds(sass), "no loop: kernel"
        if opts.json:
            print(json.dumps({"file": str(path), "loop": what == "loop",
                              **(asdict(found) if found else {})}))
        elif found is None:
            print(f"{path}\tno instructions")
        else:
            print(f"{path}\t{what} {found.start:#x}-{found.end:#x}\tinstructions "
                  f"{found.instructions}\tloads {found.loads}\tstores {found.stores}\t"
                  f"rounds {found.rounds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
