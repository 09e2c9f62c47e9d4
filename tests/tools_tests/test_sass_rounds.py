"""tools/sass_rounds.py: the command over gencl.measure._sass (its counting is tested in
tests/measure_tests/test_sass.py; compiling PTX needs the CUDA toolkit: the GPU machine)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from tests.measure_tests.test_sass import LOOP, sass

TOOL = Path(__file__).resolve().parents[2] / "tools" / "sass_rounds.py"
_spec = importlib.util.spec_from_file_location("sass_rounds", TOOL)
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)


def test_a_line_a_file_the_loop_or_the_kernel_whole(tmp_path, capsys):
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


def test_a_missing_file_is_one_line_and_status_2(tmp_path, capsys):
    assert tool.main([str(tmp_path / "none.sass")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"sass_rounds: {tmp_path / 'none.sass'}: no such file"
