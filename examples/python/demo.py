"""demo.py — examples/c/game.c in Python: an engine on a device, a long rumble with a live
intensity curve, short effects overlapping it, the rumble's clock read at 60 Hz.

    python3 examples/python/demo.py [--device NAME] [--log FILE]     (default auto)

--log writes the engine's event log: `pulsar render --replay FILE -o OUT.wav` rebuilds what the
device played from it. It uses the `pulsar` Python package (python/ in the source tree, installed
by `pip install`, `make install` or the Debian package).
"""
import argparse
import math
import sys
import time

import pulsar

RUMBLE = ('{"continuousPattern":{"amplitude":[{"time":0,"value":0.4},{"time":3000,"value":0.4}],'
          '"frequency":[{"time":0,"value":0.2},{"time":3000,"value":0.2}]}}')
HIT = '{"discretePattern":[{"time":0,"amplitude":1.0,"frequency":0.8},{"time":60,"amplitude":0.6,"frequency":0.5}]}'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="auto")
    parser.add_argument("--log")
    args = parser.parse_args()
    try:
        rumble_mix, hit_mix = pulsar.Pattern.from_json(RUMBLE).mix(), pulsar.Pattern.from_json(HIT).mix()
        with pulsar.Engine(device=args.device, log=args.log) as engine:
            rumble = engine.voice(rumble_mix)
            while math.isnan(rumble.content_ms):  # the device clock starts with its first reading
                engine.poll()
                time.sleep(0.005)
            start = engine.time() + 0.05
            rumble.play_at(start)
            rumble.set_intensity_curve([(start + 0.5, 1.5), (start + 1.5, 0.3), (start + 2.5, 1.0)])
            fired = 0
            for frame in range(3 * 60 + 30):
                now = engine.time() - start
                if fired < 4 and now >= 0.3 + 0.6 * fired:
                    hit = engine.voice(hit_mix, priority=1)
                    number = fired + 1
                    hit.on_completion(lambda finished, n=number: print("effect %d %s" % (n, "played out" if finished else "was stopped")))
                    hit.play()
                    fired += 1
                engine.poll()
                if frame % 10 == 0:
                    print("t %.3f s rumble %.1f ms" % (now, rumble.content_ms))
                time.sleep(1 / 60)
        print("done: %d effects (libpulsar %s)" % (fired, pulsar.version()))
    except pulsar.PulsarError as error:
        print("demo: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
