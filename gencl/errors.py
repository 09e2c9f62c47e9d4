"""Errors a user sees as one line (the CLI prints them and exits with status 2)."""

from __future__ import annotations


class GenclError(Exception):
    """Base of every user-facing error: bad input, not a bug."""


class SpecError(GenclError):
    """A spec file is malformed: names the file and the field."""

    def __init__(self, file: str, field: str, message: str) -> None:
        self.file, self.field, self.message = file, field, message
        super().__init__(f"{file}: {field}: {message}")


class KnobError(GenclError):
    """A knob value cannot be applied to this program (the variant is not in the space)."""


class DeviceError(GenclError):
    """No such device, or the device cannot do what was asked."""
