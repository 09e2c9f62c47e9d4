"""A device made unusable on purpose (PoCL with a build option it rejects) is reported, never the
default, and naming it fails at once with the reason and the fix (exit 2, one line)."""

from __future__ import annotations

import json

from tests.device_tests.test_health import BREAKS_POCL, _gencl


def test_broken_pocl_is_reported_not_default_and_naming_it_exits_2():
    listed = _gencl("devices", "--json", env=BREAKS_POCL)
    assert listed.returncode == 0, listed.stderr
    devices = json.loads(listed.stdout)
    pocl = [d for d in devices if d["slug"].startswith("pocl-")]
    assert pocl
    for d in pocl:
        assert d["usable"] is False and d["reason"].startswith("cannot compile:"), d
        assert "-fgencl-no-such-option" in d["reason"] and d["fix"]
        assert not d["default"]
    default = [d for d in devices if d["default"]]
    assert len(default) == 1 and default[0]["usable"]  # Intel's runtime, else the simulator

    run = _gencl("run", "specs/copy.py", "--device", "pocl", env=BREAKS_POCL)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert "not usable" in lines[0] and "cannot compile" in lines[0] and "fix:" in lines[0]
    assert "POCL_EXTRA_BUILD_FLAGS" in lines[0]  # the fix points at the setting that breaks it
