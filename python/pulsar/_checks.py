"""Arguments checked before they reach libpulsar: what ctypes would pass on wrong without a word.

ctypes cuts an int to the C type's width (a rate of 2**32 + 48000 arrives as 48000), passes a
read-only buffer's address for writing, and stops a string at its first NUL. Every integer the
package hands to C goes through `integer`, every array the library writes into through
`out_array`, every string through `text`; each refuses with one line naming the argument and the
rule (an ArgumentError — a ValueError — or a TypeError for a value of the wrong kind).
"""
from __future__ import annotations

import operator
import re

from ._errors import ArgumentError

MAXIMUM_LINE = 300
"""The longest message this package raises, in characters (libpulsar's own are as short)."""

RANGES = {
    "int": (-(2 ** 31), 2 ** 31 - 1),
    "int64_t": (-(2 ** 63), 2 ** 63 - 1),
    "size_t": (0, 2 ** 64 - 1),
}
"""The C integer types of include/pulsar.h's arguments and members, and what each holds."""

MAXIMUM_SAMPLES = 2 ** 31 - 1
"""The most samples (frames × channels) one render or follower call takes."""

_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def line(text: str) -> str:
    """`text` on one line (control characters escaped) and at most MAXIMUM_LINE characters."""
    flat = _BREAKS.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 0x100 else "\\u%04x" % ord(m.group()), text)
    if len(flat) <= MAXIMUM_LINE:
        return flat
    head, tail = MAXIMUM_LINE - 130, 90
    return f"{flat[:head]}… ({len(flat) - head - tail} characters left out) …{flat[-tail:]}"


def short(value) -> str:
    """A value as a message shows it: its repr, cut to 40 characters (an int of any size too)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 40:
        return f"{'-' if value < 0 else ''}(an integer of {abs(value).bit_length()} bits)"
    try:
        text = repr(value)
    except Exception:  # a repr that fails is no reason to lose the real error
        text = f"<{type(value).__name__}>"
    return line(text if len(text) <= 40 else text[:37] + "...")


def refuse(message: str) -> ArgumentError:
    """An ArgumentError (code -1, as libpulsar's PULSAR_ERROR_ARGUMENT) with `message` on one line."""
    return ArgumentError(line(message), ArgumentError.code)


def integer(value, name: str, ctype: str = "int") -> int:
    """`value` as the Python int the C argument or member `name` of type `ctype` receives; a
    TypeError unless it is an integer (or an integral float), an ArgumentError unless it fits."""
    if isinstance(value, bool) or isinstance(value, (str, bytes)):
        raise TypeError(line(f"pulsar: {name} must be an integer, not {type(value).__name__}"))
    try:
        number = operator.index(value)
    except TypeError:
        number = _integral(value, name)
    low, high = RANGES[ctype]
    if not low <= number <= high:
        raise refuse(f"pulsar: {name} {short(number)} is out of range: a C {ctype} holds {low}...{high}")
    return number


def _integral(value, name: str) -> int:
    """An integral float (48000.0) as its int; anything else is refused."""
    try:
        real = float(value)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(line(f"pulsar: {name} must be an integer, not {type(value).__name__}")) from None
    if real != real or real in (float("inf"), float("-inf")) or not real.is_integer():
        raise refuse(f"pulsar: {name} {short(value)} is not a whole number")
    return int(real)


def out_array(out, name: str, samples: int, numpy):
    """`out` when the library may write `samples` float32 samples into its memory: a numpy array,
    float32 in the machine's byte order, C-contiguous, aligned, writable, of exactly that size."""
    if not isinstance(out, numpy.ndarray):
        raise TypeError(line(f"pulsar: {name} must be a numpy.ndarray, not {type(out).__name__}"))
    rule = f"{name} must be a writable, C-contiguous, aligned float32 array of {samples} samples"
    if out.dtype != numpy.float32:
        raise refuse(f"pulsar: {rule}; its dtype is {short(str(out.dtype))}")
    if not out.flags["C_CONTIGUOUS"] or not out.flags["ALIGNED"]:
        raise refuse(f"pulsar: {rule}; it is not C-contiguous and aligned (numpy.ascontiguousarray makes one)")
    if out.size != samples:
        raise refuse(f"pulsar: {rule}; it has {out.size}")
    if not out.flags["WRITEABLE"]:
        raise refuse(f"pulsar: {rule}; it is read-only (a read-only memmap, or numpy.frombuffer of bytes)")
    return out


def samples(frames: int, channels: int, name: str = "frames") -> int:
    """frames × channels, refused past what one call takes (before any array is made for it)."""
    if frames < 0:
        raise refuse(f"pulsar: {name} {short(frames)} is negative")
    if frames * channels > MAXIMUM_SAMPLES:
        raise refuse(f"pulsar: {name} {short(frames)} × {channels} channels is more than {MAXIMUM_SAMPLES} samples, "
                     "what one call takes: render in blocks")
    return frames * channels


def text(value, name: str) -> bytes | None:
    """A str argument as the library's NUL-terminated UTF-8 (None stays NULL); a NUL inside it,
    which C would stop at, is refused."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(line(f"pulsar: {name} must be a str, not {type(value).__name__}"))
    if "\0" in value:
        raise refuse(f"pulsar: {name} contains a NUL character (C would read only what comes before it)")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise refuse(f"pulsar: {name} is not valid Unicode (a lone surrogate): it cannot be UTF-8") from None
