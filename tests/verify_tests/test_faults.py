"""Planted faults: each fixture spec carries one fault, and verify must catch exactly it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from gencl.cli import main
from gencl.spec import load_spec
from gencl.verify import verify

FIXTURES = Path(__file__).parent / "fixtures"
FAULTY = ("halo_off_by_one", "missing_barrier", "out_of_bounds", "declared_race")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One CLI run over every fixture (one oclgrind child per spec); the JSON report by spec."""
    out = tmp_path_factory.mktemp("verify") / "verify.json"
    status = main(["verify", *(str(FIXTURES / f"{n}.py") for n in FAULTY), "--oclgrind",
                   "--device", "pocl", "--json", str(out)])
    data = json.loads(out.read_text())
    data["status"] = status
    return data


def _results(report, spec):
    return [r for r in report["results"] if r["spec"] == spec]


def test_exit_status_and_report_keys(report):
    assert report["status"] == 1
    for key in ("device", "variants_checked", "failures", "oclgrind", "ptx", "specs"):
        assert key in report
    assert report["oclgrind"] is True and report["ptx"] is False
    assert report["specs"] == list(FAULTY)
    assert {f["variant_id"].rsplit("-", 1)[0] for f in report["failures"]} == set(FAULTY[:3])


def test_halo_off_by_one_is_a_mismatch(report):
    results = _results(report, "halo_off_by_one")
    assert len(results) == 2  # both work-group sizes
    for r in results:
        assert r["built"] and r["ran"] and not r["matched"] and r["max_error"] == "inf"
        assert r["oclgrind"]["findings"] == []  # in bounds, no race: only numerics can see it


def test_missing_barrier_is_a_race(report):
    (r,) = _results(report, "missing_barrier")
    assert any(f.startswith("oclgrind race: Read-write data race at local memory")
               for f in r["failures"])


def test_out_of_bounds_read(report):
    (r,) = _results(report, "out_of_bounds")
    assert any(f.startswith("oclgrind out_of_bounds: Invalid read of size 4 at global memory")
               for f in r["failures"])


def test_declared_race_is_exempt_and_only_when_declared(report):
    (r,) = _results(report, "declared_race")
    assert r["passed"] and r["matched"] and r["oclgrind"]["matched"]
    assert r["oclgrind"]["exempted"] and "race" in r["oclgrind"]["exempted"][0]
    undeclared = dataclasses.replace(load_spec(str(FIXTURES / "declared_race.py")),
                                     exempt=frozenset({"uninitialized"}))
    again = verify([undeclared], device="pocl", oclgrind=True)
    assert not again.ok and "oclgrind race" in again.failed[0].failures[0]
