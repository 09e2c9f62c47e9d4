"""The one line a run that measured nothing ends with: what failed, where, and what to try."""

from __future__ import annotations

from gencl.measure import explain_failure

CPU = {"name": "pthread-znver5", "slug": "pocl-debian-cpu", "device_type": "CPU",
       "platform": "Portable Computing Language", "library": "libpocl.so.2"}


def _records(reasons):
    return [{"status": "build_error", "reason": r} for r in reasons]


def test_one_source_error_in_every_build_is_every_build_and_the_sources_fault():
    """PoCL writes each build's source to a temporary file of its own, so sixteen builds that
    failed on one line once read "nothing measured (1 of 16 variants)", and the fix offered was
    another CPU runtime, for a kernel named after a C keyword."""
    records = _records(f"/root/.cache/pocl/kcache/tempfile_{i:06d}.cl:4:74: expected "
                       "identifier or '('" for i in range(16))
    line = explain_failure(records, CPU)
    assert line.startswith("every build failed on pthread-znver5 (pocl-debian-cpu): "
                           "<source>.cl:4:74: expected identifier"), line
    assert "the generated source does not compile here" in line
    assert "CPU runtime" not in line and "PoCL" not in line


def test_a_runtime_that_cannot_compile_is_sent_to_another_runtime():
    """PyPI's PoCL on a Zen 5: no line of the source is at fault."""
    line = explain_failure(_records(["unknown target CPU 'generic'"] * 3), CPU)
    assert line.startswith("every build failed on pthread-znver5 (pocl-debian-cpu): unknown "
                           "target CPU 'generic'"), line
    assert "install Intel's CPU runtime" in line
