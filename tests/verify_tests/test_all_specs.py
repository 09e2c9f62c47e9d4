"""CI's check of the emitted code: every spec and tuning kernel, numerics and oclgrind, exit 0.

A pairwise sample capped at two points per spec keeps it to a few minutes of CPU on 2 cores; one
test per spec, so the workers share them (as one test, its four minutes ran on one worker while
the other sat idle at the end of the suite). The full pairwise sample is
``gencl verify --oclgrind`` (docs/verify.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gencl.cli import main
from gencl.spec import list_spec_files, load_spec

SPECS = [p.stem for p in list_spec_files()]


@pytest.mark.parametrize("name", SPECS)
def test_every_spec_verifies_under_oclgrind(tmp_path, name, engine):
    out = tmp_path / "verify.json"
    status = main(["verify", name, "--oclgrind", "--sample", "2", "--device", "pocl",
                   "--json", str(out)])
    report = json.loads(out.read_text())
    assert report["specs"] == [name]
    assert report["failures"] == [], report["failures"]
    if next(iter(load_spec(name).points(engine.info)), None) is None:
        # no point on this device (fine_chase runs on NVIDIA only): said so, and nothing
        # checked is not a pass
        assert report["selection"][name] == "all 0 points" and status == 1
    else:
        assert report["variants_checked"] >= 1 and status == 0


def test_the_specs_checked_are_every_file_of_specs_and_tuning():
    """The parameters above are what ``gencl verify`` checks without a SPEC: every file of the
    checkout's specs/ and tuning/ folders."""
    root = Path(__file__).resolve().parents[2]
    files = {p.stem for folder in ("specs", "tuning") for p in (root / folder).glob("[!_]*.py")}
    assert set(SPECS) == files and len(SPECS) == len(files)
