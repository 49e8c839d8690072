"""The exceptions of libpulsar's result codes: one class per pulsar_result, each carrying the
library's one-line message and its code (re-exported by the package, where they are documented)."""
from __future__ import annotations


class PulsarError(Exception):
    """A libpulsar call failed. `code` is its pulsar_result (negative), `message` the library's line."""

    code: int = 0

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class ArgumentError(PulsarError, ValueError):
    """PULSAR_ERROR_ARGUMENT: a bad value, string or handle."""
    code = -1


class NotFoundError(PulsarError, LookupError):
    """PULSAR_ERROR_NOT_FOUND: no such file, preset or device."""
    code = -2


class DataError(PulsarError, ValueError):
    """PULSAR_ERROR_DATA: a file breaks a format rule (the message names the place)."""
    code = -3


class OutputError(PulsarError):
    """PULSAR_ERROR_IO: an output cannot be written."""
    code = -4


class DeviceError(PulsarError):
    """PULSAR_ERROR_DEVICE: a sound device cannot be opened or failed."""
    code = -5


class BusyError(PulsarError):
    """PULSAR_ERROR_BUSY: a queue is full; poll the engine and try again."""
    code = -6


class StateError(PulsarError, RuntimeError):
    """PULSAR_ERROR_STATE: the call does not fit the object's state (an ended voice, a stopped engine)."""
    code = -7


ERRORS = {e.code: e for e in (ArgumentError, NotFoundError, DataError, OutputError, DeviceError, BusyError, StateError)}

for _error in (PulsarError, *ERRORS.values()):
    _error.__module__ = "pulsar"  # as users name them: pulsar.ArgumentError
