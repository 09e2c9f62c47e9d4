"""``gencl space | tune | explain | verify`` on kernels a user writes, not on Jacobi.

The 16-line spec of tests/user_specs.py (a 2-D 5-point Laplacian: program, reference, inputs,
sizes) with knobs bound by hand, and without any knob (the space derived from its program).
"""

from __future__ import annotations

import json
import re

import pytest

from gencl.api import load
from gencl.cli import main
from tests.user_specs import (BATCH4D, BRANCH, CONV2D, GRADMAG, LAPLACE, LAPLACE_F,
                              LAPLACE_KNOBS, MATVEC, OFFSET_OUT, PERIODIC, SHIFT, THRESH,
                              write)


def _all_ok(tmp_path, path: str, *options: str, quick: bool = True) -> list[dict]:
    """The records of `gencl space PATH` (3 repeats, no peers, *options*), each asserted to have
    run and matched numpy."""
    out = tmp_path / "space"
    assert main(["space", path, *(["--quick"] if quick else []), "--repeats", "3", "--peers",
                 "no", *options, "--out", str(out)]) == 0
    results = json.loads((out / "space.json").read_text())["results"]
    assert results and all(r["status"] == "ok" for r in results), [r["reason"] for r in results]
    return results


def _listed(capsys, path: str) -> str:
    """What `gencl space PATH --list` prints (asserted to exit 0)."""
    capsys.readouterr()
    assert main(["space", path, "--list"]) == 0
    return capsys.readouterr().out


