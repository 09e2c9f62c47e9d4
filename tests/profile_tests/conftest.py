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
    """(folder, log of the first run, log of the second run) of a real ``--quick`` profile.

    Made once per test session even under pytest-xdist: the first worker runs it under a file
    lock in the session's shared temporary folder, the others read what it left.
    """
    import fcntl
    import json

    from gencl.profile import run_profile

    # under xdist each worker's basetemp is a child of the session's folder; without xdist the
    # parent is shared by every session (and would hold an older run's profile)
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder, logs = shared / "profile_quick", shared / "profile_quick_logs.json"
    with open(shared / "profile_quick.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not logs.exists():
            first: list[str] = []
            run_profile(folder, quick=True, only=["memory"], progress=False, log=first.append)
            second: list[str] = []
            run_profile(folder, quick=True, progress=False, log=second.append)
            logs.write_text(json.dumps([first, second]))
    first, second = json.loads(logs.read_text())
    return folder, first, second
