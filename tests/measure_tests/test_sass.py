"""gencl.measure._sass: the load rounds of a kernel's SASS, and what a Measurement keeps of them
(the CUDA toolkit's ptxas is only on the GPU machine: the counting is tested on SASS text as
cuobjdump prints it)."""

from __future__ import annotations

from gencl.measure._sass import (
    is_ptx, kernel_rounds, load_round_counts, load_rounds, loop_rounds, sass_counts)


def sass(*lines: str) -> str:
    """cuobjdump's layout: an address comment, the instruction, its encoding comment."""
    return "\n".join(f"        /*{16 * i:04x}*/                   {text} ;"
                     f"      /* 0x000000101e257981 */" for i, text in enumerate(lines))


LOOP = sass(
    "MOV R1, c[0x0][0x28]",
    "LDG.E.128.CONSTANT R4, desc[UR4][R2.64]",      # body starts here (the branch's target)
    "LDG.E.CONSTANT R8, desc[UR4][R2.64+0x10]",
    "FADD R9, R4, R8",                              # round 1: both loads come back
    "FADD R9, R5, R9",                              # R5 came with the first round
    "LDG.E.CONSTANT R10, desc[UR4][R2.64+0x20]",
    "FFMA R9, R10, R9, R9",                         # round 2
    "LDG.E.CONSTANT R12, desc[UR4][R10.64]",        # R10 is here already: no wait
    "LDG.E.CONSTANT R13, desc[UR4][R12.64]",        # a chase: round 3
    "STG.E desc[UR4][R6.64], R13",                  # round 4: the store reads R13
    "@P0 BRA 0x10",
    "EXIT",
)

STRAIGHT = sass(
    "LDG.E R4, desc[UR4][R2.64]", "LDG.E R5, desc[UR4][R2.64+0x4]",
    "FADD R6, R4, R5",                              # round 1: both came
    "LDG.E R7, desc[UR4][R2.64+0x8]",               # issued after the wait
    "FADD R6, R6, R7",                              # round 2
    "STG.E desc[UR4][R8.64], R6", "STG.E desc[UR4][R8.64+0x4], R6", "EXIT")


def test_a_pass_waits_once_for_each_batch_of_loads_it_uses():
    found = loop_rounds(LOOP)
    assert (found.start, found.end) == (0x10, 0xa0)
    assert (found.instructions, found.loads, found.stores, found.rounds) == (10, 5, 1, 4)


def test_loads_issued_together_are_one_round_and_an_overwritten_register_none():
    body = ["LDG.E R4, desc[UR4][R2.64]", "LDG.E R5, desc[UR4][R2.64+0x4]",
            "LDG.E.64 R6, desc[UR4][R2.64+0x8]", "FADD R8, R4, R7", "FADD R8, R5, R6",
            "LDG.E R9, desc[UR4][R2.64+0x10]", "MOV R9, RZ", "FADD R8, R9, R8"]
    assert load_rounds(body) == (4, 0, 1)


def test_the_longest_loop_is_taken():
    assert loop_rounds(STRAIGHT) is None
    inner_and_outer = sass("NOP", "LDG.E R4, desc[UR4][R2.64]", "@P1 BRA 0x10",
                           "STG.E desc[UR4][R6.64], R4", "@P0 BRA 0x0")
    found = loop_rounds(inner_and_outer)
    assert (found.start, found.end) == (0x0, 0x40)


def test_a_kernel_without_a_loop_is_one_pass_in_address_order():
    """Two loads issued together, one wait, a third load used after: two rounds; both stores."""
    found = kernel_rounds(STRAIGHT)
    assert (found.start, found.end, found.instructions) == (0x0, 0x70, 8)
    assert (found.loads, found.stores, found.rounds) == (3, 2, 2)
    assert kernel_rounds("no SASS here") is None


def test_a_measurement_keeps_the_kernel_whole_and_a_pass_of_its_loop():
    assert load_round_counts(STRAIGHT) == {"loop": False, "instructions": 8, "loads": 3,
                                           "stores": 2, "rounds": 2}
    counts = load_round_counts(LOOP)
    assert counts["loop"] and counts["loop_pass"] == {"instructions": 10, "loads": 5,
                                                      "stores": 1, "rounds": 4}
    assert load_round_counts("Fatbin elf code:\n") is None


def test_only_ptx_is_compiled(monkeypatch):
    """A CPU runtime's binary (or none) is not PTX: nothing to count, and no tool is run."""
    ptx = b"//\n.version 8.5\n.target sm_90\n.visible .entry k()\n{\nret;\n}\n\0"
    assert is_ptx(ptx) and not is_ptx(b"\x7fELF\x02\x01") and not is_ptx(b"")
    assert sass_counts(b"\x7fELF\x02\x01") is None and sass_counts(b"") is None
    monkeypatch.setenv("GENCL_NO_SASS", "1")
    assert sass_counts(ptx) is None
