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

The model (``gencl.model._stats._item_trace``) counts one load round an iteration of a loop
the code keeps: every load of the iteration issued, then one wait. ptxas orders the body as
register pressure lets it, so the loads of one iteration may come in several batches, each
waited for before the next is issued. A round here: an instruction reads a register a load
wrote, and that load was issued after the last wait (the warp stalls until its data comes;
the loads issued before it came back with it); a load whose address is a pending load's value
waits the same way. Writes by other instructions end a register's wait.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
BRANCH = re.compile(r"\bBRA\s+(?:`\(\S+\)\s*)?(0x[0-9a-f]+)")
REGISTER = re.compile(r"\bR(\d+)\b")
PREDICATE = re.compile(r"^@!?U?P[T\d]+\s+")


@dataclass(frozen=True)
class LoopRounds:
    """One pass of a loop body: where it starts and ends, what it issues, how often it waits."""
    start: int
    end: int
    instructions: int
    loads: int
    stores: int
    rounds: int


def instructions(sass: str) -> list[tuple[int, str]]:
    """(address, instruction text, its predicate guard included) of every SASS instruction."""
    return [(int(m.group(1), 16), m.group(2)) for m in INSTRUCTION.finditer(sass)]


def longest_loop(code: list[tuple[int, str]]) -> tuple[int, int] | None:
    """(first, last address) of the body of the longest backward branch; None without one."""
    loops = []
    for address, text in code:
        branch = BRANCH.search(text)
        if branch and int(branch.group(1), 16) < address:
            loops.append((int(branch.group(1), 16), address))
    return max(loops, key=lambda loop: loop[1] - loop[0]) if loops else None


def _load_width(opcode: str) -> int:
    """Registers one load writes: ``LDG.E.128`` four, ``.64`` two, else one."""
    return 4 if ".128" in opcode else 2 if ".64" in opcode else 1


def load_rounds(body: list[str]) -> tuple[int, int, int]:
    """(loads, stores, rounds) of one pass of *body* (instruction texts in issue order)."""
    pending: dict[int, int] = {}   # register -> index of the load writing it
    loads = stores = rounds = 0
    covered = -1                   # loads issued up to the last wait came back with it
    for text in body:
        text = PREDICATE.sub("", text)
        opcode, _, operands = text.partition(" ")
        parts = [p.strip() for p in operands.split(",")]
        is_store = opcode.startswith("ST")
        sources = parts if is_store else parts[1:]
        read = {int(r) for r in REGISTER.findall(",".join(sources))}
        if any(pending.get(r, -1) > covered for r in read):
            rounds += 1
            covered = loads - 1
        if opcode.startswith("LDG"):
            first = REGISTER.match(parts[0]) if parts else None
            if first:
                base = int(first.group(1))
                for r in range(base, base + _load_width(opcode)):
                    pending[r] = loads
            loads += 1
            continue
        if opcode.startswith("STG"):
            stores += 1
        if not is_store and parts:
            written = REGISTER.match(parts[0])
            if written:
                pending.pop(int(written.group(1)), None)
    return loads, stores, rounds


def _one_pass(code: list[tuple[int, str]]) -> LoopRounds:
    """*code* (addresses and instructions, in order, at least one) counted as one pass."""
    loads, stores, rounds = load_rounds([text for _, text in code])
    return LoopRounds(code[0][0], code[-1][0], len(code), loads, stores, rounds)


def loop_rounds(sass: str) -> LoopRounds | None:
    """The longest loop of *sass* and one pass of its body; None without a loop."""
    code = instructions(sass)
    loop = longest_loop(code)
    if loop is None:
        return None
    return _one_pass([(address, text) for address, text in code
                      if loop[0] <= address <= loop[1]])


def kernel_rounds(sass: str) -> LoopRounds | None:
    """The whole of a kernel without a loop as one pass, in address order (both sides of a
    branch counted, as they lie in the text); None for text with no instruction."""
    code = instructions(sass)
    return _one_pass(code) if code else None


def sass_of(path: Path) -> str:
    """SASS text of *path*: as it stands, or compiled from PTX (NUL bytes of NVIDIA's OpenCL
    binary dropped) with ptxas and cuobjdump; ValueError where they are missing."""
    data = path.read_bytes()
    if b".entry" not in data and b".version" not in data:
        return data.decode(errors="replace")
    for tool in ("ptxas", "cuobjdump"):
        if shutil.which(tool) is None:
            raise ValueError(f"{path}: a PTX file needs {tool} on PATH (the CUDA toolkit: "
                             "/usr/local/cuda/bin)")
    with tempfile.TemporaryDirectory() as tmp:
        ptx, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        ptx.write_bytes(data.replace(b"\0", b""))
        subprocess.run(["ptxas", "-arch=sm_90", str(ptx), "-o", str(cubin)], check=True)
        return subprocess.run(["cuobjdump", "-sass", str(cubin)], check=True,
                              capture_output=True, text=True).stdout


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
