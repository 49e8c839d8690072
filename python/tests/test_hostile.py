"""The bindings under hostile arguments: arrays the library must not write into, integers ctypes
would cut to 32 bits, names of 200 000 characters, curves libpulsar refuses. Each raises a Python
exception with one line of at most 300 characters; nothing crashes, nothing immutable changes."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pulsar
from conftest import ROOT

DEMO = os.path.join(ROOT, "Resources", "patterns", "demo.json")
TAP = os.path.join(ROOT, "Resources", "demo-bundle", "haptics", "tap.json")


def one_line(error):
    """The exception's message, asserted to be one line of at most 300 characters."""
    text = str(error.value if hasattr(error, "value") else error)
    assert "\n" not in text and "\r" not in text and len(text) <= 300, f"{len(text)} characters: {text[:400]!r}"
    return text


def run_python(code, timeout=300):
    """`code` in a fresh interpreter (a crash there fails the test instead of ending pytest)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout,
                          cwd=os.path.dirname(os.path.abspath(__file__)))


def test_a_read_only_memmap_as_out_raises_and_the_interpreter_lives(tmp_path):
    """Mix.render(out=) and Follower.process(out=) into a memmap opened "r" used to end the process
    with SIGSEGV: the library wrote into a read-only mapping."""
    path = tmp_path / "zeros.f32"
    path.write_bytes(bytes(4 * 4800))
    r = run_python(f"""
        import numpy as np, pulsar
        target = np.memmap({str(path)!r}, dtype=np.float32, mode="r")
        for call in (lambda: pulsar.Pattern.open({DEMO!r}).mix().render(frames=4800, out=target),
                     lambda: pulsar.Follower().process(np.zeros(4800, np.float32), out=target)):
            try:
                call()
                print("no error")
            except pulsar.ArgumentError as error:
                print("refused", str(error))
        """)
    assert r.returncode == 0, f"the interpreter died ({r.returncode}): {r.stderr[-2000:]}"
    lines = r.stdout.splitlines()
    assert len(lines) == 2 and all(x.startswith("refused pulsar: out must be a writable") for x in lines), r.stdout
    assert all("read-only" in x and len(x) <= 308 for x in lines), r.stdout
    assert path.read_bytes() == bytes(4 * 4800)


def test_out_over_immutable_bytes_raises_and_leaves_them_alone():
    data = bytes(4 * 100)
    out = np.frombuffer(data, dtype=np.float32)
    with pytest.raises(pulsar.ArgumentError) as error:
        pulsar.Pattern.open(DEMO).mix().render(frames=100, out=out)
    assert "out" in one_line(error) and "read-only" in str(error.value)
    with pytest.raises(pulsar.ArgumentError) as error:
        pulsar.Follower().process(np.ones(100, np.float32), out=out)
    assert "read-only" in one_line(error)
    assert data == bytes(4 * 100)


@pytest.mark.parametrize("out,kind,says", [
    ([0.0] * 100, TypeError, "numpy.ndarray"),
    (np.zeros(100, np.float64), pulsar.ArgumentError, "dtype"),
    (np.zeros(200, np.float32)[::2], pulsar.ArgumentError, "C-contiguous"),
    (np.frombuffer(bytearray(401), dtype=np.float32, offset=1), pulsar.ArgumentError, "aligned"),
    (np.zeros(99, np.float32), pulsar.ArgumentError, "it has 99"),
    (np.zeros(100, ">f4"), pulsar.ArgumentError, "dtype"),
])
def test_every_rule_of_out_is_named(out, kind, says):
    with pytest.raises(kind) as error:
        pulsar.Pattern.open(DEMO).mix().render(frames=100, out=out)
    assert says in one_line(error) and "out" in str(error.value)


@pytest.mark.parametrize("call", [
    lambda p: p.mix(rate=2 ** 32 + 48000),
    lambda p: p.mix(rate=-(2 ** 31) - 1),
    lambda p: p.mix(loop_count=2 ** 32 + 1),
    lambda p: p.mix().render(start=2 ** 63, frames=1),
    lambda p: p.mix().render(frames=2 ** 64),
    lambda p: pulsar.Follower(rate=2 ** 32 + 48000),
    lambda p: pulsar.Engine(device="sim", sample_rate=2 ** 32 + 48000),
    lambda p: pulsar.Engine(device="sim", voice_limit=2 ** 32 + 2),
    lambda p: pulsar.Engine(device="sim", period_frames=2 ** 40),
])
def test_integers_ctypes_would_cut_are_refused(call):
    """2**32 + 48000 used to arrive in C as 48000 and render at 48 kHz without a word."""
    with pytest.raises(pulsar.ArgumentError) as error:
        call(pulsar.Pattern.open(DEMO))
    assert "out of range" in one_line(error) and "C int" in str(error.value)


def test_a_priority_ctypes_would_cut_is_refused():
    with pulsar.Engine(device="sim") as engine:
        with pytest.raises(pulsar.ArgumentError) as error:
            engine.voice(pulsar.Pattern.open(DEMO).mix(), priority=2 ** 31)
        assert "priority" in one_line(error)


@pytest.mark.parametrize("value,kind", [(48000.5, pulsar.ArgumentError), (float("nan"), pulsar.ArgumentError),
                                        ("48000", TypeError), (True, TypeError), (2 ** 100000, pulsar.ArgumentError)],
                         ids=["half", "nan", "str", "bool", "2**100000"])
def test_a_rate_that_is_no_whole_number_is_refused(value, kind):
    with pytest.raises(kind) as error:
        pulsar.Pattern.open(DEMO).mix(rate=value)
    assert "rate" in one_line(error)


def test_an_integral_float_rate_still_renders():
    assert pulsar.Pattern.open(DEMO).mix(rate=44100.0).sample_rate == 44100


def test_a_200000_character_actuator_makes_a_short_message():
    with pytest.raises(pulsar.NotFoundError) as error:
        pulsar.Pattern.open(DEMO).mix(actuator="a" * 200_000)
    assert "no shipped actuator" in one_line(error) and "more characters" in str(error.value)
    with pytest.raises((pulsar.NotFoundError, pulsar.DataError)) as error:
        pulsar.Pattern.open(DEMO).mix(actuator="/" + "d" * 200_000 + ".acf")
    one_line(error)
    with pytest.raises((pulsar.NotFoundError, pulsar.DataError)) as error:
        pulsar.Pattern.open("/" + "p" * 200_000 + ".json")
    one_line(error)


def test_names_with_line_breaks_stay_on_one_line():
    with pytest.raises(pulsar.ArgumentError) as error:
        pulsar.Engine(device="sim", layout="L,R\nH\u202e" + "x" * 10_000)
    assert "\\n" in one_line(error)


def test_a_nul_inside_a_string_is_refused_not_cut():
    """C would read "…demo.json" of "…demo.json\\0anything" and open the wrong file without a word."""
    with pytest.raises(pulsar.ArgumentError) as error:
        pulsar.Pattern.open(DEMO + "\0.bak")
    assert "NUL" in one_line(error) and "path" in str(error.value)


def test_pattern_text_of_the_wrong_kind_is_refused_without_allocating():
    with pytest.raises(TypeError) as error:
        pulsar.Pattern.from_json(10 ** 12)  # bytes(10**12) would be a terabyte of zeros
    one_line(error)


def test_curves_at_equal_times_and_past_the_engine_limit_are_refused():
    with pulsar.Engine(device="sim") as engine:
        voice = engine.voice(pulsar.Pattern.open(DEMO).mix())
        now = engine.time()
        with pytest.raises(pulsar.ArgumentError) as error:
            voice.set_intensity_curve([(now + 0.1, 0.5), (now + 0.1, 1.0)])
        assert "point 1" in one_line(error) and "rise strictly" in str(error.value)
        with pytest.raises(pulsar.ArgumentError) as error:
            voice.set_intensity_curve([(now + 0.1 + i * 0.001, 0.5) for i in range(pulsar.MAX_CURVE_POINTS + 1)])
        assert "at most 1024" in one_line(error)


def test_follower_sound_of_a_bad_shape_is_refused():
    follower = pulsar.Follower()
    with pytest.raises(pulsar.ArgumentError) as error:
        follower.process(np.zeros((10, 2, 2), np.float32))
    assert "shape" in one_line(error)
    with pytest.raises(pulsar.ArgumentError) as error:
        follower.process(np.zeros((10, 65), np.float32))
    assert "65" in one_line(error)


BATCH = """
import atexit, math, os, random, shutil, sys, tempfile
import numpy as np
import pulsar

