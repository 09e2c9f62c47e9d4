"""One real quick profile on PoCL per test session, shared by the profile tests.

The suite runs in two steps on purpose: ``--only memory`` first, then everything into the same
folder, so the second run shows that finished benchmarks are skipped (resume).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("GENCL_WORKERS", "1")

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "bench_results" / "pocl-cpu" / "profile.json"


@pytest.fixture(scope="session")
def quick_profile(tmp_path_factory):
    """(folder, log of the first run, log of the second run) of a real ``--quick`` profile."""
    from gencl.profile import run_profile

    folder = tmp_path_factory.mktemp("profile")
    first: list[str] = []
    run_profile(folder, quick=True, only=["memory"], progress=False, log=first.append)
    second: list[str] = []
    run_profile(folder, quick=True, progress=False, log=second.append)
    return folder, first, second
