#!/usr/bin/env python3
"""What an install weighs and how fast it starts, for two installs side by side in one run.

usage: Benchmarks/scripts/footprint.py BEFORE_PREFIX AFTER_PREFIX [RUNS]

Each PREFIX is a `make install PREFIX=...` tree. For each: the bytes of the whole install, of
bin/pulsar and lib/libpulsar.so.0 (as installed), the Swift libraries `ldd` resolves for each;
then, alternating between the two installs so that machine load falls on both alike, the wall
time of `pulsar --version`, of `pulsar render` of the demo pattern to a WAV (start-up, one
render, exit), of examples/c/render.c built against that prefix doing the same through
libpulsar, and of `pulsar render` of the demo pattern looped to 5 minutes (throughput). Prints a
Markdown table: median and maximum of RUNS runs (default 20).
"""
import os, subprocess, sys, tempfile, time, statistics

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
before, after = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
pattern = os.path.join(root, "Resources/patterns/demo.json")
work = tempfile.mkdtemp(prefix="pulsar-footprint-")

def du(path):
    return int(subprocess.run(["du", "-sb", path], capture_output=True, text=True).stdout.split()[0])

def swift_libraries(obj, env):
    out = subprocess.run(["ldd", obj], capture_output=True, text=True, env=env).stdout
    names = [l.split()[0] for l in out.splitlines() if l.strip()]
    return [n for n in names if any(k in n for k in ("swift", "Foundation", "dispatch", "BlocksRuntime", "icu"))]

def build_render(prefix, name):
    exe = os.path.join(work, name)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "pulsar"], capture_output=True, text=True,
                           env={**os.environ, "PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"}, check=True).stdout.split()
    subprocess.run(["cc", "-O2", os.path.join(root, "examples/c/render.c"), "-o", exe] + flags, check=True)
    return exe

def timed(command, env):
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000

installs = {}
for label, prefix in (("before", before), ("after", after)):
    env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": prefix + "/lib"}
    pulsar = prefix + "/bin/pulsar"
    installs[label] = dict(prefix=prefix, env=env, pulsar=pulsar, render=build_render(prefix, "render-" + label),
                           total=du(prefix), binary=os.path.getsize(pulsar),
                           library=os.path.getsize(os.path.realpath(prefix + "/lib/libpulsar.so.0")),
                           runtime=du(prefix + "/lib/pulsar") if os.path.isdir(prefix + "/lib/pulsar") else 0,
                           swift=(swift_libraries(pulsar, env), swift_libraries(prefix + "/lib/libpulsar.so.0", env)))

measures = {
    "`pulsar --version`": lambda i: [i["pulsar"], "--version"],
    "`pulsar render demo.json -o x.wav` (start, render 1 s of pattern, exit)": lambda i: [i["pulsar"], "render", pattern, "-o", os.path.join(work, "x.wav"), "--quiet"],
    "examples/c/render.c through libpulsar, same render": lambda i: [i["render"], pattern, os.path.join(work, "c.wav")],
    "`pulsar render demo.json --loop 300` (5 min of haptics + stereo, throughput)": lambda i: [i["pulsar"], "render", pattern, "--loop", "300", "--layout", "stereo+haptic", "-o", os.path.join(work, "long.wav"), "--quiet"],
}
times = {(m, l): [] for m in measures for l in installs}
for _ in range(runs):
    for m, command in measures.items():
        for label, i in installs.items():
            times[(m, label)].append(timed(command(i), i["env"]))

mib = lambda b: f"{b / (1 << 20):.1f} MiB"
b, a = installs["before"], installs["after"]
print(f"| measure | before | after |")
print(f"| --- | ---: | ---: |")
print(f"| the install (`du -sb`) | {mib(b['total'])} | {mib(a['total'])} |")
print(f"| of it, the Swift runtime in lib/pulsar/ | {mib(b['runtime'])} | {mib(a['runtime'])} |")
print(f"| bin/pulsar (as installed) | {mib(b['binary'])} | {mib(a['binary'])} |")
print(f"| lib/libpulsar.so.0 (as installed) | {mib(b['library'])} | {mib(a['library'])} |")
print(f"| Swift libraries `ldd` resolves: pulsar / libpulsar | {len(b['swift'][0])} / {len(b['swift'][1])} | {len(a['swift'][0])} / {len(a['swift'][1])} |")
for m in measures:
    tb, ta = sorted(times[(m, "before")]), sorted(times[(m, "after")])
    print(f"| {m}: median / max of {runs} | {statistics.median(tb):.1f} / {tb[-1]:.1f} ms | {statistics.median(ta):.1f} / {ta[-1]:.1f} ms |")
