"""pulsar — haptic patterns and presets rendered as audio-rate waveforms, and played live.

Python bindings of libpulsar (include/pulsar.h). Renders come back as numpy float32 arrays the
library wrote into directly; the engine plays voices on a sound device (or the simulated one)
with live parameters and a clock read from the device.

    import pulsar
    samples = pulsar.Pattern.open("tap.json").render(rate=48000)    # what `pulsar render` writes
    with pulsar.Engine(device="sim") as engine:
        voice = engine.voice(pulsar.Pattern.open("tap.json").mix())
        voice.play()

Every failing call raises a PulsarError (a subclass per libpulsar result code) carrying the
library's one-line message and its code. Arguments are checked before they reach C: an integer
the C type cannot hold, an `out=` array the library may not write into (read-only, not
C-contiguous float32 of the right size) or a str holding a NUL raises ArgumentError (TypeError for
a value of the wrong kind), never a crash or a silently cut value. numpy is needed for renders and
the follower only.
"""
from __future__ import annotations

import ctypes
import math
from typing import TYPE_CHECKING, Callable, Iterable, Optional, Tuple

from . import _checks, _native
from ._checks import integer as _integer
from ._errors import (ERRORS as _ERRORS, ArgumentError, BusyError, DataError, DeviceError, NotFoundError, OutputError,
                      PulsarError, StateError)
from ._native import ABI_VERSION, lib as _lib

__all__ = ["ABI_VERSION", "MAX_CURVE_POINTS", "Bundle", "Engine", "Follower", "Mix", "Pattern", "PulsarError", "ArgumentError",
           "NotFoundError", "DataError", "OutputError", "DeviceError", "BusyError", "StateError", "Voice", "replay", "version"]

MAX_CURVE_POINTS = 1024
"""Most points of one curve (Voice.set_intensity_curve): the engine's limit, include/pulsar.h's
PULSAR_MAX_CURVE_POINTS."""


if TYPE_CHECKING:
    import numpy as np


def _numpy():
    """numpy, imported when an array is first made: the engine and its voices work without it."""
    try:
        import numpy
    except ImportError as error:
        raise ImportError("pulsar: renders come back as numpy arrays: pip install numpy") from error
    return numpy


def _check(code: int) -> int:
    if code < 0:
        message = _lib.pulsar_last_error()
        text = _checks.line(message.decode("utf-8", "replace")) if message else f"libpulsar error {code}"
        raise _ERRORS.get(code, PulsarError)(text, code)
    return code


def _made(function, *arguments) -> ctypes.c_void_p:
    """The handle a `pulsar_*` maker writes to its last (out) parameter; raises on failure."""
    handle = ctypes.c_void_p()
    _check(function(*arguments, ctypes.byref(handle)))
    return handle


def version() -> str:
    """libpulsar's version, e.g. "0.1.0"."""
    return _lib.pulsar_version().decode()


def replay(log_path: str, haptic_device: bool = False) -> Tuple["np.ndarray", int]:
    """What a logged session's device played, rebuilt from its event log (`Engine(log_path=…)`) as
    `pulsar render --replay` rebuilds it, bit for bit: the samples, shape (frames, channels), and
    the sample rate. `haptic_device`: the haptic device of two."""
    np = _numpy()
    path = _native.encode(log_path, "log_path")
    frames, channels, rate = ctypes.c_int64(), ctypes.c_int(), ctypes.c_int()
    _check(_lib.pulsar_replay(path, 1 if haptic_device else 0, None, 0, ctypes.byref(frames), ctypes.byref(channels),
                              ctypes.byref(rate)))
    out = np.empty((frames.value, channels.value), dtype=np.float32)
    _check(_lib.pulsar_replay(path, 1 if haptic_device else 0, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), frames.value,
                              ctypes.byref(frames), ctypes.byref(channels), ctypes.byref(rate)))
    return out, rate.value


