"""pulsar — a small ctypes module over libpulsar (include/pulsar.h).

The library is found the way ctypes users expect: `PULSAR_LIBRARY` (a path) if set, else
`ctypes.util.find_library("pulsar")` (the system's library path, LD_LIBRARY_PATH included), else
`libpulsar.so.0` by name. Every failing call raises `PulsarError` with libpulsar's message.

    import pulsar
    with pulsar.Engine(device="sim") as engine:
        voice = engine.voice(pulsar.Mix.pattern_json('{"discretePattern": [...]}'))
        voice.play()
"""
import ctypes
import ctypes.util
import os

_path = os.environ.get("PULSAR_LIBRARY") or ctypes.util.find_library("pulsar") or "libpulsar.so.0"
_lib = ctypes.CDLL(_path)

_c = ctypes.c_void_p
_lib.pulsar_version.restype = ctypes.c_char_p
_lib.pulsar_last_error.restype = ctypes.c_char_p
for name, args, result in [
    ("pulsar_pattern_open", [ctypes.c_char_p, ctypes.POINTER(_c)], ctypes.c_int),
    ("pulsar_pattern_from_memory", [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(_c)], ctypes.c_int),
    ("pulsar_pattern_free", [_c], None),
    ("pulsar_bundle_open", [ctypes.c_char_p, ctypes.POINTER(_c)], ctypes.c_int),
    ("pulsar_bundle_preset_count", [_c], ctypes.c_int),
    ("pulsar_bundle_preset_id", [_c, ctypes.c_int], ctypes.c_char_p),
    ("pulsar_bundle_free", [_c], None),
    ("pulsar_mix_from_pattern", [_c, _c, ctypes.POINTER(_c)], ctypes.c_int),
    ("pulsar_mix_from_preset", [_c, ctypes.c_char_p, _c, ctypes.POINTER(_c)], ctypes.c_int),
    ("pulsar_mix_frames", [_c], ctypes.c_int64),
    ("pulsar_mix_channels", [_c], ctypes.c_int),
    ("pulsar_mix_sample_rate", [_c], ctypes.c_int),
    ("pulsar_mix_render", [_c, ctypes.c_int64, ctypes.POINTER(ctypes.c_float), ctypes.c_int64], ctypes.c_int),
    ("pulsar_mix_write_wav", [_c, ctypes.c_char_p], ctypes.c_int),
    ("pulsar_mix_free", [_c], None),
    ("pulsar_engine_create", [_c, ctypes.POINTER(_c)], ctypes.c_int),
    ("pulsar_engine_poll", [_c], ctypes.c_int),
    ("pulsar_engine_time", [_c], ctypes.c_double),
    ("pulsar_engine_stop", [_c], ctypes.c_int),
    ("pulsar_engine_free", [_c], None),
    ("pulsar_engine_voice", [_c, _c, ctypes.c_int, ctypes.c_int, ctypes.POINTER(_c)], ctypes.c_int),
    ("pulsar_voice_free", [_c], None),
    ("pulsar_voice_play", [_c, ctypes.c_double], ctypes.c_int),
    ("pulsar_voice_play_at", [_c, ctypes.c_double], ctypes.c_int),
    ("pulsar_voice_pause", [_c], ctypes.c_int),
    ("pulsar_voice_resume", [_c], ctypes.c_int),
    ("pulsar_voice_stop", [_c], ctypes.c_int),
    ("pulsar_voice_seek", [_c, ctypes.c_double], ctypes.c_int),
    ("pulsar_voice_set_intensity", [_c, ctypes.c_double, ctypes.c_double], ctypes.c_int),
    ("pulsar_voice_set_sharpness", [_c, ctypes.c_double, ctypes.c_double], ctypes.c_int),
    ("pulsar_voice_set_intensity_curve", [_c, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double), ctypes.c_int], ctypes.c_int),
    ("pulsar_voice_content_ms", [_c], ctypes.c_double),
    ("pulsar_voice_has_ended", [_c], ctypes.c_int),
    ("pulsar_voice_on_completion", [_c, _c, _c], ctypes.c_int),
]:
    function = getattr(_lib, name)
    function.argtypes = args
    function.restype = result

COMPLETION = ctypes.CFUNCTYPE(None, _c, ctypes.c_int, _c)


