"""gencl space: the cache is resumable and shardable, the report files are what issue 6 asks for."""

from __future__ import annotations

import json

import pytest

from gencl.cli import main
from gencl.errors import GenclError
from gencl.space import limits_for, open_results, space_points
from gencl.spec import load_spec

SUMMARY_KEYS = {"spec", "device", "fixed", "sizes", "space_size", "measured", "best_time_s",
                "best_knobs", "best_variant", "baseline", "baseline_time_s", "compulsory_bytes",
                "copy_bw_Bps", "roofline_s", "peers", "peers_skipped"}


def test_shards_partition_the_space(jacobi_h200_space):
    spec, limits = load_spec("jacobi"), limits_for("nvidia")
    fixed = {"dtype": "float32"}
    # the space walked once for its tests (conftest): the slice and its cut are tested here
    whole = space_points(spec, limits, fixed=fixed, every=jacobi_h200_space)
    parts = [space_points(spec, limits, fixed=fixed, shard=(i, 3), every=jacobi_h200_space)
             for i in range(3)]
    assert sorted(map(str, sum(parts, []))) == sorted(map(str, whole))


def test_sample_keeps_the_named_variants(jacobi_h200_space):
    spec = load_spec("jacobi")
    always = list(spec.hooks.variants.values())
    sample = len(always) + 3
    pts = space_points(spec, limits_for("nvidia"), fixed={"dtype": "float32"}, sample=sample,
                       always=always, every=jacobi_h200_space)  # the space walked once
    names = {spec.hooks.variant_name(p) for p in pts}
    assert set(spec.hooks.variants) <= names and len(pts) == sample


@pytest.mark.parametrize("fixed", [{"dtype": "float32", "vector_width": 4, "boundary": "padded"},
                                   {"workgroup": [32, 4], "block_y": 2},
                                   {"boundary": "padded", "local": "none", "vector_width": 3}])
def test_a_slice_walked_alone_is_the_whole_walk_cut_to_it(jacobi_h200_space, fixed):
    """``spec.points(device, fixed)`` builds only the slice's points (a list value holds its
    tuple, as ``matches`` says; a value outside an axis holds nothing)."""
    from gencl.spec import matches

    spec = load_spec("jacobi")
    alone = list(spec.points(limits_for("nvidia"), fixed))
    assert alone == [p for p in jacobi_h200_space if matches(p, fixed)]
    assert bool(alone) == (fixed.get("vector_width") != 3)


def test_space_command_writes_cache_report_and_resumes(tmp_path, capsys):
    out = tmp_path / "jacobi"
    argv = ["space", "jacobi", "--quick", "--size", "n=64", "--variant", "BE", "--knob",
            "block_x=1", "--knob", "block_y=1", "--knob", "workgroup=(32, 4)", "--peers", "yes",
            "--repeats", "3", "--out", str(out)]
    assert main(argv + ["--shard", "0/2"]) == 0
    first = json.loads((out / "space.json").read_text())["results"]
    assert main(argv + ["--shard", "1/2"]) == 0
    results = json.loads((out / "space.json").read_text())["results"]
    assert len(first) <= len(results) and all(r["status"] == "ok" for r in results)
    assert main(argv) == 0  # resume: nothing left to measure
    assert len(json.loads((out / "space.json").read_text())["results"]) == len(results)
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) == SUMMARY_KEYS
    assert summary["sizes"] == {"n": 64}
    assert summary["measured"] == len(results) == summary["space_size"]
    assert summary["copy_bw_Bps"] > 0 and summary["peers"]["hand_opencl"] > 0
    # bytes no sweep can avoid (read u and f, write u_new) at the bandwidth of the same run
    assert summary["compulsory_bytes"] == 3 * 4 * 64 * 64
    assert summary["roofline_s"] == summary["compulsory_bytes"] / summary["copy_bw_Bps"]
    assert summary["best_variant"] == "BE" and summary["best_time_s"] > 0
    # the CUDA peers run on a GPU only: skipped here, each with its reason
    assert set(summary["peers_skipped"]) == {"pytorch_eager", "torch_compile", "cuda_naive"}
    assert all(summary["peers_skipped"].values())
    report = (out / "report.md").read_text()
    assert "12 B" in report and "Table 2" in report and "ω-Jacobi space" in report
    assert (out / "roofline.png").stat().st_size > 1000


def test_open_results_resumes_from_a_finished_file(tmp_path):
    path = tmp_path / "space.json"
    path.write_text(json.dumps({"results": [{"variant_id": "a", "status": "ok"}]}))
    sink = open_results(path, {"schema_version": "1.0"})
    assert sink.done_ids == {"a"}


def test_unknown_variant_is_one_line_error(capsys):
    assert main(["space", "jacobi", "--variant", "vec5", "--quick"]) == 2
    assert "vec5" in capsys.readouterr().err


def test_a_sampled_folder_stays_sampled(tmp_path):
    """A folder that holds random points (--sample) is still a sample after a later run adds a
    whole slice or only re-times the peers: its header keeps ``sampled``, finished or partial,
    so a replay does not count evaluations to a best it may not hold."""
    from gencl.space._measure import previously_sampled

    path = tmp_path / "space.json"
    assert not previously_sampled(path)
    path.write_text(json.dumps({"sampled": True, "results": []}))
    assert previously_sampled(path)
    path.write_text(json.dumps({"sampled": False, "results": []}))
    assert not previously_sampled(path)
    partial = tmp_path / "space.json.partial.jsonl"
    partial.write_text(json.dumps({"results_header": {"sampled": True}}) + "\n{}\n")
    assert previously_sampled(path)  # the partial file is the newer state


def test_a_folder_of_two_slices_says_what_it_holds(tmp_path):
    """A run that adds its slice to a folder holding another's records writes the header,
    summary and report of what the file holds: the axes all its points share, and the space
    of that wider slice (not the last call's slice over records outside it)."""
    out = tmp_path / "jacobi"
    argv = ["space", "jacobi", "--quick", "--size", "n=64", "--variant", "BE", "--knob",
            "block_y=1", "--knob", "workgroup=(32, 4)", "--peers", "no", "--repeats", "3",
            "--out", str(out)]
    assert main(argv + ["--knob", "block_x=1"]) == 0
    one = json.loads((out / "space.json").read_text())
    assert one["slice"]["block_x"] == 1 and one["space_size"] == len(one["results"]) == 1
    assert main(argv + ["--knob", "block_x=2"]) == 0
    both = json.loads((out / "space.json").read_text())
    assert sorted(r["point"]["block_x"] for r in both["results"]) == [1, 2]
    assert "block_x" not in both["slice"] and both["slice"]["block_y"] == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["fixed"] == both["slice"] and summary["measured"] == 2
    assert summary["space_size"] == both["space_size"] > 2  # block_x 4 is not measured


def test_a_resumed_finished_file_keeps_its_header(tmp_path):
    """A finished file turned back into a partial one (a later run resumes into it) keeps its
    header as the partial's first line: its run identity is checked and ``sampled`` kept."""
    from gencl.space._measure import previously_sampled, stored_header

    path = tmp_path / "space.json"
    path.write_text(json.dumps({"spec": "jacobi", "sampled": True,
                                "results": [{"variant_id": "a", "status": "ok"}]}))
    sink = open_results(path, {"spec": "jacobi", "sampled": True})
    assert sink.done_ids == {"a"} and previously_sampled(path)
    assert stored_header(path) == {"spec": "jacobi", "sampled": True}
    with pytest.raises(GenclError, match="another run"):  # another kernel's run is refused
        open_results(path, {"spec": "copy"})
