"""What `pulsar lint` and `pulsar`'s warnings tell a designer, the package tells a Python program."""
import json
import os

import pytest

import pulsar
from conftest import ROOT, corpus_files, run_pulsar

DEMO = os.path.join(ROOT, "Resources", "patterns", "demo.json")
# Clicks (a step up and down) and two transients 5 ms apart: findings on every device.
CLICKS = ('{"continuousPattern":{"amplitude":[{"time":0,"value":0},{"time":1,"value":1},{"time":400,"value":1},'
          '{"time":401,"value":0}],"frequency":[{"time":0,"value":1},{"time":401,"value":1}]},"discretePattern":'
          '[{"time":100,"amplitude":1,"frequency":0.1},{"time":105,"amplitude":1,"frequency":0.1}]}')


@pytest.mark.parametrize("device", [{}, {"profile": "lra"}, {"actuator": "meta-quest"}])
def test_lint_equals_the_command(tmp_path, device):
    clicks = tmp_path / "clicks.json"
    clicks.write_text(CLICKS)
    total = 0
    for path in [DEMO, str(clicks)] + corpus_files("lofelt", (".haptic",))[:2]:
        extra = [a for key, value in device.items() for a in ("--" + key, value)]
        cli = json.loads(run_pulsar("lint", path, "--json", "--quiet", *extra).stdout)
        ours = pulsar.Pattern.open(path).lint(**device)
        assert ours["device"] == cli["device"] and ours["findings"] == cli["findings"], path
        total += len(ours["findings"])
    assert total > 0, "no finding anywhere: the comparison proves little"


def test_warnings_are_the_commands(tmp_path):
    ahap = tmp_path / "a.ahap"
    ahap.write_text('{"Version":1,"Flavour":"x","Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient",'
                    '"EventParameters":[]}},{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"s.wav"}}]}')
    printed = [line[len("pulsar: warning: "):] for line in run_pulsar("info", str(ahap)).stderr.splitlines()
               if line.startswith("pulsar: warning: ")]
    pattern = pulsar.Pattern.open(str(ahap))
    assert pattern.warnings and set(pattern.warnings) == set(printed)
    assert pattern.duration_ms > 5, "a lone transient sounds for its burst"
    assert pulsar.Pattern.open(DEMO).warnings == []


def test_lint_refuses_a_device_that_is_not_one():
    with pytest.raises(pulsar.NotFoundError, match="no shipped actuator"):
        pulsar.Pattern.open(DEMO).lint(actuator="no-such-actuator")
    with pytest.raises(pulsar.ArgumentError):
        pulsar.Pattern.open(DEMO).lint(profile="not-a-profile")