class PulsarError(Exception):
    """A libpulsar call failed: `code` is its pulsar_result, the message libpulsar's."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _check(code):
    if code < 0:
        message = _lib.pulsar_last_error()
        raise PulsarError(code, message.decode("utf-8", "replace") if message else "error %d" % code)
    return code


def version():
    return _lib.pulsar_version().decode()


class _MixOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("sample_rate", ctypes.c_int), ("layout", ctypes.c_char_p),
                ("profile", ctypes.c_char_p), ("haptic_gain", ctypes.c_double), ("audio_gain", ctypes.c_double),
                ("loop_count", ctypes.c_int)]


class _EngineOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("device", ctypes.c_char_p), ("layout", ctypes.c_char_p),
                ("sample_rate", ctypes.c_int), ("period_frames", ctypes.c_int), ("buffer_frames", ctypes.c_int),
                ("voice_limit", ctypes.c_int), ("haptic_device", ctypes.c_char_p), ("haptic_layout", ctypes.c_char_p),
                ("latency_ms", ctypes.c_double), ("haptic_latency_ms", ctypes.c_double), ("log_path", ctypes.c_char_p)]


def _encode(text):
    return text.encode("utf-8") if text is not None else None


class Mix:
    """What a device would receive: a pattern, or a bundle preset with its audio, in a layout."""

    def __init__(self, handle):
        self._handle = handle

    @staticmethod
    def _options(layout, sample_rate, loop_count):
        o = _MixOptions(ctypes.sizeof(_MixOptions), sample_rate, _encode(layout), None, 0, 0, loop_count)
        return ctypes.byref(o), o

    @classmethod
    def pattern_file(cls, path, layout=None, sample_rate=0, loop_count=0):
        pattern = _c()
        _check(_lib.pulsar_pattern_open(_encode(path), ctypes.byref(pattern)))
        return cls._from_pattern(pattern, layout, sample_rate, loop_count)

    @classmethod
    def pattern_json(cls, text, layout=None, sample_rate=0, loop_count=0):
        pattern = _c()
        data = _encode(text)
        _check(_lib.pulsar_pattern_from_memory(data, len(data), ctypes.byref(pattern)))
        return cls._from_pattern(pattern, layout, sample_rate, loop_count)

    @classmethod
    def _from_pattern(cls, pattern, layout, sample_rate, loop_count):
        mix = _c()
        options, keep = cls._options(layout, sample_rate, loop_count)
        try:
            _check(_lib.pulsar_mix_from_pattern(pattern, options, ctypes.byref(mix)))
        finally:
            _lib.pulsar_pattern_free(pattern)
        return cls(mix)

    @classmethod
    def preset(cls, bundle_path, preset_id, layout=None, sample_rate=0, loop_count=0):
        bundle, mix = _c(), _c()
        _check(_lib.pulsar_bundle_open(_encode(bundle_path), ctypes.byref(bundle)))
        options, keep = cls._options(layout, sample_rate, loop_count)
        try:
            _check(_lib.pulsar_mix_from_preset(bundle, _encode(preset_id), options, ctypes.byref(mix)))
        finally:
            _lib.pulsar_bundle_free(bundle)
        return cls(mix)

    @property
    def frames(self):
        return _lib.pulsar_mix_frames(self._handle)

    @property
    def channels(self):
        return _lib.pulsar_mix_channels(self._handle)

    def render(self, from_frame, frames):
        """`frames` interleaved frames from `from_frame`, as a list of floats."""
        buffer = (ctypes.c_float * (frames * self.channels))()
        _check(_lib.pulsar_mix_render(self._handle, from_frame, buffer, frames))
        return list(buffer)

    def write_wav(self, path):
        _check(_lib.pulsar_mix_write_wav(self._handle, _encode(path)))

    def close(self):
        if self._handle:
            _lib.pulsar_mix_free(self._handle)
            self._handle = None

    __del__ = close


class Voice:
    """A voice of an engine: transport, live parameters, its clock."""

    def __init__(self, handle):
        self._handle = handle
        self._callback = None

    def play(self, from_ms=0.0):
        _check(_lib.pulsar_voice_play(self._handle, from_ms))

    def play_at(self, engine_time):
        _check(_lib.pulsar_voice_play_at(self._handle, engine_time))

    def pause(self):
        _check(_lib.pulsar_voice_pause(self._handle))

    def resume(self):
        _check(_lib.pulsar_voice_resume(self._handle))

    def stop(self):
        _check(_lib.pulsar_voice_stop(self._handle))

    def seek(self, ms):
        _check(_lib.pulsar_voice_seek(self._handle, ms))

    def set_intensity(self, value, seconds=0.0):
        _check(_lib.pulsar_voice_set_intensity(self._handle, value, seconds))

    def set_sharpness(self, value, seconds=0.0):
        _check(_lib.pulsar_voice_set_sharpness(self._handle, value, seconds))

    def set_intensity_curve(self, points):
        """`points`: (engine time in seconds, value) pairs, times rising."""
        times = (ctypes.c_double * len(points))(*[p[0] for p in points])
        values = (ctypes.c_double * len(points))(*[p[1] for p in points])
        _check(_lib.pulsar_voice_set_intensity_curve(self._handle, times, values, len(points)))

    @property
    def content_ms(self):
        return _lib.pulsar_voice_content_ms(self._handle)

    @property
    def has_ended(self):
        return _lib.pulsar_voice_has_ended(self._handle) == 1

    def on_completion(self, function):
        """`function(finished)`, called from Engine.poll when the playback ends."""
        self._callback = COMPLETION(lambda voice, finished, context: function(bool(finished)))
        _check(_lib.pulsar_voice_on_completion(self._handle, ctypes.cast(self._callback, _c), None))

    def close(self):
        if self._handle:
            _lib.pulsar_voice_free(self._handle)
            self._handle = None


class Engine:
    """Voices on a device: `device` "auto", an ALSA name, or "sim[:…]"; `layout` every mix's;
    `log` the event log written when the engine stops (`pulsar render --replay LOG`)."""

    def __init__(self, device="auto", layout=None, sample_rate=0, voice_limit=0, log=None):
        self._options = _EngineOptions(ctypes.sizeof(_EngineOptions), _encode(device), _encode(layout), sample_rate, 0, 0,
                                       voice_limit, None, None, 0, 0, _encode(log))
        self._handle = _c()
        self._voices = []
        _check(_lib.pulsar_engine_create(ctypes.byref(self._options), ctypes.byref(self._handle)))

    def voice(self, mix, priority=0, realtime=False):
        handle = _c()
        _check(_lib.pulsar_engine_voice(self._handle, mix._handle, priority, 1 if realtime else 0, ctypes.byref(handle)))
        v = Voice(handle)
        self._voices.append(v)
        return v

    def poll(self):
        _check(_lib.pulsar_engine_poll(self._handle))

    def time(self):
        return _lib.pulsar_engine_time(self._handle)

    def stop(self):
        _check(_lib.pulsar_engine_stop(self._handle))

    def close(self):
        if self._handle:
            self.stop()
            for v in self._voices:
                v.close()
            _lib.pulsar_engine_free(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
