"""tools/sass_rounds.py: the waits for global loads in one pass of a loop body, counted on SASS
written as cuobjdump prints it (compiling PTX needs the CUDA toolkit: the GPU machine)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "sass_rounds.py"
_spec = importlib.util.spec_from_file_location("sass_rounds", TOOL)
tool = importlib.util.module_from_spec(_spec)
sys.modules["sass_rounds"] = tool  # its dataclass looks its module up
_spec.loader.exec_module(tool)


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


def test_a_pass_waits_once_for_each_batch_of_loads_it_uses():
    found = tool.loop_rounds(LOOP)
    assert (found.start, found.end) == (0x10, 0xa0)
    assert (found.instructions, found.loads, found.stores, found.rounds) == (10, 5, 1, 4)


def test_loads_issued_together_are_one_round_and_an_overwritten_register_none():
    body = ["LDG.E R4, desc[UR4][R2.64]", "LDG.E R5, desc[UR4][R2.64+0x4]",
            "LDG.E.64 R6, desc[UR4][R2.64+0x8]", "FADD R8, R4, R7", "FADD R8, R5, R6",
            "LDG.E R9, desc[UR4][R2.64+0x10]", "MOV R9, RZ", "FADD R8, R9, R8"]
    assert tool.load_rounds(body) == (4, 0, 1)


def test_the_longest_loop_is_taken_and_a_kernel_without_one_says_so(tmp_path, capsys):
    assert tool.loop_rounds(sass("LDG.E R4, desc[UR4][R2.64]", "STG.E desc[UR4][R6.64], R4",
                                 "EXIT")) is None
    inner_and_outer = sass("NOP", "LDG.E R4, desc[UR4][R2.64]", "@P1 BRA 0x10",
                           "STG.E desc[UR4][R6.64], R4", "@P0 BRA 0x0")
    assert (tool.loop_rounds(inner_and_outer).start, tool.loop_rounds(inner_and_outer).end) \
        == (0x0, 0x40)
    straight = tmp_path / "k.sass"
    straight.write_text(sass("EXIT"))
    looped = tmp_path / "l.sass"
    looped.write_text(LOOP)
    assert tool.main([str(straight), str(looped)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split("\t")[1:] == ["no loop: kernel 0x0-0x0", "instructions 1", "loads 0",
                                      "stores 0", "rounds 0"]
    assert out[1].split("\t")[1:] == ["loop 0x10-0xa0", "instructions 10", "loads 5",
                                      "stores 1", "rounds 4"]
    assert tool.main(["--json", str(looped)]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "file": str(looped), "loop": True, "start": 0x10, "end": 0xa0, "instructions": 10,
        "loads": 5, "stores": 1, "rounds": 4}


def test_a_kernel_without_a_loop_is_one_pass_in_address_order():
    """Two loads issued together, one wait, a third load used after: two rounds; both stores."""
    body = sass("LDG.E R4, desc[UR4][R2.64]", "LDG.E R5, desc[UR4][R2.64+0x4]",
                "FADD R6, R4, R5", "LDG.E R7, desc[UR4][R2.64+0x8]", "FADD R6, R6, R7",
                "STG.E desc[UR4][R8.64], R6", "STG.E desc[UR4][R8.64+0x4], R6", "EXIT")
    found = tool.kernel_rounds(body)
    assert (found.start, found.end, found.instructions) == (0x0, 0x70, 8)
    assert (found.loads, found.stores, found.rounds) == (3, 2, 2)
    assert tool.kernel_rounds("no SASS here") is None


def test_a_missing_file_is_one_line_and_status_2(tmp_path, capsys):
    assert tool.main([str(tmp_path / "none.sass")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"sass_rounds: {tmp_path / 'none.sass'}: no such file"