class _Handle:
    """An owned libpulsar handle, freed once by close() (or when collected)."""

    _free: Callable[[ctypes.c_void_p], None]

    def __init__(self, handle: ctypes.c_void_p):
        self._handle: Optional[ctypes.c_void_p] = handle

    @property
    def handle(self) -> ctypes.c_void_p:
        if not self._handle:
            raise StateError(f"pulsar: this {type(self).__name__} is closed", StateError.code)
        return self._handle

    def close(self) -> None:
        """Frees the library's object now (also done when this one is collected)."""
        if getattr(self, "_handle", None):
            type(self)._free(self._handle)
            self._handle = None

    def __del__(self) -> None:
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _mix_options(rate: int, layout: Optional[str], profile: Optional[str], haptic_gain: Optional[float], audio_gain: Optional[float],
                 loop_count: int, actuator: Optional[str] = None, derive: bool = False, from_ms: Optional[float] = None,
                 to_ms: Optional[float] = None, haptic_offset_ms: float = 0.0, reverse: bool = False) -> _native.MixOptions:
    return _native.MixOptions(ctypes.sizeof(_native.MixOptions), _integer(rate, "rate"), _native.encode(layout, "layout"),
                              # None: the device's own gain (an actuator's config, else 1), as the command's default.
                              _native.encode(profile, "profile"), 0.0 if haptic_gain is None else float(haptic_gain),
                              0.0 if audio_gain is None else float(audio_gain),
                              _integer(loop_count, "loop_count"), _native.encode(actuator, "actuator"), 1 if derive else 0,
                              float(from_ms or 0.0), float(to_ms or 0.0), float(haptic_offset_ms), 1 if reverse else 0)


class Mix(_Handle):
    """What a device would receive: a pattern, or a bundle preset with its audio, in a channel layout
    at a sample rate. Any frame may start a render; the samples equal a render from 0."""

    _free = _lib.pulsar_mix_free

    @classmethod
    def open(cls, path: str, preset: Optional[str] = None, rate: int = 48000, layout: Optional[str] = None,
             profile: Optional[str] = None, actuator: Optional[str] = None, haptic_gain: Optional[float] = None,
             audio_gain: Optional[float] = None, loop_count: int = 1, derive: bool = False, from_ms: Optional[float] = None,
             to_ms: Optional[float] = None, haptic_offset_ms: float = 0.0, reverse: bool = False) -> "Mix":
        """Any input as `pulsar render INPUT` reads it: a bundle (`preset`, or its only one), a pattern
        file, or an audio file (a preset of audio alone, which `derive` gives haptics from its sound).
        The device: `actuator` or `profile`, else a preset's own actuator, else wideband; the layout:
        "haptic" for a pattern, "stereo+haptic" for audio, "mix" for a bundle's preset; `from_ms` /
        `to_ms` a segment, `haptic_offset_ms` the haptics against the audio, `reverse` boomerang loops
        (`loop_count` -1 endless). What was warned on the way is `warnings`."""
        options = _mix_options(rate, layout, profile, haptic_gain, audio_gain, loop_count, actuator, derive,
                               from_ms, to_ms, haptic_offset_ms, reverse)
        return cls(_made(_lib.pulsar_mix_open, _native.encode(path, "path"), _native.encode(preset, "preset"),
                         ctypes.byref(options)))

    @property
    def warnings(self) -> list[str]:
        """The warnings met making the mix (by `open`), one line each."""
        count = _check(_lib.pulsar_mix_warning_count(self.handle))
        return [_lib.pulsar_mix_warning(self.handle, i).decode() for i in range(count)]

    @property
    def frames(self) -> Optional[int]:
        """Frames of the whole mix, or None for an endless loop."""
        n = _lib.pulsar_mix_frames(self.handle)
        return None if n == -1 else _check(n)

    @property
    def channels(self) -> int:
        """Channels per frame (the layout's)."""
        return _check(_lib.pulsar_mix_channels(self.handle))

    @property
    def sample_rate(self) -> int:
        """Frames per second."""
        return _check(_lib.pulsar_mix_sample_rate(self.handle))

    def render(self, start: int = 0, frames: Optional[int] = None, out: Optional[np.ndarray] = None,
               always_2d: bool = False) -> np.ndarray:
        """`frames` frames from frame `start` (default: to the end; required for an endless mix) as
        float32, shape (frames, channels) — (frames,) for one channel unless `always_2d`. The library
        writes into the array's memory: pass `out` (a writable, C-contiguous float32 array of
        frames × channels samples) to reuse one; anything else raises before the library is called.
        At most 2**31 - 1 samples a call."""
        start = _integer(start, "start", "int64_t")
        if frames is None:
            total = self.frames
            if total is None:
                raise ArgumentError("pulsar: an endless mix needs frames=", ArgumentError.code)
            frames = max(total - start, 0)
        frames = _integer(frames, "frames", "int64_t")
        np = _numpy()
        channels = self.channels
        count = _checks.samples(frames, channels)
        shape = (frames, channels) if channels > 1 or always_2d else (frames,)
        out = np.empty(shape, dtype=np.float32) if out is None else _checks.out_array(out, "out", count, np)
        _check(_lib.pulsar_mix_render(self.handle, start, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), frames))
        return out

    def write_wav(self, path: str) -> None:
        """The whole mix as a 32-bit float WAV (Ogg Vorbis with Android's haptic comment for `.ogg`)."""
        _check(_lib.pulsar_mix_write_wav(self.handle, _native.encode(path, "path")))


