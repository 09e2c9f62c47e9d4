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
often each runs. Stored in each Measurement (``extra["isa"]``) as the build log and NVIDIA's
SASS counts are, and read by the model (``gencl.model._vector_rate.with_isa``).
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

#: objdump -d --no-show-raw-insn: "  4011a0:\tvmovups (%rdi),%zmm0"
INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\t(\S+)\s*(.*)$")
#: whole vectors moved at once (a vectorized loop's loads and stores, but also PoCL's copies of
#: its work-group context, 128-bit, in code whose items run one at a time)
PACKED_MOVES = frozenset(("vmovups", "vmovaps", "movups", "movaps", "vmovupd", "vmovapd",
                          "movupd", "movapd"))
SCALAR_MOVES = frozenset(("vmovss", "movss", "vmovsd", "movsd"))
#: arithmetic on packed floats or doubles (``vaddps``, ``vfmadd231ps``, ``mulpd``): the lanes
#: of a vectorized loop, or of an item's own ``floatN``
PACKED_ARITHMETIC = re.compile(r"^v?(add|sub|mul|div|min|max|sqrt|fn?m(add|sub)\d*)p[sd]$")
#: a work-group function's entry in PoCL's program binary
ENTRY = re.compile(rb"/([A-Za-z_]\w*)/(\d+)-(\d+)-(\d+)-goffs0[\w-]*/\1\.so")
#: the program's folder in PoCL's kernel cache, as its binary names it
PROGRAM_FOLDER = re.compile(rb"(?<![A-Za-z])([A-Z]{2}/[A-Z]{20,})(?![A-Za-z])")


def count_instructions(disassembly: str) -> dict[str, int]:
    """Counts of the instructions in ``objdump -d --no-show-raw-insn`` text: all of them, those
    naming a zmm / ymm / xmm register (each at its widest), packed and scalar floating-point
    moves, gathers and scatters, arithmetic on packed floating-point values and the widest
    register it names (``packed_arithmetic_bits``)."""
    counts = collections.Counter(dict.fromkeys(
        ("instructions", "zmm", "ymm", "xmm", "packed_moves", "scalar_moves", "gathers",
         "scatters", "packed_arithmetic", "packed_arithmetic_bits"), 0))
    for line in disassembly.splitlines():
        match = INSTRUCTION.match(line)
        if not match:
            continue
        mnemonic, operands = match.groups()
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
    return dict(counts)


def widest_vector_bits(counts: Mapping[str, int]) -> int:
    """Bits of the widest register the code names (0: none)."""
    return next((bits for bits, reg in ((512, "zmm"), (256, "ymm"), (128, "xmm"))
                 if counts.get(reg)), 0)


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
    counts = count_instructions(done.stdout)
    return {**counts, "widest_vector_bits": widest_vector_bits(counts)}

