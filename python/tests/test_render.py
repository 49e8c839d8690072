"""Renders from Python equal `pulsar render`'s samples, bit for bit."""
import os

import numpy as np
import pytest

import pulsar
from conftest import ROOT, corpus_files, read_wav, run_pulsar

DEMO = os.path.join(ROOT, "Resources", "patterns", "demo.json")


@pytest.mark.parametrize("rate", [48000, 44100, 8000])
def test_pattern_render_equals_the_command(tmp_path, rate):
    out = tmp_path / "cli.wav"
    run_pulsar("render", DEMO, "--rate", str(rate), "-o", str(out), "--quiet")
    cli_rate, cli = read_wav(out)
    samples = pulsar.Pattern.open(DEMO).render(rate=rate)
    assert cli_rate == rate and samples.dtype == np.float32 and samples.shape == (cli.shape[0],)
    assert np.array_equal(samples, cli[:, 0]), "the samples differ from `pulsar render`"


@pytest.mark.parametrize("layout,profile", [("stereo+haptic", None), ("L+H,R+H,0", "lra"), ("haptic", "60:200")])
def test_layouts_and_profiles_equal_the_command(tmp_path, layout, profile):
    out = tmp_path / "cli.wav"
    extra = ["--profile", profile] if profile else []
    run_pulsar("render", DEMO, "--layout", layout, *extra, "-o", str(out), "--quiet")
    _, cli = read_wav(out)
    samples = pulsar.Pattern.open(DEMO).render(layout=layout, profile=profile, always_2d=True)
    assert samples.shape == cli.shape and np.array_equal(samples, cli)


@pytest.mark.parametrize("name,layout", [("meta-console", "haptic"), ("dualsense", "stereo+haptic"), ("lra", "haptic")])
def test_an_actuator_config_renders_as_the_command(tmp_path, name, layout):
    """pulsar_mix_options.actuator: a .haptic clip and a JSON pattern through a burst config and
    an envelope one, equal to `pulsar render --actuator`."""
    acf = os.path.join(ROOT, "Resources", "actuators", name + ".acf")
    for path in [DEMO] + corpus_files("lofelt", (".haptic",))[:2]:
        out = tmp_path / "cli.wav"
        run_pulsar("render", path, "--actuator", acf, "--layout", layout, "-o", str(out), "--quiet")
        _, cli = read_wav(out)
        samples = pulsar.Pattern.open(path).render(layout=layout, actuator=acf, always_2d=True)
        assert samples.shape == cli.shape and np.array_equal(samples, cli), (name, path)
    with pytest.raises(pulsar.PulsarError, match="both name the device"):
        pulsar.Pattern.open(DEMO).mix(profile="lra", actuator=acf)


def test_a_shipped_name_is_found_beside_the_library(monkeypatch):
    """Without $PULSAR_ACTUATORS: the wheel's pulsar/actuators (or a checkout's Resources)."""
    monkeypatch.delenv("PULSAR_ACTUATORS", raising=False)
    pattern = pulsar.Pattern.open(DEMO)
    assert np.array_equal(pattern.render(actuator="lra"), pattern.render(profile="lra"))


def test_shipped_actuator_names_and_a_preset_s_own(tmp_path, monkeypatch):
    """A shipped name through $PULSAR_ACTUATORS, and a bundle preset naming its actuator in its
    manifest: the samples `pulsar render` writes for both."""
    monkeypatch.setenv("PULSAR_ACTUATORS", os.path.join(ROOT, "Resources", "actuators"))
    out = tmp_path / "cli.wav"
    run_pulsar("render", DEMO, "--actuator", "dualsense", "-o", str(out), "--quiet")
    _, cli = read_wav(out)
    assert np.array_equal(pulsar.Pattern.open(DEMO).render(actuator="dualsense"), cli[:, 0])
    with pytest.raises(pulsar.NotFoundError, match="no shipped actuator"):
        pulsar.Pattern.open(DEMO).mix(actuator="nope")
    folder = tmp_path / "b"
    (folder / "haptics").mkdir(parents=True)
    (folder / "haptics" / "p.json").write_bytes(open(DEMO, "rb").read())
    (folder / "manifest.json").write_text('{"schema":"pulsar.bundle/1","id":"dev.test.own","name":"t","presets":'
                                          '[{"id":"p","name":"P","haptics":"haptics/p.json","actuator":"meta-console"}]}')
    run_pulsar("render", str(folder), "--layout", "haptic", "-o", str(out), "--quiet")
    _, own = read_wav(out)
    run_pulsar("render", str(folder), "--layout", "haptic", "--actuator", "meta-console", "-o", str(out), "--quiet")
    _, named = read_wav(out)
    bundle = pulsar.Bundle.open(str(folder))
    assert np.array_equal(own, named)
    assert np.array_equal(bundle.render("p", layout="haptic"), own[:, 0])
    assert not np.array_equal(bundle.render("p", layout="haptic", profile="wideband"), own[:, 0])


def test_corpus_patterns_of_every_format_equal_the_command(tmp_path):
    files = corpus_files("ahap", (".ahap",))[:3] + corpus_files("lofelt", (".haptic",))[:3] + corpus_files("pulsar-presets", (".json",))[:3]
    assert files
    for path in files:
        out = tmp_path / "cli.wav"
        run_pulsar("render", path, "-o", str(out), "--quiet")
        _, cli = read_wav(out)
        samples = pulsar.Pattern.open(path).render()
        assert np.array_equal(samples, cli[:, 0]), path


def test_bundle_preset_with_its_audio_equals_the_command(tmp_path):
    """The corpus bundle: real presets with MP3 audio."""
    bundle = corpus_files("bundles", (".pulsar",))[0]
    with pulsar.Bundle.open(bundle) as b:
        presets = b.presets
        assert presets
        for preset in presets[:2]:
            out = tmp_path / f"{preset}.wav"
            run_pulsar("render", bundle, "--preset", preset, "--layout", "stereo+haptic", "-o", str(out), "--quiet")
            _, cli = read_wav(out)
            samples = b.render(preset, layout="stereo+haptic")
            assert samples.shape == cli.shape and np.array_equal(samples, cli), preset


def test_any_frame_starts_a_render_and_out_is_written_in_place():
    with pulsar.Pattern.open(DEMO) as pattern, pattern.mix(layout="stereo+haptic") as mix:
        whole = mix.render()
        assert mix.frames == whole.shape[0] and mix.channels == 3 and mix.sample_rate == 48000
        out = np.zeros((1000, 3), dtype=np.float32)
        returned = mix.render(start=12345, frames=1000, out=out)
        assert returned is out and np.array_equal(out, whole[12345:13345])
        # Past the end is silence.
        assert not mix.render(start=mix.frames, frames=64).any()


def test_write_wav_is_the_command_s_file(tmp_path):
    with pulsar.Pattern.open(DEMO).mix() as mix:
        mix.write_wav(str(tmp_path / "py.wav"))
    run_pulsar("render", DEMO, "-o", str(tmp_path / "cli.wav"), "--quiet")
    assert (tmp_path / "py.wav").read_bytes() == (tmp_path / "cli.wav").read_bytes()


def test_an_endless_loop_has_no_length_and_renders_on_request():
    with pulsar.Pattern.open(DEMO).mix(loop_count=-1) as mix:
        assert mix.frames is None
        once = pulsar.Pattern.open(DEMO).render()
        looped = mix.render(frames=2 * once.shape[0])
        assert np.array_equal(looped[:once.shape[0]], once)
        with pytest.raises(pulsar.ArgumentError):
            mix.render()
