"""Malformed specs give one line naming the file and the field; the CLI exits 2, no traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gencl.errors import SpecError
from gencl.spec import load_spec

GOOD = textwrap.dedent('''
    import loopy as lp
    import numpy as np
    from gencl.spec import BenchmarkSpec, Knob

    def program(point):
        return lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = 2 * x[i]",
            [lp.GlobalArg("x", np.float32, shape=("n",)),
             lp.GlobalArg("y", np.float32, shape=("n",), is_output=True, is_input=False),
             lp.ValueArg("n", np.int32)], target=lp.PyOpenCLTarget(), lang_version=(2018, 2))

    SPEC = BenchmarkSpec(
        name="double", description="y = 2x", program=program,
        knobs={"workgroup": Knob("workgroup", (32, 64), {"inames": ("i",)})},
        inputs=lambda p, s, rng: {"x": rng.standard_normal(s["n"]).astype(np.float32)},
        reference=lambda v, p, s: {"y": 2 * v["x"]},
        sizes=lambda p, d, q: {"n": 100},
        sweep=[{"workgroup": 32}],
    )
''')

BROKEN = {
    "syntax": (GOOD.replace("def program(point):", "def program(point)"), "line"),
    "unknown_knob": (GOOD.replace('Knob("workgroup"', 'Knob("warp_shuffle"'),
                     "knobs.workgroup.transform"),
    "value_outside_space": (GOOD.replace('[{"workgroup": 32}]', '[{"workgroup": 48}]'),
                            "sweep[0].workgroup"),
    "invalid_knob_value": (GOOD.replace("(32, 64)", "(32, -4)"), "knobs.workgroup.values"),
    "bad_domain": (GOOD.replace("{[i]: 0 <= i < n}", "{[i]: 0 <= i <"), "program"),
    "missing_reference": (GOOD.replace('reference=lambda v, p, s: {"y": 2 * v["x"]},', ""),
                          "reference"),
    "no_spec": (GOOD.replace("SPEC = ", "OTHER = "), "SPEC"),
}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return path


def test_good_spec_loads(tmp_path):
    spec = load_spec(str(_write(tmp_path, "double", GOOD)))
    assert spec.name == "double" and len(list(spec.points())) == 2


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_malformed_spec_names_file_and_field(tmp_path, case):
    text, field = BROKEN[case]
    path = _write(tmp_path, case, text)
    with pytest.raises(SpecError) as info:
        load_spec(str(path))
    assert str(path) in str(info.value)
    assert info.value.field.startswith(field), info.value
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("case", ["syntax", "unknown_knob", "bad_domain", "missing_reference"])
def test_cli_exit_status_2_one_line(tmp_path, case):
    path = _write(tmp_path, case, BROKEN[case][0])
    proc = subprocess.run([sys.executable, "-m", "gencl", "generate", str(path), "--out",
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("gencl: error:")]
    assert len(lines) == 1 and str(path) in lines[0]


def test_cli_rejects_knob_outside_space(tmp_path):
    path = _write(tmp_path, "double", GOOD)
    proc = subprocess.run([sys.executable, "-m", "gencl", "generate", str(path), "--knob",
                           "workgroup=48", "--out", str(tmp_path / "o")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "knob workgroup" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "gencl", "generate", str(path), "--knob",
                           "tile=4", "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown knob" in proc.stderr