def test_space_tune_simulate_explain_verify_on_hand_bound_knobs(tmp_path, capsys):
    path = str(write(tmp_path, LAPLACE_KNOBS))
    out = tmp_path / "space"
    assert main(["space", path, "--quick", "--repeats", "3", "--peers", "yes",
                 "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    results = json.loads((out / "space.json").read_text())["results"]
    assert summary["space_size"] == 6 == summary["measured"] == len(results)
    assert all(r["status"] == "ok" for r in results)
    best = min(results, key=lambda r: r["median_s"])
    assert summary["best_knobs"] == best["point"] and summary["best_time_s"] == best["median_s"]
    # compulsory traffic from the program's arrays: read u (50²), write out (48²), float32
    assert summary["compulsory_bytes"] == 4 * (50 * 50 + 48 * 48)
    assert summary["roofline_s"] == pytest.approx(summary["compulsory_bytes"] /
                                                  summary["copy_bw_Bps"])
    assert summary["peers"] == {} and summary["peers_skipped"] == {}
    report = (out / "report.md").read_text()
    assert report.startswith("# laplace space on ")
    assert "Fastest points" in report and "declares no peers" in report
    assert (out / "roofline.png").stat().st_size > 1000

    # the report again from the cache alone (no device), identical figures
    first = (out / "summary.json").read_text()
    (out / "report.md").unlink()
    assert main(["report", str(out)]) == 0
    assert (out / "summary.json").read_text() == first and (out / "report.md").is_file()

    listed = _listed(capsys, path)
    assert "block_x" in listed and "workgroup" in listed

    tuned = tmp_path / "tuning"
    assert main(["tune", path, "--quick", "--trials", "4", "--sampler", "tpe", "--seed", "1",
                 "--out", str(tuned)]) == 0
    record = json.loads((tuned / "best.json").read_text())
    assert record["point"] in [r["point"] for r in results] and record["median_s"] > 0
    assert "__kernel" in (tuned / "best.cl").read_text()

    sim = tmp_path / "sim"
    assert main(["tune", path, "--simulate", "--cache", str(out / "space.json"), "--seeds", "2",
                 "--strategies", "guided,random", "--out", str(sim)]) == 0
    simulated = json.loads((sim / "summary.json").read_text())
    assert simulated["space_size"] == 6 and set(simulated["evals_to_target"]) == {"guided",
                                                                                 "random"}

    capsys.readouterr()
    assert main(["explain", path, "--knob", "block_x=2", "--quick", "--json"]) == 0
    explained = json.loads(capsys.readouterr().out)
    assert explained["point"]["block_x"] == 2 and explained["prediction"]["time_s"] > 0

    assert main(["verify", path, "--device", "pocl", "--json", str(tmp_path / "v.json")]) == 0
    checked = json.loads((tmp_path / "v.json").read_text())
    assert checked["variants_checked"] == 6 and checked["failures"] == []


def test_unknown_variant_of_a_spec_without_named_variants_is_one_line(tmp_path, capsys):
    path = str(write(tmp_path, LAPLACE_KNOBS))
    assert main(["space", path, "--variant", "baseline", "--quick"]) == 2
    err = capsys.readouterr().err
    assert "baseline" in err and "Traceback" not in err


def test_space_and_tune_on_a_spec_without_knobs(tmp_path):
    path = str(write(tmp_path, LAPLACE))
    spec = load(path)
    assert spec.knobs and len(list(spec.points())) > 1  # derived from the program
    out = tmp_path / "space"
    assert main(["space", path, "--quick", "--sample", "4", "--repeats", "3", "--peers", "no",
                 "--out", str(out)]) == 0
    results = json.loads((out / "space.json").read_text())["results"]
    assert len(results) == 4 and any(r["status"] == "ok" for r in results)
    assert main(["tune", path, "--quick", "--trials", "3", "--sampler", "random", "--seed", "0",
                 "--out", str(tmp_path / "tuning")]) == 0


def test_squares_at_every_vector_width(tmp_path):
    """A user's ``x**2`` under a vector iname: loopy's code generator has no vector rule for a
    power (a bare NotImplementedError, every such point once recorded as excluded); each width
    the space offers is generated, built and checked against numpy on the device."""
    path = str(write(tmp_path, GRADMAG, "gradmag"))
    results = _all_ok(tmp_path, path, "--knob", "stream_j=1", "--knob", "local_u=none",
                      "--knob", "workgroup=32x4")
    assert {r["point"]["vector_width"] for r in results} == {1, 2, 4}


def test_a_reduction_at_every_vector_width(tmp_path, capsys):
    """A matrix-vector product's rows as vector lanes: each lane's copy of the update holds the
    whole row's reduction (its folding once refused loopy's Reduction node: every width > 1
    'excluded: UnsupportedExpressionError'); each width is built and checked against numpy."""
    path = str(write(tmp_path, MATVEC, "matvec"))
    results = _all_ok(tmp_path, path, "--knob", "workgroup=64")
    assert {r["point"]["vector_width"] for r in results} == {1, 2, 4, 8}
    # the lanes' sums are stored as one whole vector, not as W read-modify-writes of it
    from gencl.generate import lower
    spec = load(path)
    source = lower(spec, spec.complete({"vector_width": 4, "workgroup": (64,)})).source
    assert re.search(r"\by\[[^]]*\] = y_lanes;", source), source
    assert not re.search(r"\by\[[^]]*\]\.s\d = ", source), source
    # a 1-D work-group as --list prints it (64, not (64,)) fixes the axis for every command
    # (tune once stopped on it with a traceback, explain with "outside the space")
    capsys.readouterr()
    assert main(["explain", path, "--knob", "workgroup=64", "--knob", "vector_width=4",
                 "--quick", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["point"]["workgroup"] == [64]
    tuned = tmp_path / "tuning"
    assert main(["tune", path, "--knob", "workgroup=64", "--quick", "--trials", "2",
                 "--sampler", "random", "--seed", "1", "--out", str(tuned)]) == 0
    assert json.loads((tuned / "best.json").read_text())["point"]["workgroup"] == [64]


def test_arrays_of_two_types_take_no_vector_width(tmp_path, capsys):
    """A uint8 image smoothed into float: OpenCL C has no implicit uchar2 → float2 conversion
    (every vector width once failed to build, after a KeyError in the gather's shuffle mask):
    the space offers none and says why; its points are checked against numpy."""
    path = str(write(tmp_path, THRESH, "thresh"))
    listed = _listed(capsys, path)
    assert "no vector width, img uint8, out float32" in listed and "vector_width" not in listed
    _all_ok(tmp_path, path, "--knob", "workgroup=32x4", "--knob", "local_img=none")


def test_column_major_arrays_take_their_first_index_as_the_contiguous_axis(tmp_path, capsys):
    """order="F": the work-group's first axis runs along the first index, the stride-1 one (the
    space once took the last subscript for contiguous: work items 520 bytes apart, and every
    vector width "excluded: LoopyError"); no vector width, and --list says why."""
    path = str(write(tmp_path, LAPLACE_F))
    listed = _listed(capsys, path)
    assert "axes, outermost first: j over n" in listed and "i over n" in listed
    assert "[inames=(i, j)]" in listed and "stream_j" in listed
    assert "no vector width, out, u column-major" in listed and "vector_width" not in listed
    _all_ok(tmp_path, path, "--knob", "stream_j=1")


def test_neighbours_read_under_a_branch_take_no_transform_that_loads_them_early(tmp_path,
                                                                              capsys):
    """if(boundary, u, stencil): a vector gather, a streamed column or a local tile loads the
    neighbours ahead of the branch, out of bounds at the edges (200 of the 210 points it once
    had in its quick space were "excluded: LoopyIndexError"); the space keeps the work-group shapes,
    says why, and every one of them is checked against numpy."""
    path = str(write(tmp_path, BRANCH, "smooth"))
    listed = _listed(capsys, path)
    assert "reads its neighbours under a branch" in listed
    assert not any(k in listed for k in ("vector_width", "stream_j", "local_u"))
    assert len(_all_ok(tmp_path, path)) >= 8


def test_a_run_time_offset_derives_no_space_and_says_which(tmp_path, capsys):
    """u[j, i + s], s a run-time scalar: no constant halo (the reason once read
    "UnknownVariableError: s")."""
    path = str(write(tmp_path, SHIFT, "shift"))
    listed = _listed(capsys, path)
    assert "no space derived: u[..., i + s, ...]: the offset depends on s" in listed, listed


def test_a_window_sum_streams_only_with_both_loops_written_out(tmp_path, capsys):
    """out[j, i] = sum((a, b), w[a, b] * u[j + a, i + b]): a streamed column of u is keyed by
    i + b, and its buffer's loads cannot be nested in a kept b loop (loopy "Cannot schedule loop
    nest"; every streamed point with b kept was once recorded as excluded after its
    generation failed). The space leaves those points out and says why; what it keeps of the
    streamed points is checked against numpy."""
    path = str(write(tmp_path, CONV2D, "conv2d"))
    capsys.readouterr()
    assert main(["generate", path, "--knob", "unroll_a=full", "--knob", "unroll_b=none",
                 "--knob", "stream_j=4", "--knob", "vector_width=1", "--knob", "workgroup=32x4",
                 "--knob", "local_u=none", "--out", str(tmp_path / "gen")]) == 2
    assert "streamed columns read at offsets set by loop b need b unrolled" in \
        capsys.readouterr().err
    results = _all_ok(tmp_path, path, "--knob", "stream_j=4", "--knob", "workgroup=32x4",
                      "--knob", "local_u=none", quick=False)
    assert {(r["point"]["unroll_a"], r["point"]["unroll_b"]) for r in results} == \
        {("full", "full")}
    assert {r["point"]["vector_width"] for r in results} >= {1, 2}


def test_an_output_off_the_vector_grid_says_why_it_has_no_vector_width(tmp_path, capsys):
    """out[i + 1, j + 1] in rows of n + 2: a vector of the written points would start one
    element into a row; --list once left out the vector knob without a word."""
    path = str(write(tmp_path, OFFSET_OUT))
    listed = _listed(capsys, path)
    assert "no vector width, the output starts 1 element(s) into its rows" in listed, listed
    assert "vector_width" not in listed
    _all_ok(tmp_path, path, "--knob", "local_u=none", "--knob", "stream_i=4")


def test_four_axes_derive_no_space_and_say_why(tmp_path, capsys):
    """out[b, k, j, i]: a work-group maps three axes (the space once offered 32 x 4 x 1 x 1
    shapes, and loading the spec stopped on "work-group shape must be 1 to 3 positive
    integers", as if the user had written them)."""
    path = str(write(tmp_path, BATCH4D, "batch"))
    listed = _listed(capsys, path)
    assert "no space derived: out has 4 axes: a work-group maps three at most" in listed, listed


def test_a_periodic_wrap_takes_no_vector_width_and_no_local_tile(tmp_path, capsys):
    """u[j, (i + 1) % nx]: a wrapped index has no whole vector to load (every vector width was
    once "excluded: LoopyError ... not a compile-time constant") and no box-shaped footprint;
    the space says so, and every point it keeps is checked against numpy."""
    path = str(write(tmp_path, PERIODIC, "periodic"))
    listed = _listed(capsys, path)
    assert "no vector width, u read at a wrapped index along it" in listed, listed
    assert "u read at wrapped indices: no local tile" in listed
    assert "vector_width" not in listed and "local_u" not in listed
    assert len(_all_ok(tmp_path, path, "--knob", "stream_j=4")) >= 4
