"""How often a compiled kernel waits for its global loads, read from NVIDIA's SASS.

A build on NVIDIA returns PTX; ptxas schedules it, and the schedule decides how many times an
item stops for load data: ptxas issues a pass's loads in batches as register pressure lets it,
each waited for before the next (docs/tuning.md: the ``float64`` Jacobi rows of one source take 3
rounds at 54 registers and 5 at 44, 376 against 441 µs). The model counts one round for loads
outside a loop the code keeps; the SASS counts what runs. Counted at build time where the CUDA
toolkit is present (``ptxas``, ``cuobjdump``; the GPU host's ``/usr/local/cuda/bin``), stored in
each Measurement (``extra["sass"]``) as the build log is, and read by the model
(``gencl.model._schedule.with_sass``).

A round: an instruction reads a register a load wrote, and that load was issued after the last
wait (the warp stalls until its data comes; the loads issued before it came back with it); a
load whose address is a pending load's value waits the same way. Writes by other instructions
end a register's wait. ``loop_rounds``: one pass of the longest loop (a backward branch);
``kernel_rounds``: a kernel without a loop counted whole, in address order (both sides of a
branch count, as the text holds them).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

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


def toolkit() -> tuple[str, str] | None:
    """Paths of ptxas and cuobjdump: on PATH, else in ``/usr/local/cuda/bin``; None without."""
    found = []
    for tool in ("ptxas", "cuobjdump"):
        path = shutil.which(tool) or shutil.which(tool, path="/usr/local/cuda/bin")
        if path is None:
            return None
        found.append(path)
    return found[0], found[1]


def is_ptx(binary: bytes) -> bool:
    """Whether *binary* is PTX text (NVIDIA's OpenCL binary), not another vendor's object."""
    return b".entry" in binary and b".version" in binary


def sass_text(ptx: bytes, tools: tuple[str, str]) -> str:
    """SASS of *ptx* (NUL bytes of NVIDIA's OpenCL binary dropped), compiled by ptxas for the
    PTX's own ``.target`` and disassembled by cuobjdump; CalledProcessError where they fail."""
    ptxas, cuobjdump = tools
    data = ptx.replace(b"\0", b"")
    target = re.search(rb"\.target\s+(sm_\w+)", data)
    arch = target.group(1).decode() if target else "sm_90"
    with tempfile.TemporaryDirectory() as tmp:
        source, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        source.write_bytes(data)
        subprocess.run([ptxas, f"-arch={arch}", str(source), "-o", str(cubin)], check=True,
                       capture_output=True, timeout=120)
        return subprocess.run([cuobjdump, "-sass", str(cubin)], check=True,
                              capture_output=True, text=True, timeout=120).stdout


def load_round_counts(sass: str) -> dict[str, Any] | None:
    """What a Measurement keeps of *sass*: ``loop`` (whether the kernel keeps a loop), the
    kernel counted whole (``instructions``, ``loads``, ``stores``, ``rounds``) and, with a
    loop, one pass of it (``loop_pass``); None for text with no instruction."""
    whole = kernel_rounds(sass)
    if whole is None:
        return None
    loop = loop_rounds(sass)
    counts: dict[str, Any] = {"loop": loop is not None,
                              **{k: v for k, v in asdict(whole).items()
                                 if k not in ("start", "end")}}
    if loop is not None:
        counts["loop_pass"] = {k: v for k, v in asdict(loop).items()
                               if k not in ("start", "end")}
    return counts


def sass_counts(binary: bytes) -> dict[str, Any] | None:
    """``load_round_counts`` of a built kernel's SASS; None where *binary* is not PTX, the
    toolkit is absent or ptxas refuses it (GENCL_NO_SASS=1: never; a build does not wait
    for it)."""
    if os.environ.get("GENCL_NO_SASS") or not binary or not is_ptx(binary):
        return None
    tools = toolkit()
    if tools is None:
        return None
    try:
        return load_round_counts(sass_text(binary, tools))
    except (subprocess.SubprocessError, OSError):
        return None
