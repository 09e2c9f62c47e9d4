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
    # the spec's own functions, called on the probe point at load time
    "negative_size": (GOOD.replace('{"n": 100}', '{"n": -5}'), "sizes.n"),
    "sizes_not_a_dict": (GOOD.replace('{"n": 100}', '[100]'), "sizes"),
    "sizes_raises": (GOOD.replace('{"n": 100}', '{"n": 1 // 0}'), "sizes"),
    "undefined_array": (GOOD.replace('"y[i] = 2 * x[i]"', '"y[i] = 2 * z[i]"'), "program"),
    "program_returns_none": (GOOD.replace("def program(point):\n",
                                          "def program(point):\n    return None\n"), "program"),
    "reference_raises": (GOOD.replace('2 * v["x"]}', '2 * v["q"]}'), "reference"),
    "reference_wrong_shape": (GOOD.replace('2 * v["x"]}', '2 * v["x"][:50]}'), "reference.y"),
    "reference_wrong_dtype": (GOOD.replace('2 * v["x"]}', '2 * v["x"].astype(float)}'),
                              "reference.y"),
    "reference_not_an_output": (GOOD.replace('{"y": 2 * v["x"]}', '{"x": 2 * v["x"]}'),
                                "reference.x"),
    "inputs_wrong_dtype": (GOOD.replace(".astype(np.float32)}", "}"), "inputs.x"),
    "inputs_missing": (GOOD.replace('{"x": rng', '{"xx": rng'), "inputs"),
    # the import itself
    "sys_exit": (GOOD + "\nimport sys\nsys.exit(3)\n", "line 22"),  # the sys.exit line
    "keyboard_interrupt": (GOOD + "\nraise KeyboardInterrupt\n", "import"),
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


def test_a_tuple_knob_given_as_space_json_writes_it():
    """space.json writes a work-group as [32, 4, 1]; the same list given back is the tuple."""
    from gencl.spec import check_point, find_spec_file

    spec = load_spec(find_spec_file("laplace3d"), check_program=False)
    point = check_point(spec, {"workgroup": [32, 4, 1]})
    assert point["workgroup"] == (32, 4, 1) and isinstance(point["workgroup"], tuple)
    with pytest.raises(SpecError, match="knob workgroup"):
        check_point(spec, {"workgroup": [32, 3, 1]})


def test_import_that_hangs_is_cut_off(tmp_path, monkeypatch):
    import loopy  # noqa: F401 -- imported already, so the time limit falls in the loop

    monkeypatch.setenv("GENCL_SPEC_TIMEOUT_S", "1")
    text = GOOD + "\nwhile True:\n    pass\n"
    loop = text.splitlines().index("while True:") + 1
    path = _write(tmp_path, "hang", text)
    with pytest.raises(SpecError, match="longer than 1 s") as info:
        load_spec(str(path))
    assert info.value.file == str(path)
    assert info.value.field in (f"line {loop}", f"line {loop + 1}")
    path = _write(tmp_path, "sizes_hang", GOOD.replace('{"n": 100}', '[0 for _ in iter(int, 1)]'))
    with pytest.raises(SpecError, match="did not return within 1 s") as info:
        load_spec(str(path))
    assert info.value.field == "sizes"


def test_a_directory_is_said_to_be_one(tmp_path):
    with pytest.raises(SpecError, match="is a directory"):
        load_spec(str(tmp_path))


def test_probe_runs_once_per_spec_identity(tmp_path, monkeypatch):
    """The probe's outcome is cached on disk: a second load calls sizes() no more; an edit does."""
    from gencl.spec import _load

    monkeypatch.setenv("GENCL_CACHE_DIR", str(tmp_path / "cache"))
    calls = tmp_path / "calls"
    counting = GOOD.replace('sizes=lambda p, d, q: {"n": 100},', 'sizes=sizes,').replace(
        "SPEC = ", f"def sizes(p, d, q):\n    open({str(calls)!r}, 'a').write('x')\n"
                   "    return {'n': 100}\n\nSPEC = ")
    path = _write(tmp_path, "counting", counting)
    spec = load_spec(str(path))
    assert spec.size_names == ("n",) and calls.read_text() == "x"
    _load._CACHE.clear()  # a new command: nothing in memory
    load_spec(str(path))
    assert calls.read_text() == "x"
    path.write_text(counting.replace("2 * x[i]", "3 * x[i]").replace('2 * v["x"]', '3 * v["x"]'))
    load_spec(str(path))
    assert calls.read_text() == "xx"


def test_a_module_the_spec_imports_is_part_of_its_identity(tmp_path, monkeypatch):
    """A helper beside the spec, or a gencl module, that the spec imports is hashed with its
    text: an edit there changes the spec's source_hash (a resumed profile re-measures), an edit
    of an unrelated file or of a third-party module's place does not."""
    import ast

    from gencl.spec import _load

    monkeypatch.setenv("GENCL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    helper = tmp_path / "gencl_test_scale_helper.py"
    helper.write_text("FACTOR = 2\n")
    text = GOOD.replace("from gencl.spec import",
                        "from gencl_test_scale_helper import FACTOR\nfrom gencl.spec import")
    path = _write(tmp_path, "scaled", text)
    first = load_spec(str(path)).source_hash
    (tmp_path / "unrelated.py").write_text("X = 1\n")
    _load._CACHE.clear()
    assert load_spec(str(path)).source_hash == first
    helper.write_text("FACTOR = 3\n")
    _load._CACHE.clear()
    assert load_spec(str(path)).source_hash != first
    # the benchmark specs: the gencl modules they take kernels and constants from, no others
    root = Path(__file__).resolve().parents[2]
    spec_file = root / "specs" / "request_overlap.py"
    names = [n for n, _ in _load.imported_sources(ast.parse(spec_file.read_text()), spec_file)]
    assert names == ["gencl.characterize.request_overlap", "gencl.spec", "gencl.spec.read_sums"]
