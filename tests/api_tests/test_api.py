"""The Python API: one call per command, specs by name, path or in memory; the CLI over it."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import gencl
from gencl.generate import generate_many, variant_id
from tests.user_specs import LAPLACE_KNOBS, in_memory


def test_tiny_study_on_an_in_memory_spec(tmp_path):
    spec = in_memory(LAPLACE_KNOBS)
    assert spec.path == ""
    run = gencl.tune(spec, trials=3, sampler="tpe", seed=0, quick=True,
                     storage=f"sqlite:///{tmp_path}/study.db", out=tmp_path)
    space = [dict(p) for p in spec.points()]
    assert run.point in space and run.time_s > 0
    assert len(run.study.trials) == 3
    assert (tmp_path / "best.json").is_file() and "__kernel" in (tmp_path / "best.cl").read_text()
    # the same study on its storage: three more trials, nothing finished lost
    again = gencl.tune(spec, trials=6, sampler="tpe", seed=0, quick=True,
                       storage=f"sqlite:///{tmp_path}/study.db", out=tmp_path)
    assert len(again.study.trials) == 6 and again.time_s <= run.time_s


def test_space_and_explain_on_an_in_memory_spec(tmp_path):
    spec = in_memory(LAPLACE_KNOBS)
    run = gencl.space(spec, quick=True, sample=2, repeats=3, peers="no", out=tmp_path)
    assert run.summary["measured"] == 2 and run.summary["best_time_s"] > 0
    assert (tmp_path / "report.md").read_text().startswith("# laplace space")
    explained = gencl.explain(spec, knobs={"block_x": 2, "workgroup": (32, 2)}, quick=True)
    assert explained.point["workgroup"] == (32, 2) and explained.prediction.time_s > 0


def test_in_memory_specs_generate_in_process_and_differ_by_program():
    spec = gencl.load(in_memory(LAPLACE_KNOBS))
    points = [dict(p) for p in spec.points()][:3]
    variants = generate_many(spec, points, workers=2)  # no file a worker could load: in-process
    assert [v.id for v in variants] == [variant_id(spec, p) for p in points]
    assert all("__kernel" in v.source for v in variants)
    other = gencl.load(in_memory(LAPLACE_KNOBS.replace("4 * u[i + 1", "5 * u[i + 1")))
    assert other.name == spec.name and other.source_hash != spec.source_hash
    assert variant_id(spec, points[0]) != variant_id(other, points[0])
    again = gencl.load(dataclasses.replace(in_memory(LAPLACE_KNOBS)))
    assert again.source_hash == spec.source_hash  # the identity is the program, not the object


def test_stage_packages_are_the_api_calls_and_do_not_import_the_cli():
    import gencl.tune

    assert callable(gencl.tune) and gencl.tune.SearchSpace  # the call and the package
    code = ("import sys, gencl, gencl.space.cli, gencl.tune.cli, gencl.model.cli, "
            "gencl.verify.cli, gencl.profile.cli, gencl.api; "
            "assert 'gencl.cli' not in sys.modules, 'a stage imported gencl.cli'")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr
