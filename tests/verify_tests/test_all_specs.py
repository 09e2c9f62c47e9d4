"""CI's check of the emitted code: every spec and tuning kernel, numerics and oclgrind, exit 0.

A pairwise sample capped at two points per spec keeps it to a minute or two on 2 cores; the full
pairwise sample is ``gencl verify --oclgrind`` (docs/verify.md).
"""

from __future__ import annotations

import json

from gencl.cli import main
from gencl.spec import list_spec_files


def test_every_spec_verifies_under_oclgrind(tmp_path):
    out = tmp_path / "verify.json"
    status = main(["verify", "--oclgrind", "--sample", "2", "--device", "pocl",
                   "--json", str(out)])
    report = json.loads(out.read_text())
    assert report["specs"] == [p.stem for p in list_spec_files()]
    assert report["failures"] == [], report["failures"]
    assert report["variants_checked"] >= len(report["specs"])
    assert status == 0
