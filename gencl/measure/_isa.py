"""What a CPU runtime compiled for a work-group, read from PoCL's binary: the machine code of the
work-group function, counted.

PoCL runs a work-group as a loop over its items and leaves vectorizing that loop to LLVM. Where
LLVM vectorizes it, an item is one lane of a packed instruction; where it does not, the items
run one at a time (a work-group narrower than the vector loop's step, a kernel that assembles a
``floatN`` lane by lane); where it vectorizes with gathers, each lane's load is an element of a
gather. On the 2-core EPYC that decides a Jacobi variant's time more than anything loopy counts
(docs/tuning.md, "What PoCL compiled for the EPYC's Jacobi slice"): the variants it ran one item
at a time measured 1.6–2.9× the price the model gave them as lanes.

PoCL compiles a work-group function for each local size at its first launch into its kernel
cache, in the program's folder there (``<cache>/<XY>/<hash>/<kernel>/<x>-<y>-<z>-goffs0…/
<kernel>.so``; the cache is ``$POCL_CACHE_DIR``, else ``$XDG_CACHE_HOME/pocl/kcache``, else
``~/.cache/pocl/kcache``). The program's binary (``CL_PROGRAM_BINARIES``) names that folder, and
holds the functions the folder had when the program was built, each an entry named
``/<kernel>/<x>-<y>-<z>-goffs0…/<kernel>.so`` (a 32-bit length, the name, a 32-bit length, the
ELF). ``work_group_isa`` takes the function of a kernel and local size from the binary or from
the folder it names, and counts its instructions with ``objdump -d`` (binutils; None without it,
or where neither holds the function: another runtime, PoCL's kernel cache turned off, a format
PoCL changed). The counts are static (every path the code holds: the vectorized loop, its
remainder, the boundary cases), so they say which kinds of code the runtime emitted, not how
often each runs; ``loop_gathers`` adds what one loop does a pass: the elements an item gathers
and scatters in the loop that gathers most. Stored in each Measurement (``extra["isa"]``) as the
build log and NVIDIA's SASS counts are, and read by the model
(``gencl.model._vector_rate.with_isa``).
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: objdump -d --no-show-raw-insn: "  4011a0:\tvmovups (%rdi),%zmm0" (address, mnemonic, operands)
INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\s*(.*)$")
#: whole vectors moved at once (a vectorized loop's loads and stores, but also PoCL's copies of
#: its work-group context, 128-bit, in code whose items run one at a time)
PACKED_MOVES = frozenset(("vmovups", "vmovaps", "movups", "movaps", "vmovupd", "vmovapd",
                          "movupd", "movapd"))
SCALAR_MOVES = frozenset(("vmovss", "movss", "vmovsd", "movsd"))
#: arithmetic on packed floats or doubles (``vaddps``, ``vfmadd231ps``, ``mulpd``): the lanes
#: of a vectorized loop, or of an item's own ``floatN``
PACKED_ARITHMETIC = re.compile(r"^v?(add|sub|mul|div|min|max|sqrt|fn?m(add|sub)\d*)p[sd]$")
#: a gather's destination, the last register it names: "vgatherdps (%rdi,%ymm16,4),%ymm14{%k3}"
GATHER_DESTINATION = re.compile(r"%([xyz])mm\d+(?:\{[^}]*\})*\s*$")
#: a scatter's source, the first operand: "vscatterdps %ymm14,(%rdx,%ymm16,4){%k3}"
SCATTER_SOURCE = re.compile(r"^%([xyz])mm")
#: a jump and its target: "jne    14d0 <_pocl_kernel_jacobi+0x4d0>"
JUMP_TARGET = re.compile(r"^([0-9a-f]+)\s+<")
#: an induction step: "add    $0x8,%rax", "add    $0xfffffffffffffff0,%rax", "sub    $0x10,%rcx"
STEP = re.compile(r"^\$(0x[0-9a-f]+),%(\w+)$")
#: a work-group function's entry in PoCL's program binary
ENTRY = re.compile(rb"/([A-Za-z_]\w*)/(\d+)-(\d+)-(\d+)-goffs0[\w-]*/\1\.so")
#: the program's folder in PoCL's kernel cache, as its binary names it
PROGRAM_FOLDER = re.compile(rb"(?<![A-Za-z])([A-Z]{2}/[A-Z]{20,})(?![A-Za-z])")


def count_instructions(disassembly: str, row_items: int | None = None) -> dict[str, float]:
    """Counts of the instructions in ``objdump -d --no-show-raw-insn`` text: all of them, those
    naming a zmm / ymm / xmm register (each at its widest), packed and scalar floating-point
    moves, gathers and scatters, arithmetic on packed floating-point values and the widest
    register it names (``packed_arithmetic_bits``); and the elements an item gathers and
    scatters a pass of the most-gathering loop (``loop_gathers``; *row_items*: the work-group's
    items along x)."""
    counts = collections.Counter(dict.fromkeys(
        ("instructions", "zmm", "ymm", "xmm", "packed_moves", "scalar_moves", "gathers",
         "scatters", "packed_arithmetic", "packed_arithmetic_bits"), 0))
    for line in disassembly.splitlines():
        match = INSTRUCTION.match(line)
        if not match:
            continue
        _, mnemonic, operands = match.groups()
        counts["instructions"] += 1
        bits = 0
        for width, wide in (("zmm", 512), ("ymm", 256), ("xmm", 128)):
            if f"%{width}" in operands:
                counts[width] += 1
                bits = wide
                break
        if PACKED_ARITHMETIC.match(mnemonic):
            counts["packed_arithmetic"] += 1
            counts["packed_arithmetic_bits"] = max(counts["packed_arithmetic_bits"], bits)
        counts["packed_moves"] += mnemonic in PACKED_MOVES
        counts["scalar_moves"] += mnemonic in SCALAR_MOVES
        counts["gathers"] += "gather" in mnemonic
        counts["scatters"] += "scatter" in mnemonic
    return {**counts, **loop_gathers(disassembly, row_items)}


def _lanes(mnemonic: str, operands: str) -> int:
    """Elements one gather or scatter moves: its vector register's bits over the element's
    (``…ps``/``…dd`` 32-bit, ``…pd``/``…qq`` 64-bit); a scatter's source register is its
    first operand, a gather's destination its last."""
    bits = 64 if mnemonic.endswith(("pd", "qq")) else 32
    width = SCATTER_SOURCE.match(operands) if "scatter" in mnemonic \
        else GATHER_DESTINATION.search(operands)
    return {"x": 128, "y": 256, "z": 512}[width.group(1)] // bits if width else 1


