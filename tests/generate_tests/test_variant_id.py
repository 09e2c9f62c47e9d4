"""A variant id (and every cache keyed by it) follows what determines the code: the program the
spec builds, the knobs, the point, the generator — not the spec file's text."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import loopy as lp
import numpy as np

from gencl.generate import generate, program_hash, variant_id
from gencl.spec import BenchmarkSpec, Knob

REPO = Path(__file__).resolve().parents[2]

IDS = """
import json
from gencl.generate import variant_id
from gencl.spec import load_spec
ids = {}
for name in ("copy", "copy_reads", "chain"):
    spec = load_spec(name)
    ids[name] = [variant_id(spec, p) for p in spec.sweep_points(quick=True)[:2]]
print(json.dumps(ids))
"""


def _ids(cwd: Path, cache: Path, hash_seed: str) -> dict[str, list[str]]:
    """Variant ids as a fresh ``gencl`` command computes them (a new process, specs by name)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "GENCL_CACHE_DIR": str(cache),
           "PYTHONHASHSEED": hash_seed}
    proc = subprocess.run([sys.executable, "-c", IDS], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_editing_a_spec_changes_the_ids_of_specs_built_on_it(tmp_path):
    # a user's checkout: specs/copy.py and specs/copy_reads.py (which builds on copy's program
    # by name) in the working directory, found by name before the repository's own
    (tmp_path / "specs").mkdir()
    shutil.copy(REPO / "specs" / "copy.py", tmp_path / "specs" / "copy.py")
    text = (REPO / "specs" / "copy.py").read_text()
    delegate = 'program=lambda point: load_spec("copy").program(point),'
    for old, new in (('name="copy"', 'name="copy_reads"'), ("program=program,", delegate),
                     ("from gencl.spec import BenchmarkSpec, Knob",
                      "from gencl.spec import BenchmarkSpec, Knob, load_spec")):
        assert old in text, old
        text = text.replace(old, new)
    (tmp_path / "specs" / "copy_reads.py").write_text(text)
    cache = tmp_path / "cache"
    before = _ids(tmp_path, cache, hash_seed="1")

    # a comment is not code: same ids (and under another hash seed: the ids are stable)
    bandwidth = tmp_path / "specs" / "copy_reads.py"
    bandwidth.write_text(bandwidth.read_text() + "\n# a comment\n")
    assert _ids(tmp_path, cache, hash_seed="2") == before

    # copy's program changes: copy's ids and copy_reads' ids change; chain's do not
    copy = tmp_path / "specs" / "copy.py"
    text = copy.read_text()
    assert "if(flag * acc != 0, acc, 0)" in text
    copy.write_text(text.replace("if(flag * acc != 0, acc, 0)", "if(acc * flag != 0, acc, 0)"))
    after = _ids(tmp_path, cache, hash_seed="1")
    for name in ("copy", "copy_reads"):
        assert not set(after[name]) & set(before[name]), name
    assert after["chain"] == before["chain"]


def _double(factor: int):
    def program(point):
        return lp.make_kernel(
            "{[i]: 0 <= i < n}", f"y[i] = {factor} * x[i]",
            [lp.GlobalArg("x", np.float32, shape=("n",)),
             lp.GlobalArg("y", np.float32, shape=("n",), is_output=True, is_input=False),
             lp.ValueArg("n", np.int32)], target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return program


def _spec(program, knobs=None) -> BenchmarkSpec:
    return BenchmarkSpec(
        name="scale", description="y = k x", program=program,
        knobs=knobs or {"workgroup": Knob("workgroup", (32, 64), {"inames": ("i",)})},
        inputs=lambda p, s, rng: {"x": rng.standard_normal(s["n"]).astype(np.float32)},
        reference=lambda v, p, s: {"y": 2 * v["x"]}, sizes=lambda p, d, q: {"n": 256})


def test_two_specs_of_one_name_never_share_cached_code(tmp_path, monkeypatch):
    monkeypatch.setenv("GENCL_CACHE_DIR", str(tmp_path))
    twice, thrice = _spec(_double(2)), _spec(_double(3))
    point = {"workgroup": 32}
    assert variant_id(twice, point) != variant_id(thrice, point)
    a, b = generate(twice, point), generate(thrice, point)
    assert a.id != b.id and "2.0f * x" in a.source and "3.0f * x" in b.source
    # the knobs are part of the code too
    other_knob = _spec(_double(2), {"workgroup": Knob("workgroup", (32, 64),
                                                      {"inames": ("i",), "inner": True})})
    assert variant_id(other_knob, point) != variant_id(twice, point)


def test_program_hash_follows_the_axes_the_program_reads():
    reads_knob = _spec(lambda p: _double(p["workgroup"] // 16)(p))
    ignores_knob = _spec(_double(2))
    assert program_hash(reads_knob, {"workgroup": 32}) != program_hash(reads_knob,
                                                                        {"workgroup": 64})
    assert program_hash(ignores_knob, {"workgroup": 32}) == program_hash(ignores_knob,
                                                                          {"workgroup": 64})
    # a program that copies the point ({**point}) reads every axis
    copies_point = _spec(lambda p: _double({**p}["workgroup"] // 16)(p))
    assert program_hash(copies_point, {"workgroup": 32}) != program_hash(copies_point,
                                                                          {"workgroup": 64})
