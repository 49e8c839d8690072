"""Shared by the package's tests: the project's folders, the `pulsar` command to compare with, and
a WAV reader independent of the library (the standard `wave` module cannot read float WAVs)."""
import os
import struct
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The shared real-world corpus beside the project (never copied into it); PULSAR_CORPUS names another.
CORPUS = os.environ.get("PULSAR_CORPUS") or os.path.join(os.path.dirname(ROOT), "shared", "corpus")


def pulsar_binary():
    return os.environ.get("PULSAR_BINARY") or os.path.join(ROOT, ".build", "release", "pulsar")


def run_pulsar(*arguments):
    """`pulsar ARGUMENTS…`; fails the test on a non-zero exit."""
    r = subprocess.run([pulsar_binary(), *arguments], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"pulsar {' '.join(arguments)}: {r.stderr}"
    return r


def read_wav(path):
    """(rate, samples) of a 32-bit float or 16-bit PCM WAV: samples shape (frames, channels)."""
    data = open(path, "rb").read()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", f"{path}: not a WAV"
    offset, fmt, body = 12, None, None
    while offset + 8 <= len(data):
        chunk, size = data[offset:offset + 4], struct.unpack_from("<I", data, offset + 4)[0]
        if chunk == b"fmt ":
            fmt = struct.unpack_from("<HHIIHH", data, offset + 8)
        elif chunk == b"data":
            body = data[offset + 8:offset + 8 + size]
        offset += 8 + size + (size & 1)
    tag, channels, rate, _, _, bits = fmt
    if tag == 0xFFFE:  # WAVE_FORMAT_EXTENSIBLE: the sub-format's first two bytes are the tag
        tag = struct.unpack_from("<H", data, data.index(b"fmt ") + 8 + 24)[0]
    if tag == 3 and bits == 32:
        samples = np.frombuffer(body, dtype="<f4")
    elif tag == 1 and bits == 16:
        samples = np.frombuffer(body, dtype="<i2").astype(np.float32) / 32768
    else:
        raise AssertionError(f"{path}: format tag {tag}, {bits} bits not read here")
    return rate, samples.reshape(-1, channels)


def corpus_files(folder, suffixes):
    """Corpus files to test on; skipped when the corpus is absent, a failure under CI=true."""
    path = os.path.join(CORPUS, folder)
    if not os.path.isdir(path):
        if os.environ.get("CI") == "true":
            pytest.fail(f"the corpus is missing: {path}")
        pytest.skip(f"the corpus is absent: {path}")
    return sorted(os.path.join(d, f) for d, _, files in os.walk(path) for f in files if f.endswith(suffixes))
