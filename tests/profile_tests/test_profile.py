"""gencl profile / gencl report on the real PoCL device: schema, resume, report, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from gencl.device import select_device
from gencl.errors import GenclError
from gencl.profile import (
    SUMMARY_KEYS, load_profile, render_report, run_profile, validate)
from tests.profile_tests.conftest import COMMITTED, REPO


def _gencl(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gencl", *args], capture_output=True, text=True,
                          cwd=cwd or REPO, timeout=300)


def test_quick_profile_matches_schema_and_summary_keys(quick_profile):
    folder, _, _ = quick_profile
    data = json.loads((folder / "profile.json").read_text())
    validate(data, where="profile.json")
    summary = json.loads((folder / "summary.json").read_text())
    assert list(summary)[3:] == list(SUMMARY_KEYS)  # schema_version, gencl_version, date first
    validate({k: summary[k] for k in SUMMARY_KEYS}, where="summary.json", ref="summary")
    profile = load_profile(folder)
    assert profile.device.slug == select_device()[1].slug  # the default device
    assert set(profile.benchmarks) == set(profile.suite)
    for bench in profile.benchmarks.values():  # every variant measured, with its hashes
        if bench.status == "skipped":  # nothing of it runs here (fine_chase off NVIDIA)
            assert bench.reason and not bench.measurements, bench.name
            continue
        assert bench.measured, bench.reason
        ok = [m for m in bench.measurements if m["status"] == "ok"]
        assert ok, bench.name
        assert all(m["samples_s"] for m in ok)
        if bench.group != "runtime":  # transfers have no kernel, so no source hash
            assert all(m["source_hash"] for m in ok)


def test_rerun_skips_finished_benchmarks(quick_profile):
    folder, first, second = quick_profile
    profile = load_profile(folder)
    memory = [b.name for b in profile.benchmarks.values() if b.group == "memory"]
    assert memory, "the suite has no memory benchmark"
    for name in memory:
        assert any(line.startswith(f"{name}: ") for line in first)
        # finished → skipped; measured but not analysable yet → analysed again, not re-measured
        assert any(line.startswith(f"{name}: ")
                   and ("skipped" in line or "measured earlier" in line)
                   for line in second), second
    assert not any(b.group == "compute" for b in profile.benchmarks.values()
                   if any(line.startswith(f"{b.name}: ") for line in first))


def test_report_renders_from_profile_alone(tmp_path, quick_profile):
    source = COMMITTED if COMMITTED.exists() else quick_profile[0] / "profile.json"
    shutil.copy(source, tmp_path / "profile.json")
    result = _gencl("report", str(tmp_path))
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "report.md").read_text()
    profile = load_profile(tmp_path)
    assert "Table III" in text and "**Computations**" in text and "**Global memory**" in text
    for line in (profile.device_json["name"], profile.driver, profile.gencl_version):
        assert line in text
    for key in profile.missing:  # what is missing is said
        assert f"`{key}`" in text
    for png in tmp_path.glob("*.png"):
        assert png.name in text and png.stat().st_size > 1000


def test_compare_prints_ratios(quick_profile):
    folder = quick_profile[0]
    result = _gencl("report", "--compare", str(folder), str(folder))
    assert result.returncode == 0, result.stderr
    assert "B / A" in result.stdout and "copy_bw_Bps" in result.stdout


@pytest.mark.parametrize("damage, message", [
    (lambda d: "{not json", "not valid JSON"),
    (lambda d: json.dumps({**d, "schema_version": "0.9"}), "schema_version"),
    (lambda d: json.dumps({k: v for k, v in d.items() if k != "benchmarks"}), "benchmarks"),
    (lambda d: json.dumps({**d, "summary": {**d["summary"], "copy_bw_Bps": "fast"}}),
     "summary.copy_bw_Bps"),
])
def test_bad_profile_is_one_line_error(tmp_path, quick_profile, damage, message):
    data = json.loads((quick_profile[0] / "profile.json").read_text())
    (tmp_path / "profile.json").write_text(damage(data))
    with pytest.raises(GenclError, match=message):
        load_profile(tmp_path)
    result = _gencl("report", str(tmp_path))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr


def test_broken_benchmark_is_recorded_and_reported(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "specs").mkdir(parents=True)
    (work / "specs" / "broken_bench.py").write_text("SPEC = (\n")
    monkeypatch.chdir(work)
    profile, folder = run_profile(tmp_path / "out", quick=True, only=["broken_bench"],
                                  progress=False)
    bench = profile.benchmarks["broken_bench"]
    assert bench.status == "load_error" and "syntax error" in bench.reason
    render_report(profile, folder)
    assert "broken_bench" in (folder / "report.md").read_text()
    assert load_profile(folder).benchmarks["broken_bench"].status == "load_error"


def test_quick_run_defaults_apart_from_committed_profiles(tmp_path, monkeypatch):
    """`gencl profile --quick` (the README's first command) must work in a checkout whose
    bench_results/<slug>/ holds a committed full profile: it writes to out/<slug>/."""
    work = tmp_path / "work"
    (work / "specs").mkdir(parents=True)
    (work / "specs" / "broken_bench.py").write_text("SPEC = (\n")
    monkeypatch.chdir(work)
    _, folder = run_profile(None, quick=True, only=["broken_bench"], progress=False)
    assert folder.parts[0] == "out" and (work / folder / "profile.json").is_file()
    assert not (work / "bench_results").exists()


def test_other_device_or_mode_in_folder_is_refused(tmp_path, quick_profile):
    shutil.copy(quick_profile[0] / "profile.json", tmp_path / "profile.json")
    with pytest.raises(GenclError, match="quick"):
        run_profile(tmp_path, quick=False, only=["memory"], progress=False)