class Pattern(_Handle):
    """A haptic pattern: Pulsar JSON, AHAP or Lofelt `.haptic`, read by its content."""

    _free = _lib.pulsar_pattern_free

    @classmethod
    def open(cls, path: str) -> "Pattern":
        """Reads the pattern file at `path`."""
        return cls(_made(_lib.pulsar_pattern_open, _native.encode(path, "path")))

    @classmethod
    def from_json(cls, text: str | bytes) -> "Pattern":
        """A pattern from its text (any of the formats `open` reads)."""
        if isinstance(text, str):
            data = text.encode("utf-8")
        elif isinstance(text, (bytes, bytearray, memoryview)):
            data = bytes(text)
        else:  # bytes(n) would make n zero bytes
            raise TypeError(_checks.line(f"pulsar: text must be a str or bytes, not {type(text).__name__}"))
        return cls(_made(_lib.pulsar_pattern_from_memory, data, _integer(len(data), "len(text)", "size_t")))

    @property
    def duration_ms(self) -> float:
        """How long the pattern sounds, ms: its render on the default device (wideband at 48 kHz),
        a lone transient's burst included."""
        value = _lib.pulsar_pattern_duration_ms(self.handle)
        if math.isnan(value):
            _check(-1)
        return value

    @property
    def warnings(self) -> list[str]:
        """The warnings met reading the pattern (what `pulsar` prints on stderr), one line each."""
        count = _check(_lib.pulsar_pattern_warning_count(self.handle))
        return [_lib.pulsar_pattern_warning(self.handle, i).decode() for i in range(count)]

    def lint(self, profile: Optional[str] = None, actuator: Optional[str] = None, rate: int = 48000) -> dict:
        """What a device cannot do with the pattern (docs/actuators.md, "Lint"): the object
        `pulsar lint --json` prints — `device`, and `findings`, each with `fromMs`, `toMs`, `rule`,
        `message`, `value` and `bound`. The device: `profile` ("wideband" by default) or `actuator`."""
        import json
        options = _mix_options(rate, None, profile, 0.0, 0.0, 0, actuator)
        size = _check(_lib.pulsar_pattern_lint(self.handle, ctypes.byref(options), None, 0))
        text = ctypes.create_string_buffer(size + 1)
        _check(_lib.pulsar_pattern_lint(self.handle, ctypes.byref(options), text, size + 1))
        return json.loads(text.value.decode())

    def mix(self, rate: int = 48000, layout: Optional[str] = None, profile: Optional[str] = None,
            haptic_gain: Optional[float] = None, loop_count: int = 1, actuator: Optional[str] = None) -> Mix:
        """The pattern mixed alone: `layout` "haptic" (the default), "stereo+haptic", "quad", a channel
        map like "L+H,R+H,0"; `profile` "wideband" (default), "lra", "lra:HZ" or "FMIN:FMAX", or
        `actuator` an actuator config instead (a .acf path, or a shipped name found in
        $PULSAR_ACTUATORS; docs/actuators.md); `loop_count` -1 for endless."""
        options = _mix_options(rate, layout, profile, haptic_gain, 1.0, loop_count, actuator)
        return Mix(_made(_lib.pulsar_mix_from_pattern, self.handle, ctypes.byref(options)))

    def render(self, rate: int = 48000, layout: Optional[str] = None, profile: Optional[str] = None,
               haptic_gain: Optional[float] = None, loop_count: int = 1, always_2d: bool = False,
               actuator: Optional[str] = None) -> np.ndarray:
        """The whole pattern rendered: the samples `pulsar render` writes with the same options."""
        with self.mix(rate, layout, profile, haptic_gain, loop_count, actuator) as mix:
            return mix.render(always_2d=always_2d)