def _step(body: Sequence[tuple[int, str, str]]) -> int | None:
    """Items one pass of a vectorized work-item loop covers: the immediate of the add or sub
    that counts them (PoCL's loops count items, up or down): the one on the register the last
    compare before the jump back tests, else one whose flags a conditional jump tests at once
    (a counter that leaves the loop); None where neither is found or it is no item count (a
    byte offset past 64)."""
    steps: list[tuple[int, str, bool]] = []
    tested = None
    for k, (_, mnemonic, operands) in enumerate(body[:-1]):
        if mnemonic.startswith(("cmp", "test")):
            tested = operands.rsplit(",", 1)[-1].lstrip("%")
        match = STEP.match(operands.replace(" ", ""))
        if match and mnemonic.startswith(("add", "sub")):
            step = int(match.group(1), 16)
            step = (1 << 64) - step if step >= 1 << 63 else step
            steps.append((step, match.group(2), body[k + 1][1].startswith("j")))
    chosen = [st for st, reg, _ in steps if reg == tested] or \
        [st for st, _, exits in steps if exits]
    return chosen[-1] if chosen and 1 < chosen[-1] <= 64 else None


def loop_gathers(disassembly: str, row_items: int | None = None) -> dict[str, float]:
    """Elements a work item gathers and scatters in one pass of the function's loops, at the
    loop that gathers most: a loop is a jump back, its body the instructions from the target to
    the jump; each gather moves its register's elements (``_lanes``), shared by the items one
    pass covers (``_step``; where no item counter is found, a row of the work-group,
    *row_items*: a loop over the group's rows whose row LLVM unrolled into vectors, a local
    tile's, counts bytes; else the widest gather's or scatter's elements).
    A vectorized work-item loop that loads a neighbour it cannot prove contiguous gathers one
    element an item per gather (Jacobi's branch form in one-row groups on the EPYC: six an item,
    against one in taller groups); static counts of the whole function cannot tell those from
    the gathers of a path that seldom runs."""
    code = [(int(m.group(1), 16), m.group(2), m.group(3))
            for m in map(INSTRUCTION.match, disassembly.splitlines()) if m]
    best = (0.0, 0.0)  # (gathered, scattered) an item a pass; the most gathered, then scattered
    for i, (address, mnemonic, operands) in enumerate(code):
        target = JUMP_TARGET.match(operands) if mnemonic.startswith("j") else None
        if not target or int(target.group(1), 16) > address:
            continue
        start = int(target.group(1), 16)
        body = [c for c in code[:i + 1] if c[0] >= start]
        moved = [(m, _lanes(m, o)) for _, m, o in body if "gather" in m or "scatter" in m]
        if moved:
            items = _step(body) or row_items or max(n for _, n in moved)
            best = max(best, (sum(n for m, n in moved if "gather" in m) / items,
                              sum(n for m, n in moved if "scatter" in m) / items))
    return {"loop_gathers_per_item": best[0], "loop_scatters_per_item": best[1]}


