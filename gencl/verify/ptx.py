"""PTX inspection: does the code NVIDIA's compiler emitted do what the knob promised?

A knob can be silently undone: loopy falls back to scalar code, the compiler folds an arithmetic
chain, registers spill to local memory, a ``__local`` argument turns into something else. Each rule
here is a regular expression over the PTX instructions (comments stripped) with the least number
of times it must occur, or a pattern that must not occur. Pure functions of text; the caller
decides what to check (``rules_for``) and where the PTX came from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gencl.model._registers import SPILLS_IN_LOG

#: Vector loads/stores (``ld.global.v4.f32``, ``st.shared.v2.u32``, ``ld.global.nc.v4.f32``).
VECTOR_LOAD = r"\bld(?:\.\w+)*?\.v[24]\."
VECTOR_STORE = r"\bst(?:\.\w+)*?\.v[24]\."
#: Thread-private memory traffic: register spills or private arrays that did not fit registers.
LOCAL_TRAFFIC = r"\b(?:ld|st)\.local\b"
#: A statically sized ``__local`` array: a ``.shared`` variable declaration.
SHARED_DECLARATION = r"^\s*(?:\.extern\s+)?\.shared\s+\.align\b"
#: A ``__local`` kernel argument: a parameter that points into shared memory.
SHARED_POINTER_PARAM = r"\.param\s+\.u(?:32|64)\s+\.ptr\s+\.shared\b"


def is_ptx(binary: bytes | str) -> bool:
    """Whether a program binary is PTX text (NVIDIA's OpenCL returns PTX as the binary)."""
    head = binary[:4096].decode("ascii", "replace") if isinstance(binary, bytes) else binary[:4096]
    return head.lstrip().startswith("//") or ".target" in head


def instructions(ptx: str) -> str:
    """PTX without comments, so that a rule never matches a file header or a source line."""
    ptx = re.sub(r"/\*.*?\*/", "", ptx, flags=re.S)
    return re.sub(r"//[^\n]*", "", ptx)


def count(ptx: str, pattern: str) -> int:
    """How often *pattern* occurs in the instructions of *ptx* (multiline regex)."""
    return len(re.findall(pattern, instructions(ptx), flags=re.M))


def check_ptx(ptx: str, rules: Mapping[str, int]) -> list[str]:
    """Problems with *ptx*: every rule ``{instruction regex: minimum count}`` that it misses.

    A minimum of 0 means "must not occur" (``{r"\\bld\\.local\\b": 0}``): a rule that can only
    pass would check nothing, so 0 is read as a ban. Returns an empty list when all hold.
    """
    body = instructions(ptx)
    problems = []
    for pattern, minimum in rules.items():
        try:
            found = len(re.findall(pattern, body, flags=re.M))
        except re.error as exc:
            problems.append(f"rule {pattern!r} is not a regular expression: {exc}")
            continue
        if minimum == 0 and found:
            problems.append(f"{pattern!r}: found {found}, none allowed")
        elif found < minimum:
            problems.append(f"{pattern!r}: found {found}, at least {minimum} expected")
    return problems


def check_build_log(log: str, *, spills_allowed: bool = False) -> list[str]:
    """Problems in a ``-cl-nv-verbose`` build log: spilled registers (unless allowed)."""
    if spills_allowed:
        return []
    spilled = [int(n) for n in re.findall(SPILLS_IN_LOG, log)]
    if any(spilled):
        return [f"build log reports register spills ({max(spilled)} bytes)"]
    return []


def generic_rules(spec: Any, point: Mapping[str, Any]) -> dict[str, int]:
    """The rules every spec gets, from its knobs' transforms and values.

    - a ``vector`` knob above 1 → vector loads and vector stores (``.v2``/``.v4``);
    - a ``local_memory`` knob: ``static`` → a ``.shared`` declaration, ``dynamic`` → a shared
      pointer parameter;
    - no ``ld.local``/``st.local`` unless the spec declares ``exempt={"spills"}``.
    """
    rules: dict[str, int] = {}
    for name, knob in spec.knobs.items():
        value = point.get(name)
        if knob.transform == "vector" and isinstance(value, int) and value > 1:
            rules[VECTOR_LOAD] = 1
            rules[VECTOR_STORE] = 1
        elif knob.transform == "local_memory" and value == "static":
            rules[SHARED_DECLARATION] = 1
        elif knob.transform == "local_memory" and value == "dynamic":
            rules[SHARED_POINTER_PARAM] = 1
    if "spills" not in spec.exempt:
        rules[LOCAL_TRAFFIC] = 0
    return rules


def rules_for(spec: Any, point: Mapping[str, Any]) -> dict[str, int]:
    """Generic rules plus the spec's own (``spec.ptx_rules(point)``, which win on a clash)."""
    rules = generic_rules(spec, point)
    if spec.ptx_rules is not None:
        for pattern, count in spec.ptx_rules(point).items():
            if count is None:  # the spec lifts a generic rule for this point, and says why
                rules.pop(str(pattern), None)
            else:
                rules[str(pattern)] = int(count)
    return rules