class Bundle(_Handle):
    """A `.pulsar` preset bundle (a ZIP file or an unpacked folder)."""

    _free = _lib.pulsar_bundle_free

    @classmethod
    def open(cls, path: str) -> "Bundle":
        """Opens the bundle at `path`, checking its manifest and entries."""
        return cls(_made(_lib.pulsar_bundle_open, _native.encode(path, "path")))

    @property
    def presets(self) -> list[str]:
        """The presets' ids, in the manifest's order."""
        count = _check(_lib.pulsar_bundle_preset_count(self.handle))
        return [_lib.pulsar_bundle_preset_id(self.handle, i).decode() for i in range(count)]

    @property
    def warnings(self) -> list[str]:
        """The warnings met opening the bundle, one line each."""
        count = _check(_lib.pulsar_bundle_warning_count(self.handle))
        return [_lib.pulsar_bundle_warning(self.handle, i).decode() for i in range(count)]

    def mix(self, preset: str, rate: int = 48000, layout: Optional[str] = None, profile: Optional[str] = None,
            haptic_gain: Optional[float] = None, audio_gain: Optional[float] = None, loop_count: int = 1, actuator: Optional[str] = None) -> Mix:
        """The preset with its audio (decoded now, in full); `layout` defaults to "mix"; `actuator`
        an actuator config (path or shipped name) instead of `profile`; with neither, the preset's
        own actuator when its manifest names one."""
        options = _mix_options(rate, layout, profile, haptic_gain, audio_gain, loop_count, actuator)
        return Mix(_made(_lib.pulsar_mix_from_preset, self.handle, _native.encode(preset, "preset"), ctypes.byref(options)))

    def render(self, preset: str, rate: int = 48000, layout: Optional[str] = None, **options) -> np.ndarray:
        """The whole preset rendered (as `pulsar render BUNDLE --preset ID`)."""
        with self.mix(preset, rate, layout, **options) as mix:
            return mix.render()