def widest_vector_bits(counts: Mapping[str, float]) -> int:
    """Bits of the widest register the code names (0: none)."""
    return next((bits for bits, reg in ((512, "zmm"), (256, "ymm"), (128, "xmm"))
                 if counts.get(reg)), 0)


#: the narrowest packed register of x86 (SSE): an item's own vector lives in one at least this
#: wide, and an item's scalar code may use some for its index arithmetic
NARROWEST_PACKED_BITS = 128


def vectorized_across_items(isa: Mapping[str, Any], access_bits: int) -> bool:
    """Whether the runtime ran the work-group's items as lanes of packed instructions, by the
    counts of its work-group function (``count_instructions``): the code does arithmetic on
    packed vectors wider than the register the widest vector an item's code holds needs
    (*access_bits*, at least ``NARROWEST_PACKED_BITS``: a ``float4`` item's own 128-bit
    vectors, a ``float2`` item's in 128-bit registers and a one-wide streamed item's 128-bit
    index arithmetic are not a loop over items vectorized; the EPYC's box2d25 runs such
    items at 20–30 cycles each, one at a time; packed moves alone are not either: PoCL copies
    its work-group context with them). On a CPU whose widest registers are 128 bits, items run
    as lanes would not be seen so."""
    return int(isa.get("packed_arithmetic_bits") or 0) > max(access_bits, NARROWEST_PACKED_BITS)


def work_group_functions(binary: bytes) -> dict[tuple[str, tuple[int, ...]], bytes]:
    """The work-group functions a PoCL program binary holds: (kernel, local size) → ELF bytes
    (the first entry of each; {} for a binary of another format)."""
    found: dict[tuple[str, tuple[int, ...]], bytes] = {}
    for match in ENTRY.finditer(binary):
        start, end = match.span()
        if start < 4 or int.from_bytes(binary[start - 4:start], "little") != end - start:
            continue  # not a length-prefixed entry name
        size = int.from_bytes(binary[end:end + 4], "little")
        body = binary[end + 4:end + 4 + size]
        if len(body) != size or not body.startswith(b"\x7fELF"):
            continue
        key = (match.group(1).decode(), tuple(int(match.group(k)) for k in (2, 3, 4)))
        found.setdefault(key, body)
    return found


def pocl_cache() -> Path:
    """PoCL's kernel cache folder."""
    if os.environ.get("POCL_CACHE_DIR"):
        return Path(os.environ["POCL_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pocl" / "kcache"


def cached_work_group_function(binary: bytes, kernel: str, size: tuple[int, ...],
                               cache: Path | None = None) -> bytes | None:
    """*kernel*'s work-group function for local *size* from the kernel cache folder the
    program's *binary* names (PoCL puts it there at the first launch of that size)."""
    root = cache or pocl_cache()
    for match in PROGRAM_FOLDER.finditer(binary):
        folder = root / match.group(1).decode() / kernel
        found = sorted(folder.glob(f"{size[0]}-{size[1]}-{size[2]}-goffs0*/{kernel}.so"))
        if found:
            return found[0].read_bytes()
    return None


def work_group_isa(binary: bytes, kernel: str, local_size: Sequence[int], *,
                   cache: Path | None = None) -> dict[str, Any] | None:
    """The instruction counts of *kernel*'s work-group function for *local_size*, from a PoCL
    program binary or the kernel cache folder it names (after a launch of that size), with
    ``widest_vector_bits``; None where neither holds it or objdump is not installed."""
    size = tuple(int(s) for s in local_size) + (1,) * (3 - len(local_size))
    elf = None
    if binary:
        elf = work_group_functions(binary).get((kernel, size)) \
            or cached_work_group_function(binary, kernel, size, cache)
    objdump = shutil.which("objdump")
    if elf is None or objdump is None:
        return None
    # a count the measurement can go without: nothing here may fail the variant
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{kernel}.so"
            path.write_bytes(elf)
            done = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(path)],
                                  capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    counts = count_instructions(done.stdout, size[0])
    return {**counts, "widest_vector_bits": widest_vector_bits(counts)}

