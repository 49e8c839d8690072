"""libpulsar through ctypes: finding the library, its functions' C signatures, its structs.

The library is looked for, in order: `PULSAR_LIBRARY` (a path), the `libpulsar.so.0` inside this
package (a wheel built by `make wheel` carries it), `ctypes.util.find_library("pulsar")` (the
system's library path), then `libpulsar.so.0` by name (LD_LIBRARY_PATH). Its ABI version must be
the one this package was written for.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os

from . import _checks

ABI_VERSION = 0
"""The libpulsar ABI (PULSAR_ABI_VERSION of pulsar.h) these bindings follow."""

handle_t = ctypes.c_void_p


def _library_path() -> str:
    given = os.environ.get("PULSAR_LIBRARY")
    if given:
        return given
    inside = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libpulsar.so.0")
    if os.path.exists(inside):
        return inside
    return ctypes.util.find_library("pulsar") or "libpulsar.so.0"


path = _library_path()
try:
    lib = ctypes.CDLL(path)
except OSError as error:
    raise ImportError(f"pulsar: cannot load libpulsar ({path}): {error}; set PULSAR_LIBRARY to its path "
                      "or LD_LIBRARY_PATH to its folder") from error

lib.pulsar_abi_version.restype = ctypes.c_int
lib.pulsar_abi_version.argtypes = []
if lib.pulsar_abi_version() != ABI_VERSION:
    raise ImportError(f"pulsar: {path} has ABI version {lib.pulsar_abi_version()}; these bindings need {ABI_VERSION}")

_P = ctypes.POINTER
_int, _i64, _dbl, _str = ctypes.c_int, ctypes.c_int64, ctypes.c_double, ctypes.c_char_p
for name, args, result in [
    ("pulsar_version", [], _str),
    ("pulsar_last_error", [], _str),
    ("pulsar_pattern_open", [_str, _P(handle_t)], _int),
    ("pulsar_pattern_from_memory", [ctypes.c_void_p, ctypes.c_size_t, _P(handle_t)], _int),
    ("pulsar_pattern_duration_ms", [handle_t], _dbl),
    ("pulsar_pattern_warning_count", [handle_t], _int),
    ("pulsar_pattern_warning", [handle_t, _int], _str),
    ("pulsar_pattern_lint", [handle_t, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t], _int),
    ("pulsar_pattern_free", [handle_t], None),
    ("pulsar_bundle_open", [_str, _P(handle_t)], _int),
    ("pulsar_bundle_preset_count", [handle_t], _int),
    ("pulsar_bundle_preset_id", [handle_t, _int], _str),
    ("pulsar_bundle_warning_count", [handle_t], _int),
    ("pulsar_bundle_warning", [handle_t, _int], _str),
    ("pulsar_bundle_free", [handle_t], None),
    ("pulsar_mix_from_pattern", [handle_t, ctypes.c_void_p, _P(handle_t)], _int),
    ("pulsar_mix_from_preset", [handle_t, _str, ctypes.c_void_p, _P(handle_t)], _int),
    ("pulsar_mix_open", [_str, _str, ctypes.c_void_p, _P(handle_t)], _int),
    ("pulsar_replay", [_str, _int, _P(ctypes.c_float), _i64, _P(_i64), _P(_int), _P(_int)], _int),
    ("pulsar_mix_warning_count", [handle_t], _int),
    ("pulsar_mix_warning", [handle_t, _int], _str),
    ("pulsar_mix_frames", [handle_t], _i64),
    ("pulsar_mix_channels", [handle_t], _int),
    ("pulsar_mix_sample_rate", [handle_t], _int),
    ("pulsar_mix_render", [handle_t, _i64, _P(ctypes.c_float), _i64], _int),
    ("pulsar_mix_write_wav", [handle_t, _str], _int),
    ("pulsar_mix_free", [handle_t], None),
    ("pulsar_follower_create", [ctypes.c_void_p, _P(handle_t)], _int),
    ("pulsar_follower_process", [handle_t, _P(ctypes.c_float), _int, _i64, _P(ctypes.c_float)], _int),
    ("pulsar_follower_onsets", [handle_t], _i64),
    ("pulsar_follower_free", [handle_t], None),
    ("pulsar_engine_create", [ctypes.c_void_p, _P(handle_t)], _int),
    ("pulsar_engine_poll", [handle_t], _int),
    ("pulsar_engine_time", [handle_t], _dbl),
    ("pulsar_engine_is_idle", [handle_t], _int),
    ("pulsar_engine_set_master_gain", [handle_t, _dbl, _dbl], _int),
    ("pulsar_engine_stop", [handle_t], _int),
    ("pulsar_engine_free", [handle_t], None),
    ("pulsar_engine_voice", [handle_t, handle_t, _int, _int, _P(handle_t)], _int),
    ("pulsar_voice_free", [handle_t], None),
    ("pulsar_voice_play", [handle_t, _dbl], _int),
    ("pulsar_voice_play_at", [handle_t, _dbl], _int),
    ("pulsar_voice_pause", [handle_t], _int),
    ("pulsar_voice_resume", [handle_t], _int),
    ("pulsar_voice_stop", [handle_t], _int),
    ("pulsar_voice_seek", [handle_t, _dbl], _int),
    ("pulsar_voice_set_intensity", [handle_t, _dbl, _dbl], _int),
    ("pulsar_voice_set_sharpness", [handle_t, _dbl, _dbl], _int),
    ("pulsar_voice_set_intensity_curve", [handle_t, _P(_dbl), _P(_dbl), _int], _int),
    ("pulsar_voice_set_content_time", [handle_t, _dbl], _int),
    ("pulsar_voice_content_ms", [handle_t], _dbl),
    ("pulsar_voice_animation_frame", [handle_t], _dbl),
    ("pulsar_voice_has_ended", [handle_t], _int),
    ("pulsar_voice_on_completion", [handle_t, ctypes.c_void_p, ctypes.c_void_p], _int),
]:
    function = getattr(lib, name)
    function.argtypes = args
    function.restype = result

COMPLETION = ctypes.CFUNCTYPE(None, handle_t, ctypes.c_int, ctypes.c_void_p)
"""pulsar_completion: (voice, finished, context)."""


class MixOptions(ctypes.Structure):
    """pulsar_mix_options (include/pulsar.abi records its layout)."""
    _fields_ = [("size", ctypes.c_size_t), ("sample_rate", ctypes.c_int), ("layout", _str), ("profile", _str),
                ("haptic_gain", _dbl), ("audio_gain", _dbl), ("loop_count", ctypes.c_int), ("actuator", _str),
                ("derive", ctypes.c_int), ("from_ms", _dbl), ("to_ms", _dbl), ("haptic_offset_ms", _dbl), ("reverse", ctypes.c_int)]


class FollowerOptions(ctypes.Structure):
    """pulsar_follower_options."""
    _fields_ = [("size", ctypes.c_size_t), ("sample_rate", ctypes.c_int), ("method", _str), ("profile", _str),
                ("band_low_hz", _dbl), ("band_high_hz", _dbl), ("gain_db", _dbl), ("gate_db", _dbl),
                ("attack_ms", _dbl), ("release_ms", _dbl), ("no_transients", ctypes.c_int)]


class EngineOptions(ctypes.Structure):
    """pulsar_engine_options."""
    _fields_ = [("size", ctypes.c_size_t), ("device", _str), ("layout", _str), ("sample_rate", ctypes.c_int),
                ("period_frames", ctypes.c_int), ("buffer_frames", ctypes.c_int), ("voice_limit", ctypes.c_int),
                ("haptic_device", _str), ("haptic_layout", _str), ("latency_ms", _dbl), ("haptic_latency_ms", _dbl),
                ("log_path", _str)]


def encode(text: str | None, name: str = "the string") -> bytes | None:
    """A str argument `name` as the library's NUL-terminated UTF-8 (None stays NULL); see
    `_checks.text`."""
    return _checks.text(text, name)
