"""Register pressure: how many work items a compute unit keeps resident, from the registers each
one holds.

A GPU compute unit's register file (``registers_per_block``, NVIDIA's device attribute: 65536
32-bit registers per SM) is shared by its resident work items; an item that holds more registers
leaves room for fewer, so fewer loads are in flight (Little's law, the memory-latency term) and
fewer items pass the compute ridge. An item's registers are the program's private temporaries
(``KernelStats.extra["private_words"]``: register-blocked rows, planes kept along a streamed axis,
vector temporaries) plus the addresses, indices and loop counters the compiler adds
(``ADDRESS_WORDS``, nominal: NVIDIA's build log, ``-cl-nv-verbose``, states the true count where
a measurement recorded it). Beyond ``MAX_REGISTERS_PER_ITEM`` the compiler spills.
"""

from __future__ import annotations

import math
import re

from gencl.model._params import ModelParams
from gencl.model._stats import KernelStats

#: registers an item holds besides its private temporaries (nominal; seen: 14–24 in the PTX of
#: the H200 stencil variants without private arrays)
ADDRESS_WORDS = 16
#: registers one work item may hold before the compiler spills (NVIDIA: 255)
MAX_REGISTERS_PER_ITEM = 255


def registers_per_item(stats: KernelStats) -> float:
    return float(stats.extra.get("private_words", 0.0)) + ADDRESS_WORDS


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


def spilled_words(stats: KernelStats) -> float:
    """Registers per item beyond the per-item limit (spilled to memory)."""
    return max(0.0, registers_per_item(stats) - MAX_REGISTERS_PER_ITEM)


def registers_from_build_log(log: str) -> tuple[int, int] | None:
    """(registers, spill store bytes) of the kernel from NVIDIA's ``-cl-nv-verbose`` build log
    (``ptxas info : Used 40 registers``; ``N bytes spill stores``), None without one."""
    used = re.search(r"Used (\d+) registers", log or "")
    if not used:
        return None
    spills = re.search(r"(\d+) bytes spill stores", log)
    return int(used.group(1)), int(spills.group(1)) if spills else 0
