"""gencl.measure._sass: what a Measurement keeps of a kernel's SASS, and when it keeps nothing
(the CUDA toolkit's ptxas is only on the GPU machine; the counting itself is tested on SASS
text here and in tests/tools_tests/test_sass_rounds.py)."""

from __future__ import annotations

from gencl.measure._sass import is_ptx, load_round_counts, sass_counts


def sass(*lines: str) -> str:
    """cuobjdump's layout: an address comment, the instruction, its encoding comment."""
    return "\n".join(f"        /*{16 * i:04x}*/                   {text} ;"
                     f"      /* 0x000000101e257981 */" for i, text in enumerate(lines))


STRAIGHT = sass(
    "LDG.E.CONSTANT R4, desc[UR4][R2.64]",
    "LDG.E.CONSTANT R5, desc[UR4][R2.64+0x4]",
    "FADD R6, R4, R5",                              # round 1: both came
    "LDG.E.CONSTANT R7, desc[UR4][R2.64+0x8]",      # issued after the wait
    "FADD R6, R6, R7",                              # round 2
    "STG.E desc[UR4][R8.64], R6",
    "EXIT",
)


def test_straight_line_sass_is_counted_whole():
    assert load_round_counts(STRAIGHT) == {"loop": False, "instructions": 7, "loads": 3,
                                           "stores": 1, "rounds": 2}


def test_a_loop_is_counted_whole_and_a_pass_of_it():
    looped = sass("MOV R1, c[0x0][0x28]", "LDG.E R4, desc[UR4][R2.64]", "FADD R5, R4, R4",
                  "STG.E desc[UR4][R8.64], R5", "@P0 BRA 0x10", "EXIT")
    counts = load_round_counts(looped)
    assert counts["loop"] and counts["rounds"] == 1
    assert counts["loop_pass"] == {"instructions": 4, "loads": 1, "stores": 1, "rounds": 1}


def test_no_instruction_no_counts():
    assert load_round_counts("Fatbin elf code:\n") is None


def test_only_ptx_is_compiled(monkeypatch):
    """A CPU runtime's binary (or none) is not PTX: nothing to count, and no tool is run."""
    ptx = b"//\n.version 8.5\n.target sm_90\n.visible .entry k()\n{\nret;\n}\n\0"
    assert is_ptx(ptx) and not is_ptx(b"\x7fELF\x02\x01") and not is_ptx(b"")
    assert sass_counts(b"\x7fELF\x02\x01") is None and sass_counts(b"") is None
    monkeypatch.setenv("GENCL_NO_SASS", "1")
    assert sass_counts(ptx) is None