class Follower(_Handle):
    """Touch from sound as it comes (docs/derive.md, "Following live sound"): causal, no look-ahead,
    its output independent of how the sound is cut into calls."""

    _free = _lib.pulsar_follower_free

    def __init__(self, rate: int = 48000, method: str = "envelope", profile: Optional[str] = None,
                 band: Tuple[float, float] = (40.0, 250.0), gain_db: float = 0.0, gate_db: float = -50.0,
                 attack_ms: float = 2.0, release_ms: float = 80.0, transients: bool = True):
        options = _native.FollowerOptions(ctypes.sizeof(_native.FollowerOptions), _integer(rate, "rate"),
                                          _native.encode(method, "method"), _native.encode(profile, "profile"), float(band[0]), float(band[1]), float(gain_db),
                                          float(gate_db), float(attack_ms), float(release_ms), 0 if transients else 1)
        super().__init__(_made(_lib.pulsar_follower_create, ctypes.byref(options)))

    def process(self, sound: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
        """`sound`, shape (frames,) or (frames, channels) (their mean is the sound), to mono haptic
        samples in -1…1, shape (frames,). `out`, to reuse one: a writable, C-contiguous float32 array
        of `frames` samples (anything else raises before the library is called)."""
        np = _numpy()
        sound = np.ascontiguousarray(sound, dtype=np.float32)
        if sound.ndim not in (1, 2):
            raise _checks.refuse(f"pulsar: sound must have shape (frames,) or (frames, channels), not {sound.shape}")
        frames = sound.shape[0]
        channels = _integer(1 if sound.ndim == 1 else sound.shape[1], "channels")
        _checks.samples(frames, channels, "sound's frames")
        out = np.empty(frames, dtype=np.float32) if out is None else _checks.out_array(out, "out", frames, np)
        pointer = ctypes.POINTER(ctypes.c_float)
        _check(_lib.pulsar_follower_process(self.handle, sound.ctypes.data_as(pointer), channels,
                                            _integer(frames, "frames", "int64_t"), out.ctypes.data_as(pointer)))
        return out

    @property
    def onsets(self) -> int:
        """Onsets that fired a click so far."""
        return _check(_lib.pulsar_follower_onsets(self.handle))


class Voice(_Handle):
    """A voice of an engine: transport, live parameters, its clock. Commands take effect at a
    device frame; every one may raise StateError once the voice has ended."""

    _free = _lib.pulsar_voice_free

    def __init__(self, handle: ctypes.c_void_p, engine: "Engine", mix: Mix):
        super().__init__(handle)
        self._engine, self._mix = engine, mix  # both outlive the voice's use of them
        self._callback = None

    def play(self, from_ms: float = 0.0) -> None:
        """Plays from `from_ms` of the content (0 or more, within 24 h)."""
        _check(_lib.pulsar_voice_play(self.handle, float(from_ms)))

    def play_at(self, engine_time: float) -> None:
        """Starts at `engine_time` (Engine.time's clock), on the device frame it falls on."""
        _check(_lib.pulsar_voice_play_at(self.handle, float(engine_time)))

    def pause(self) -> None:
        """Pauses at the next device frame; resume() goes on from there."""
        _check(_lib.pulsar_voice_pause(self.handle))

    def resume(self) -> None:
        """Resumes a paused voice."""
        _check(_lib.pulsar_voice_resume(self.handle))

    def stop(self) -> None:
        """Stops the voice (a 1 ms fade); it ends and reports finished=False."""
        _check(_lib.pulsar_voice_stop(self.handle))

    def seek(self, to_ms: float) -> None:
        """Moves the content to `to_ms`, at the next device frame."""
        _check(_lib.pulsar_voice_seek(self.handle, float(to_ms)))

    def set_intensity(self, value: float, seconds: float = 0.0) -> None:
        """Multiplies the voice's haptics (0…4), ramped per sample over `seconds`; 0 is "at once",
        a 4 ms ramp, never a step (as the script's `over 0`). Changes sent together all take effect,
        in the order sent: one that lands at the frame of the one before, or during that one's 4 ms
        at once, starts where it ends."""
        _check(_lib.pulsar_voice_set_intensity(self.handle, float(value), float(seconds)))

    def set_sharpness(self, value: float, seconds: float = 0.0) -> None:
        """Moves the voice's frequency (-1…1), ramped over `seconds` (0: at once, a 4 ms ramp)."""
        _check(_lib.pulsar_voice_set_sharpness(self.handle, float(value), float(seconds)))

    def set_intensity_curve(self, points: Iterable[Tuple[float, float]]) -> None:
        """(engine time, value) points at strictly rising times, each reached at its time (1 to
        MAX_CURVE_POINTS, 1024 points: the engine's limit)."""
        pairs = [(float(t), float(v)) for t, v in points]
        if len(pairs) > MAX_CURVE_POINTS:
            raise ArgumentError(f"set_intensity_curve: {len(pairs)} points: the engine takes at most {MAX_CURVE_POINTS} points")
        count = _integer(len(pairs), "the number of points")
        times = (ctypes.c_double * count)(*[t for t, _ in pairs])
        values = (ctypes.c_double * count)(*[v for _, v in pairs])
        _check(_lib.pulsar_voice_set_intensity_curve(self.handle, times, values, count))

    def set_content_time(self, ms: float) -> None:
        """A realtime voice's content position (the app moves it)."""
        _check(_lib.pulsar_voice_set_content_time(self.handle, float(ms)))

    @property
    def content_ms(self) -> float:
        """The content time heard now, ms, from the device's position (NaN before its first reading)."""
        return _lib.pulsar_voice_content_ms(self.handle)

    @property
    def animation_frame(self) -> float:
        """The animation frame to show now (a preset with an animation; NaN otherwise)."""
        return _lib.pulsar_voice_animation_frame(self.handle)

    @property
    def has_ended(self) -> bool:
        """True once the voice has left the engine (played out, stopped, stolen, engine stopped)."""
        return _check(_lib.pulsar_voice_has_ended(self.handle)) == 1

    def on_completion(self, function: Optional[Callable[[bool], None]]) -> None:
        """`function(finished)` runs inside Engine.poll when the playback ends: True when it played
        out, False when stopped or stolen. None removes it. The callback is kept alive here."""
        if function is None:
            _check(_lib.pulsar_voice_on_completion(self.handle, None, None))
            self._callback = None
            return
        callback = _native.COMPLETION(lambda voice, finished, context: function(bool(finished)))
        _check(_lib.pulsar_voice_on_completion(self.handle, ctypes.cast(callback, ctypes.c_void_p), None))
        self._callback = callback

    def close(self) -> None:
        """Ends the handle; the voice plays on until it ends, and its callback (kept alive by the
        engine) still runs."""
        if getattr(self, "_handle", None) and self._callback is not None:
            self._engine._orphans.append(self._callback)
        super().close()


class Engine(_Handle):
    """Voices on a device, with a real-time thread. `device`: "auto", "pw:", "pw:NODE", "dualsense",
    an ALSA name, or the simulated device "sim[:ppm=P,record=OUT.wav,...]"; `layout` is every mix's;
    `log` the event log written when the engine stops (`pulsar render --replay LOG` rebuilds what
    the device played from it)."""

    _free = _lib.pulsar_engine_free

    def __init__(self, device: str = "auto", layout: Optional[str] = None, sample_rate: int = 0,
                 period_frames: int = 0, buffer_frames: int = 0, voice_limit: int = 0,
                 haptic_device: Optional[str] = None, haptic_layout: Optional[str] = None,
                 latency_ms: float = 0.0, haptic_latency_ms: float = 0.0, log: Optional[str] = None):
        encode = _native.encode
        self._options = _native.EngineOptions(ctypes.sizeof(_native.EngineOptions), encode(device, "device"),
                                              encode(layout, "layout"), _integer(sample_rate, "sample_rate"),
                                              _integer(period_frames, "period_frames"), _integer(buffer_frames, "buffer_frames"),
                                              _integer(voice_limit, "voice_limit"), encode(haptic_device, "haptic_device"),
                                              encode(haptic_layout, "haptic_layout"), float(latency_ms),
                                              float(haptic_latency_ms), encode(log, "log"))
        self._voices: list[Voice] = []
        self._orphans: list = []  # callbacks of freed voices, alive until the engine goes
        super().__init__(_made(_lib.pulsar_engine_create, ctypes.byref(self._options)))

    def voice(self, mix: Mix, priority: int = 0, realtime: bool = False) -> Voice:
        """A new voice playing `mix`, stopped until played: a mix made without a layout plays in the
        engine's; one made with a layout must have the engine's channels, and every mix its rate."""
        handle = _made(_lib.pulsar_engine_voice, self.handle, mix.handle, _integer(priority, "priority"), 1 if realtime else 0)
        voice = Voice(handle, self, mix)
        self._voices.append(voice)
        return voice

    def poll(self) -> None:
        """Takes in the device clock and the voices' states; runs completion callbacks. Call it from
        the app's loop."""
        _check(_lib.pulsar_engine_poll(self.handle))

    def time(self) -> float:
        """The engine's clock (CLOCK_MONOTONIC), seconds."""
        return _lib.pulsar_engine_time(self.handle)

    @property
    def is_idle(self) -> bool:
        """True when no voice plays and no command is in flight."""
        return _check(_lib.pulsar_engine_is_idle(self.handle)) == 1

    def set_master_gain(self, value: float, seconds: float = 0.0) -> None:
        """Ramps every voice's haptic gain to `value` (0…4) over `seconds` (0: at once, a 4 ms ramp)."""
        _check(_lib.pulsar_engine_set_master_gain(self.handle, float(value), float(seconds)))

    def stop(self) -> None:
        """Stops and joins the real-time thread; writes the log and a simulated device's recording."""
        _check(_lib.pulsar_engine_stop(self.handle))

    def close(self) -> None:
        """stop(), then the voices' handles and the engine go."""
        if getattr(self, "_handle", None):
            try:
                self.stop()
            finally:
                for voice in self._voices:
                    voice.close()
                super().close()
                self._orphans.clear()