seed, count, demo = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
frozen = bytes(4 * 64)
folder = tempfile.mkdtemp()
atexit.register(shutil.rmtree, folder, True)
mapped_path = os.path.join(folder, "mapped.f32")
with open(mapped_path, "wb") as f:
    f.write(bytes(4 * 64))
mapped = np.memmap(mapped_path, dtype=np.float32, mode="r")
INTS = [0, 1, 2, 64, 100, 4096, -1, 7999, 8000, 44100, 48000, 192000, 192001, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1,
        2 ** 32 + 48000, 2 ** 63 - 1, 2 ** 63, -(2 ** 63), -(2 ** 63) - 1, 2 ** 64 + 1, 10 ** 30, 48000.0, 48000.5,
        math.nan, math.inf, True, None, "48000", b"1", [1], np.int64(48000), np.uint64(2 ** 63), np.float32(64)]
FRAMES = [0, 1, 64, 100, -1, -(2 ** 63), 2 ** 31, 2 ** 40, 2 ** 63, 2 ** 64, None, 64.0, 64.5, "64", np.int32(64)]


def pick(valid, hostile):
    # Mostly a valid value (so calls get past the first check), else a hostile one.
    return rng.choice(valid) if rng.random() < 0.8 else rng.choice(hostile)


def outs(n):
    base = np.zeros(2 * max(n, 1) + 1, np.float32)
    return [np.zeros((max(n, 1), 2), np.float32), np.frombuffer(frozen, np.float32), mapped, np.zeros(n, np.float64), base[::2][:n], np.frombuffer(bytearray(4 * n + 1), np.float32, n, 1),
            np.zeros(n + 1, np.float32), np.zeros(n, ">f4"), np.zeros((n, 1), np.float32, order="F"), [0.0] * n, "out", 7]


