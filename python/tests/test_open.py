"""`pulsar.Mix.open`: any input as `pulsar render INPUT` reads it, equal to the command's samples."""
import os
import shutil

import numpy as np
import pytest

import pulsar
from conftest import CORPUS, ROOT, read_wav, run_pulsar

DEMO = os.path.join(ROOT, "Resources", "patterns", "demo.json")
BUNDLE = os.path.join(CORPUS, "bundles", "demo-unpacked")


def corpus(path):
    if not os.path.exists(path):
        if os.environ.get("CI") == "true":
            pytest.fail(f"the corpus is missing: {path}")
        pytest.skip(f"the corpus is absent: {path}")
    return path


def same_as_the_command(tmp_path, mix, *arguments):
    out = tmp_path / "cli.wav"
    run_pulsar("render", *arguments, "-o", str(out), "--quiet")
    _, cli = read_wav(out)
    samples = mix.render(always_2d=True)
    assert samples.shape == cli.shape and np.array_equal(samples, cli), arguments


def test_a_bundle_preset_on_its_own_actuator(tmp_path):
    folder = tmp_path / "b"
    shutil.copytree(corpus(BUNDLE), folder)
    manifest = (folder / "manifest.json").read_text().replace('"haptics": "haptics/heartbeat.json"',
                                                              '"haptics": "haptics/heartbeat.json", "actuator": "lra"')
    (folder / "manifest.json").write_text(manifest)
    with pulsar.Mix.open(str(folder), preset="heartbeat") as mix:
        same_as_the_command(tmp_path, mix, str(folder), "--preset", "heartbeat")
    # A segment and reverse: the haptic channel bit for bit; the audio, played from a seek in the
    # stream by the command and from the decoded sound by the library, within a few float steps.
    out = tmp_path / "seg.wav"
    run_pulsar("render", str(folder), "--preset", "verified", "--from", "400", "--to", "1800", "--offset", "20", "--reverse",
               "--loop", "2", "--layout", "stereo+haptic", "-o", str(out), "--quiet")
    _, cli = read_wav(out)
    with pulsar.Mix.open(str(folder), preset="verified", layout="stereo+haptic", from_ms=400, to_ms=1800,
                         haptic_offset_ms=20, reverse=True, loop_count=2) as mix:
        samples = mix.render(always_2d=True)
    assert samples.shape == cli.shape and np.array_equal(samples[:, 2], cli[:, 2])
    assert np.max(np.abs(samples[:, :2] - cli[:, :2])) <= 1e-6


def test_audio_with_derived_haptics(tmp_path):
    mp3 = corpus(os.path.join(BUNDLE, "audio", "sample-3s.mp3"))
    with pulsar.Mix.open(mp3, derive=True) as mix:
        same_as_the_command(tmp_path, mix, mp3, "--haptics-from-audio", "envelope")
    with pulsar.Mix.open(mp3) as silent:
        assert any("no-haptics" in w for w in silent.warnings)


def test_a_pattern_through_an_actuator(tmp_path):
    with pulsar.Mix.open(DEMO, actuator="meta-quest") as mix:
        same_as_the_command(tmp_path, mix, DEMO, "--actuator", "meta-quest")


def test_refusals():
    with pytest.raises(pulsar.NotFoundError):
        pulsar.Mix.open(os.path.join(ROOT, "no-such-file.json"))
    with pytest.raises(pulsar.ArgumentError, match="to_ms"):
        pulsar.Mix.open(DEMO, to_ms=1e12)


def test_replay_equals_what_the_device_recorded(tmp_path):
    log, recorded, rendered = tmp_path / "l.jsonl", tmp_path / "rec.wav", tmp_path / "r.wav"
    run_pulsar("play", DEMO, "--device", f"sim:record={recorded}", "--log", str(log), "--quiet")
    run_pulsar("render", "--replay", str(log), "-o", str(rendered), "--quiet")
    samples, rate = pulsar.replay(str(log))
    rec_rate, rec = read_wav(recorded)
    _, ren = read_wav(rendered)
    assert rate == rec_rate and samples.shape == rec.shape and np.array_equal(samples, rec) and np.array_equal(samples, ren)
    with pytest.raises(pulsar.NotFoundError):
        pulsar.replay(str(tmp_path / "none.jsonl"))
