"""Bad calls raise, with the library's message and code; nothing crashes."""
import os

import numpy as np
import pytest

import pulsar
from conftest import ROOT

DEMO = os.path.join(ROOT, "Resources", "patterns", "demo.json")


def test_a_missing_file_names_itself(tmp_path):
    missing = str(tmp_path / "nope.json")
    with pytest.raises(pulsar.NotFoundError) as error:
        pulsar.Pattern.open(missing)
    assert error.value.code == -2 and "nope.json" in str(error.value) and isinstance(error.value, LookupError)


def test_a_broken_pattern_names_the_place():
    with pytest.raises(pulsar.DataError) as error:
        pulsar.Pattern.from_json('{"discretePattern": [{"time": -5, "amplitude": 1, "frequency": 0.5}]}')
    assert error.value.code == -3 and error.value.message and isinstance(error.value, ValueError)
    with pytest.raises(pulsar.DataError):
        pulsar.Pattern.from_json("{ not json")


def test_bad_values_are_argument_errors():
    pattern = pulsar.Pattern.open(DEMO)
    with pytest.raises(pulsar.ArgumentError) as error:
        pattern.mix(rate=1000)
    assert "1000" in str(error.value) or "rate" in str(error.value)
    with pytest.raises(pulsar.ArgumentError):
        pattern.mix(layout="no such layout")
    with pytest.raises(pulsar.ArgumentError):
        pattern.mix().render(frames=10, out=np.zeros(10, dtype=np.float64))
    with pytest.raises(TypeError):
        pulsar.Pattern.open(42)


def test_a_device_that_cannot_open_is_a_device_error():
    with pytest.raises((pulsar.DeviceError, pulsar.NotFoundError, pulsar.ArgumentError)) as error:
        pulsar.Engine(device="hw:CARD=NoSuchCard,DEV=0")
    assert "NoSuchCard" in str(error.value)


def test_closed_handles_and_stopped_engines_raise_state_errors():
    pattern = pulsar.Pattern.open(DEMO)
    pattern.close()
    with pytest.raises(pulsar.StateError):
        pattern.mix()
    engine = pulsar.Engine(device="sim")
    voice = engine.voice(pulsar.Pattern.open(DEMO).mix())
    engine.stop()
    with pytest.raises(pulsar.StateError):
        voice.play()
    engine.close()
    with pytest.raises(pulsar.StateError):
        engine.poll()


def test_help_shows_every_public_name_documented():
    for name in pulsar.__all__:
        thing = getattr(pulsar, name)
        if callable(thing):
            assert thing.__doc__, name
    for cls in (pulsar.Pattern, pulsar.Bundle, pulsar.Mix, pulsar.Engine, pulsar.Voice, pulsar.Follower):
        for member in ("render", "mix", "play", "poll", "process"):
            if hasattr(cls, member):
                assert getattr(cls, member).__doc__, f"{cls.__name__}.{member}"
