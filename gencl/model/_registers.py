"""Register pressure: how many work items a compute unit keeps resident, from the registers each
one holds.

A GPU compute unit's register file (``registers_per_block``, NVIDIA's device attribute: 65536
32-bit registers per SM) is shared by its resident work items; an item that holds more registers
leaves room for fewer, so fewer loads are in flight (Little's law, the memory-latency term) and
fewer items pass the compute ridge. An item's registers are the private values it keeps live at
once (``KernelStats.extra["live_private_words"]``, ``gencl.model._liveness``: register-blocked
rows, planes kept along a streamed axis, the lanes of vector gathers it uses) plus the
addresses, indices and loop counters the compiler adds (``ADDRESS_WORDS``). Beyond
``MAX_REGISTERS_PER_ITEM`` the compiler spills.

Where the variant was built, the compiler's own count replaces the estimate: NVIDIA's build log
(``-cl-nv-verbose``, which the engine always asks for there and every Measurement keeps) states
the registers and the bytes of spill stores and loads (``with_build_log``). Spilled values live
in per-item memory that the L1 serves: each spill access of a sub-group is one line request per
``request_line_bytes`` it moves (``spill_requests``), priced with the other cache requests.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

from gencl.model._params import ModelParams
from gencl.model._stats import KernelStats

#: registers an item holds besides its live private values (nominal: 14–24 seen in the PTX of
#: the H200 stencil variants without private arrays; 20 makes the median ratio of the estimate
#: to ptxas's count 0.92–1.28 on each suite kernel it was developed on)
ADDRESS_WORDS = 20
#: registers one work item may hold before the compiler spills (NVIDIA: 255)
MAX_REGISTERS_PER_ITEM = 255


def registers_per_item(stats: KernelStats) -> float:
    """The compiler's count where the build log gave one, else the estimate."""
    if "registers" in stats.extra:
        return float(stats.extra["registers"])
    return float(stats.extra.get("live_private_words", 0.0)) + ADDRESS_WORDS


def resident_items_per_cu(stats: KernelStats, p: ModelParams) -> int:
    """Work items one compute unit holds at once: whole work-groups, within the register file
    (where the device reports one) and the scheduler's limit."""
    limit = p.max_resident_per_cu
    if not p.registers_per_cu:
        return limit
    group = max(1, stats.group_size)
    regs = min(registers_per_item(stats), MAX_REGISTERS_PER_ITEM)
    groups = math.floor(p.registers_per_cu / (regs * group))
    return max(group, min(limit, groups * group))


def spill_bytes_per_item(stats: KernelStats) -> float:
    """Bytes one item stores and loads spilling, from the build log (0 without one: which
    values the compiler spills and how often it reloads them is not estimated)."""
    return float(stats.extra.get("spill_bytes", 0.0))


def spill_requests(stats: KernelStats, p: ModelParams) -> float:
    """Cache-line requests of the spills per launch: a sub-group's 4-byte spill access is one
    line per ``request_line_bytes`` of its lanes (per-item memory is interleaved by lane)."""
    return stats.work_items * spill_bytes_per_item(stats) / max(p.request_line_bytes, 1)


#: ptxas's spill figures in a ``-cl-nv-verbose`` build log (``N bytes spill stores, M bytes
#: spill loads``); ``gencl verify`` checks the same figures
SPILL_BYTES = r"(\d+)\s+bytes\s+spill\s+"
SPILLS_IN_LOG = SPILL_BYTES + "(?:stores|loads)"


@dataclass(frozen=True)
class CompiledResources:
    """What the compiler says one work item of the kernel uses."""

    registers: int
    spill_store_bytes: int
    spill_load_bytes: int


def registers_from_build_log(log: str) -> CompiledResources | None:
    """Registers and spill bytes from NVIDIA's ``-cl-nv-verbose`` build log (``ptxas info :
    Used 40 registers``; ``N bytes spill stores, M bytes spill loads``), None without one."""
    used = re.search(r"Used (\d+) registers", log or "")
    if not used:
        return None
    stores, loads = (int(m.group(1)) if (m := re.search(SPILL_BYTES + kind, log)) else 0
                     for kind in ("stores", "loads"))
    return CompiledResources(int(used.group(1)), stores, loads)


def with_build_log(stats: KernelStats, log: str | None) -> KernelStats:
    """*stats* with the compiler's registers and spills from *log* (unchanged without them)."""
    found = registers_from_build_log(log or "")
    if found is None:
        return stats
    return dataclasses.replace(stats, extra={
        **stats.extra, "registers": found.registers,
        "spill_bytes": found.spill_store_bytes + found.spill_load_bytes})

