"""Live parameters from Python (docs/signal-model.md §13): changes sent together all take effect,
in order, each ramp starting where the one before ends; a duration of 0 is "at once", a
4 ms ramp, as the script's `over 0`; a curve takes at most MAX_CURVE_POINTS points. Each recording
of the simulated device is compared with the course the rule gives and with `pulsar render
--replay` of its log."""
import json
import os
import time

import numpy as np
import pytest

import pulsar
from conftest import ROOT, read_wav, run_pulsar

# A steady 150 Hz tone at 0.6 for 2 s.
TONE = ('{"continuousPattern":{"amplitude":[{"time":0,"value":0.6},{"time":2000,"value":0.6}],'
        '"frequency":[{"time":0,"value":0.375}]}}')


def play(tmp_path, name, commands):
    """Runs `commands(engine, voice)` on a voice of the tone on the simulated device, waits for
    it to end; (recording, plain render, logged commands as (name, frame, fields))."""
    recording, log, plain = tmp_path / f"{name}.wav", tmp_path / f"{name}.jsonl", tmp_path / f"{name}-plain.wav"
    with pulsar.Engine(device=f"sim:record={recording}", log=str(log)) as engine:
        mix = pulsar.Pattern.from_json(TONE).mix()
        mix.write_wav(str(plain))
        voice = engine.voice(mix)
        commands(engine, voice)
        deadline = time.monotonic() + 30
        while not voice.has_ended and time.monotonic() < deadline:
            engine.poll()
            time.sleep(0.01)
        assert voice.has_ended
        engine.stop()
    replay = tmp_path / f"{name}-replay.wav"
    run_pulsar("render", "--replay", str(log), "-o", str(replay), "--quiet")
    assert recording.read_bytes() == replay.read_bytes(), "the replay of the log equals the recording"
    logged, lost = [], []
    for line in log.read_text().splitlines():
        event = json.loads(line)
        if event.get("event") == "command":
            logged.append((event["name"], int(event["effectiveFrame"]), event))
        if event.get("event") == "underrun" and event["lostTo"] > event["lostFrom"]:
            lost.append((int(event["lostFrom"]), int(event["lostTo"])))
    samples = read_wav(str(recording))[1][:, 0]
    # The recording by stream frame: frames an underrun lost (a loaded machine) are NaN.
    by_frame = np.array(samples, dtype=np.float64)
    for start, end in sorted(lost):
        by_frame = np.concatenate([by_frame[:start], np.full(end - start, np.nan), by_frame[start:]])
    return by_frame, read_wav(str(plain))[1][:, 0], logged


def departure(recording, plain, play_frame, gain):
    """The largest |recording − gain · plain| from the play's frame on (frames lost to an
    underrun left out)."""
    n = np.arange(play_frame, min(len(recording), play_frame + len(plain)))
    expected = gain(n) * plain[n - play_frame].astype(np.float64)
    return float(np.nanmax(np.abs(recording[n] - expected)))


def test_three_commands_sent_together_all_take_effect_in_order(tmp_path):
    def commands(engine, voice):
        voice.set_intensity(0.1, 0)
        voice.play(0)
        voice.set_intensity(1.0, 1.5)

    recording, plain, logged = play(tmp_path, "chain", commands)
    p = next(f for name, f, _ in logged if name == "play")
    e1, e2 = [f for name, f, _ in logged if name == "intensity"]
    assert e1 <= p <= e2, f"in order: {e1}, play {p}, {e2}"

    # docs/signal-model.md §13: at one frame, or landing during the first's 192 frames of
    # smoothing (the real-time thread took the first before the second arrived), the second
    # follows the smoothing; landing later, it rises from 0.1 where it lands.
    anchor = max(e2, e1 + 192)

    def gain(n):
        falling = np.where(n < e1, 1.0, np.where(n < e1 + 192, 1 - 0.9 * (n - e1) / 192, 0.1))
        rising = np.where(n < anchor + 72_000, 0.1 + 0.9 * (n - anchor) / 72_000, 1.0)
        return np.where(n < anchor, falling, rising)

    assert departure(recording, plain, p, gain) < 1e-6


def test_over_zero_is_at_once(tmp_path):
    def commands(engine, voice):
        voice.play()
        time.sleep(0.1)
        voice.set_intensity(0.3, 0)

    recording, plain, logged = play(tmp_path, "over0", commands)
    p = next(f for name, f, _ in logged if name == "play")
    [(_, e, fields)] = [c for c in logged if c[0] == "intensity"]
    assert fields["value"] == 0.3 and "reachAfter" not in fields and "reachAt" not in fields, fields
    gain = lambda n: np.where(n < e, 1.0, np.where(n < e + 192, 1 - 0.7 * (n - e) / 192, 0.3))  # noqa: E731
    assert departure(recording, plain, p, gain) < 1e-6


def test_curve_limit_is_the_engines():
    header = open(os.path.join(ROOT, "include", "pulsar.h"), encoding="utf-8").read()
    assert f"#define PULSAR_MAX_CURVE_POINTS {pulsar.MAX_CURVE_POINTS}\n" in header
    with pulsar.Engine(device="sim") as engine:
        voice = engine.voice(pulsar.Pattern.from_json(TONE).mix())
        now = engine.time()
        points = [(now + 10 + i * 0.001, 0.5) for i in range(pulsar.MAX_CURVE_POINTS + 1)]
        with pytest.raises(pulsar.ArgumentError, match=f"at most {pulsar.MAX_CURVE_POINTS} points"):
            voice.set_intensity_curve(points)
