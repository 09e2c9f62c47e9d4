"""A point loopy cannot lower is recorded with a reason a user can act on, even where loopy's
exception carries no message (a pymbolic mapper's bare NotImplementedError)."""

from gencl.generate._generate import _failure_text


def _raise(exc):
    def map_power():
        raise exc
    try:
        map_power()
    except Exception as caught:  # noqa: BLE001 -- the test inspects it
        return caught


def test_reason_names_the_message():
    assert _failure_text(_raise(ValueError("index was not a compile-time constant\nmore"))) == \
        "ValueError: index was not a compile-time constant"


def test_a_bare_exception_names_the_function_that_raised_it():
    text = _failure_text(_raise(NotImplementedError()))
    assert text.startswith("NotImplementedError raised by map_power (")
    assert "test_failure_reason.py:" in text