def mix_call(pattern):
    mix = pattern.mix(rate=pick([48000, 8000], INTS), loop_count=pick([1, 2, -1], INTS),
                      layout=pick([None, "stereo+haptic", "quad"], ["bad", "a\\0b", 5]))
    frames = pick([0, 1, 64, 4096], FRAMES)
    n = (frames if isinstance(frames, int) and 0 <= frames <= 4096 else 64) * mix.channels
    out = pick([None, np.zeros(n, np.float32)], outs(n))
    result = mix.render(start=pick([0, 10, -10, 2 ** 40], INTS), frames=frames, out=out)
    assert out is None or result is out


def follower_call():
    follower = pulsar.Follower(rate=pick([48000, 8000], INTS))
    frames, channels = rng.choice([0, 1, 64, 100]), pick([1, 2, 64], [65, 0])
    shape = pick([(frames,), (frames, channels)], [(frames, channels, 2), ()])
    sound = np.full(shape, rng.choice([0.5, math.nan, math.inf, -1e30]), np.float32)
    out = pick([None, np.zeros(frames, np.float32)], outs(frames))
    follower.process(pick([sound, sound.tolist()], ["sound", None]), out=out)


def engine_call(pattern):
    with pulsar.Engine(device="sim", sample_rate=pick([0, 48000], INTS), period_frames=pick([0, 256], INTS),
                       voice_limit=pick([0, 4], INTS)) as engine:
        voice = engine.voice(pattern.mix(), priority=pick([0, 1], INTS), realtime=rng.random() < 0.3)
        now, n = engine.time(), pick([1, 2, 3, 64], [0, 65, 1024, 1025])
        step = pick([0.001], [0.0, -0.001, math.nan])
        voice.set_intensity_curve([(now + 0.05 + i * step, pick([0.5], [5, math.nan])) for i in range(n)])


pattern = pulsar.Pattern.open(demo)
outcomes = {}
for k in range(count):
    what = rng.random()
    try:
        mix_call(pattern) if what < 0.6 else follower_call() if what < 0.9 else engine_call(pattern)
        outcomes["ok"] = outcomes.get("ok", 0) + 1
    except Exception as error:
        text = str(error)
        if isinstance(error, pulsar.PulsarError) or text.startswith("pulsar:"):
            assert "\\n" not in text and len(text) <= 300, (k, len(text), text[:400])
        outcomes[type(error).__name__] = outcomes.get(type(error).__name__, 0) + 1
    assert frozen == bytes(4 * 64), "an immutable bytes object was written into"
    assert not mapped.any(), "a read-only memmap was written into"
print("outcomes", sorted(outcomes.items()))
"""


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_argument_combinations_raise_or_work(seed):
    """1000 seeded combinations of out arrays, rates, counts, frames, shapes and curves a batch, in
    a child interpreter: each call works or raises a Python exception; a crash fails the test."""
    r = subprocess.run([sys.executable, "-c", BATCH, str(seed), "1000", DEMO], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"seed {seed}: exit {r.returncode}: {r.stdout[-1000:]} {r.stderr[-3000:]}"
    assert "outcomes" in r.stdout and "('ok'," in r.stdout, r.stdout
