"""Results files: a rerun resumes its own run and refuses to mix in another's; standard JSON."""

from __future__ import annotations

import json

import pytest

from gencl.errors import GenclError
from gencl.measure import Measurement, ResultsFile
from gencl.space._measure import open_results

HEADER = {"schema_version": "1.0", "spec": "copy", "quick": True, "size_overrides": {},
          "device": {"name": "cpu"}}


def _measurement(vid: str, point: dict | None = None, **extra) -> Measurement:
    return Measurement(vid, "copy", point or {"v": vid}, {"n": 64}, "wrong_answer", "x", **extra)


def _strict(text: str):
    def refuse(name):
        raise AssertionError(f"not standard JSON: {name}")
    return json.loads(text, parse_constant=refuse)


def test_resume_of_the_same_run_keeps_what_finished(tmp_path):
    path = tmp_path / "r.json"
    sink = ResultsFile(path, HEADER)
    sink.add(_measurement("a"))               # killed here: only the partial file exists
    again = ResultsFile(path, {**HEADER, "date": "later"})
    assert again.done_ids == {"a"}
    again.add(_measurement("b"))
    again.close()
    data = _strict(path.read_text())
    assert [r["variant_id"] for r in data["results"]] == ["a", "b"]


@pytest.mark.parametrize("change", [{"size_overrides": {"n": 4096}}, {"quick": False},
                                    {"spec": "read_bandwidth"}, {"device": {"name": "gpu"}}])
@pytest.mark.parametrize("finished", [False, True])
def test_another_run_is_refused_not_mixed(tmp_path, change, finished):
    path = tmp_path / "r.json"
    sink = ResultsFile(path, HEADER)
    sink.add(_measurement("a"))
    if finished:
        sink.close()
    with pytest.raises(GenclError, match="another --json path, or delete") as info:
        ResultsFile(path, {**HEADER, **change})
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_non_finite_numbers_are_written_as_null(tmp_path):
    path = tmp_path / "r.json"
    sink = ResultsFile(path, HEADER)
    sink.add(_measurement("a", max_error=float("inf")))
    sink.add(_measurement("b", max_error=float("nan"), ci95_s=float("inf")))
    partial = path.with_name(path.name + ".partial.jsonl").read_text()
    assert all(_strict(line) for line in partial.splitlines())
    sink.close()
    results = _strict(path.read_text())["results"]
    assert results[0]["max_error"] is None and results[1]["ci95_s"] is None
    assert Measurement.from_json(results[0]).max_error is None


def test_gencl_run_with_other_sizes_refuses_the_file(tmp_path, capsys):
    from gencl.cli import main

    path = tmp_path / "copy.json"
    run = ["run", "copy", "--quick", "--knob", "dtype=float32", "--knob", "vector_width=4",
           "--repeats", "3", "--json", str(path)]
    assert main([*run, "--size", "n=4096"]) == 0, capsys.readouterr().err
    header = _strict(path.read_text())
    assert header["size_overrides"] == {"n": 4096} and header["quick"] is True
    assert header["results"][0]["sizes"]["n"] == 4096
    capsys.readouterr()
    assert main(run) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(path) in err and "size_overrides" in err


def test_a_record_measured_again_replaces_its_first_even_when_interrupted(tmp_path):
    """Interleaved rounds stream a variant's second record after its first: the file, read
    whole or after a kill, holds the later one in the first one's place."""
    path = tmp_path / "r.json"
    sink = ResultsFile(path, HEADER)
    sink.add(_measurement("a"))
    sink.add(_measurement("b"))
    sink.replace(_measurement("a", max_error=2.0))
    resumed = ResultsFile(path, HEADER)             # killed before close
    assert [(r["variant_id"], r["max_error"]) for r in resumed.results] == [("a", 2.0),
                                                                             ("b", None)]
    sink.close()
    assert [(r["variant_id"], r["max_error"]) for r in _strict(path.read_text())["results"]] \
        == [("a", 2.0), ("b", None)]


@pytest.mark.parametrize("killed", [False, True])
def test_a_point_measured_under_a_new_variant_id_supersedes_its_record(tmp_path, killed):
    """The generator's code is part of a variant id: after a change, a rerun measures the
    point again under its new id, and the file keeps that record alone (it once kept both:
    "48/24 measured")."""
    path = tmp_path / "r.json"
    sink = ResultsFile(path, HEADER)
    sink.add(_measurement("old-a", {"v": 1}))
    sink.add(_measurement("old-b", {"v": 2}))
    sink.close()
    again = open_results(path, {**HEADER, "date": "later"})  # as `gencl space` resumes
    again.add(_measurement("new-a", {"v": 1}))
    assert [r["variant_id"] for r in again.results] == ["new-a", "old-b"]  # in its place
    if killed:  # what an interrupted rerun reads back from its stream
        again = ResultsFile(path, HEADER)
        assert sorted(r["variant_id"] for r in again.results) == ["new-a", "old-b"]
    again.close()
    assert sorted(r["variant_id"] for r in _strict(path.read_text())["results"]) == \
        ["new-a", "old-b"]
