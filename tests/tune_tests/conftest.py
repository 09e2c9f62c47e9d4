from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "copy_space.json"


@pytest.fixture
def cache() -> Path:
    """A copy-kernel space measured on PoCL (75 variants, quick sizes), replayed by the tests."""
    return DATA


@pytest.fixture
def cache_with_failures(tmp_path: Path) -> Path:
    """The same space with two variants recorded as failures (as a device run records them)."""
    data = json.loads(DATA.read_text())
    slice_ = [r for r in data["results"] if r["point"]["workgroup"] == 256]
    for record, status in zip(slice_[:2], ("build_error", "wrong_answer")):
        record.update(status=status, reason=f"recorded {status}", median_s=None, samples_s=[])
    path = tmp_path / "space.json"
    path.write_text(json.dumps(data))
    return path
