"""Shared fixtures: the real PoCL device, and a fresh gencl cache per test session."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _fresh_cache(tmp_path_factory):
    # no test may pass because an earlier run left generated code or binaries in a warm cache
    if "GENCL_CACHE_DIR" not in os.environ:
        os.environ["GENCL_CACHE_DIR"] = str(tmp_path_factory.mktemp("gencl-cache"))
    os.environ.setdefault("GENCL_WORKERS", "1")
    yield


@pytest.fixture(scope="session")
def engine():
    """The real PoCL CPU device (Debian's where installed and usable, else PyPI's)."""
    from gencl.measure import OpenCLEngine

    eng = OpenCLEngine("pocl", repeats=5, max_attempts=1, min_sample_s=1e-4)
    assert eng.info.slug.startswith("pocl-") and eng.info.device_type == "CPU"
    return eng
