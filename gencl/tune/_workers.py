"""Several worker processes on one study: one per GPU where there are several.

Each worker is the same ``gencl tune`` command attached to the same storage and study name; the
trial budget is the study's (``--trials`` complete trials, checked before each trial: see
gencl.tune._study.run_study), so N workers share it and together never overrun it. Workers on
other machines run the same command against a PostgreSQL URL.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence


def worker_devices(selector: str | None, n: int) -> list[str | None]:
    """Device selector per worker: the devices of the selected kind, round-robin."""
    from gencl.device import list_devices, select_device

    _, chosen = select_device(selector)
    same = [d.index for d in list_devices() if d.slug == chosen.slug]
    if len(same) <= 1:
        return [selector] * n
    return [str(same[k % len(same)]) for k in range(n)]


def run_workers(argv: Sequence[str], n: int, devices: Sequence[str | None]) -> list[int]:
    """Start *n* ``gencl tune`` processes with *argv* (storage and study fixed); wait for all."""
    procs = []
    for k in range(n):
        env = dict(os.environ)
        if devices[k] is not None:
            env["GENCL_DEVICE"] = str(devices[k])
        env["GENCL_TUNE_WORKER"] = str(k)
        procs.append(subprocess.Popen([sys.executable, "-m", "gencl", "tune", *argv], env=env))
    return [p.wait() for p in procs]
