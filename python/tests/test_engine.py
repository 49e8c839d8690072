"""The engine from Python: the game example's session on the simulated device, recorded, equals
what `pulsar render --replay` makes of its event log, bit for bit; live calls and callbacks."""
import os
import subprocess
import sys
import time

import pulsar
from conftest import ROOT, run_pulsar

RUMBLE = ('{"continuousPattern":{"amplitude":[{"time":0,"value":0.4},{"time":400,"value":0.4}],'
          '"frequency":[{"time":0,"value":0.2},{"time":400,"value":0.2}]}}')


def test_the_game_example_replays_bit_for_bit(tmp_path):
    recording, log = tmp_path / "game.wav", tmp_path / "game.jsonl"
    demo = os.path.join(ROOT, "examples", "python", "demo.py")
    r = subprocess.run([sys.executable, demo, "--device", f"sim:record={recording}", "--log", str(log)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("played out") == 4 and "done: 4 effects" in r.stdout, r.stdout
    replay = tmp_path / "replay.wav"
    run_pulsar("render", "--replay", str(log), "-o", str(replay), "--quiet")
    assert recording.read_bytes() == replay.read_bytes()


def test_voices_clock_and_completion(tmp_path):
    ended = []
    with pulsar.Engine(device="sim", log=str(tmp_path / "log.jsonl")) as engine:
        mix = pulsar.Pattern.from_json(RUMBLE).mix()
        voice = engine.voice(mix, priority=2)
        voice.on_completion(ended.append)
        voice.set_intensity(0.5, 0.1)
        voice.set_sharpness(-0.5)
        voice.play()
        deadline = time.monotonic() + 10
        while not voice.has_ended and time.monotonic() < deadline:
            engine.poll()
            time.sleep(0.01)
        engine.poll()
        assert voice.has_ended and ended == [True]
        assert engine.is_idle
        assert engine.time() > 0
    assert (tmp_path / "log.jsonl").stat().st_size > 0
