# Set-up in two commands on Debian 12 (see README): `make demo` and `make test`.
# Each installs the Debian packages it needs (only when dpkg says one is missing), then builds.

SWIFT ?= swift
# cairo draws `pulsar plot`'s figures, in the DejaVu Sans face; FFmpeg's libraries encode `pulsar video`.
DEB_PACKAGES := pkg-config libsndfile1-dev libzip-dev libmd-dev libsoxr-dev libasound2-dev librlottie-dev libpng-dev libsdl2-dev \
	libcairo2-dev fonts-dejavu-core libvorbis-dev libogg-dev libpipewire-0.3-dev \
	libavcodec-dev libavformat-dev libswscale-dev libavutil-dev
# A real audio server for the ALSA tests and the live benchmarks (a private PipeWire session).
SERVER_PACKAGES := pipewire pipewire-bin pipewire-alsa wireplumber dbus
# `make install` rewrites RUNPATHs (patchelf); `make deb` reads what is linked (dpkg-shlibdeps);
# the tests read the man pages and check the zsh completion, drive the viewer's window on a
# virtual X server with a real pointer, and measure `pulsar video`'s files with ffprobe and ffmpeg.
INSTALL_PACKAGES := patchelf dpkg-dev
CHECK_PACKAGES := man-db groff-base zsh xvfb xdotool ffmpeg
# The Python package's wheel is built with pip and tested in a virtual environment; the C#
# example is built with mono's compiler and run with its runtime.
PYTHON_PACKAGES := python3-pip python3-venv
CSHARP_PACKAGES := mono-mcs mono-runtime
# The viewer's frame benchmark runs under a virtual X server; the video benchmark compares with ffmpeg.
BENCH_PACKAGES := sox alsa-utils xvfb aubio-tools ffmpeg
OUT ?= out
# The private PipeWire session `make test` runs the ALSA tests against.
PW_DIR := $(CURDIR)/.build/pipewire-test

# Every release build links the Swift runtime into what it makes (`pulsar`, libpulsar): nothing
# of Swift is needed where they run. One set of flags for all of them, so that building one
# product does not recompile what another built.
RELEASE := -c release --static-swift-stdlib

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps deps-test deps-bench deps-install build release-products install uninstall deb wheel abi-check demo test bench soak fuzz clean

all: build

# Installs what is missing; runs apt-get update only then. Uses sudo when not root.
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install_missing,$(DEB_PACKAGES))

deps-test:
	$(call install_missing,$(DEB_PACKAGES) $(SERVER_PACKAGES) $(INSTALL_PACKAGES) $(CHECK_PACKAGES) $(PYTHON_PACKAGES) $(CSHARP_PACKAGES))

deps-install:
	$(call install_missing,$(DEB_PACKAGES) $(INSTALL_PACKAGES))

deps-bench:
	$(call install_missing,$(DEB_PACKAGES) $(SERVER_PACKAGES) $(BENCH_PACKAGES))

build: deps
	$(SWIFT) build $(RELEASE)

# The release `pulsar` and libpulsar (a dynamic library product, which `swift build` alone does
# not link).
release-products: deps-install
	$(SWIFT) build $(RELEASE) --product pulsar
	$(SWIFT) build $(RELEASE) --product PulsarC

# bin/pulsar and lib/libpulsar.so* (stripped, the Swift runtime linked in: nothing of the
# toolchain is needed), include/pulsar.h, lib/pkgconfig/pulsar.pc, man pages, bash and zsh
# completions, docs; every file listed in share/pulsar/install-manifest (scripts/install.sh).
# STRIP=0 keeps symbols and debug info.
install: release-products
	bash scripts/install.sh install .build/release $(PREFIX) $(DESTDIR)

# Removes exactly the files the manifest lists, then the folders left empty.
uninstall:
	bash scripts/install.sh uninstall $(PREFIX) $(DESTDIR)

# $(OUT)/pulsar_haptics-VERSION-py3-none-linux_ARCH.whl: the Python package (python/) with the
# self-contained libpulsar inside; `pip install` it anywhere with Python 3.9+ and numpy.
wheel: release-products
	$(call install_missing,$(PYTHON_PACKAGES))
	bash scripts/make-wheel.sh .build/release $(OUT)

# libpulsar's ABI against include/pulsar.abi (`python3 scripts/abi-check.py LIB --record`
# writes the record after a compatible change).
abi-check: release-products
	python3 scripts/abi-check.py .build/release/libPulsarC.so

# $(OUT)/pulsar_VERSION_ARCH.deb; `bash scripts/deb-check.sh $(OUT)/pulsar_*.deb` (as root) installs,
# checks and removes it.
deb: release-products
	bash scripts/make-deb.sh .build/release $(OUT)

# The demo bundle is made from Resources/ by the project's own tools, rendered, then played live
# on the default sound device (or the simulated one, with a line saying so, where there is none).
demo: build
	@mkdir -p $(OUT)
	bash scripts/make-demo-bundle.sh $(OUT) .build/release/pulsar
	.build/release/pulsar render $(OUT)/demo.pulsar --preset heartbeat --layout stereo+haptic -o $(OUT)/heartbeat.wav
	.build/release/pulsar render Resources/patterns/demo.json -o $(OUT)/demo-lra.wav --profile lra --format s16
	.build/release/pulsar play $(OUT)/demo.pulsar --preset heartbeat --loop 2
	# A picture of what played, and a drift measurement: an hour of the simulated device at
	# +250 ppm (simulated time), then the default sound device for 10 s (the simulated one,
	# paced, with a line saying so, where there is none).
	.build/release/pulsar plot $(OUT)/demo.pulsar --preset heartbeat -o $(OUT)/heartbeat.png
	.build/release/pulsar drift --device sim:ppm=250,jitter=0.3 --seconds 3600 --json $(OUT)/drift-sim.json --plot $(OUT)/drift-sim.png
	.build/release/pulsar drift --device auto --seconds 10 --json $(OUT)/drift-default.json --plot $(OUT)/drift-default.png
	# With a display, the viewer: the animation in step with the sound, for 20 s (q closes it).
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  .build/release/pulsar view $(OUT)/demo.pulsar --preset heartbeat --loop forever --exit-after 20; \
	else \
	  echo "no display: skipping 'pulsar view $(OUT)/demo.pulsar --preset heartbeat' (try SDL_VIDEODRIVER=offscreen or Xvfb)"; \
	fi

test: deps-test
	$(SWIFT) build --build-tests
	# The device tests play the optimized executable: a debug build's real-time thread is
	# slower than a 256-frame period after a command (Tests/PulsarALSATests/PlayCaptureTests.swift).
	$(SWIFT) build $(RELEASE) --product pulsar
	# The Swift example: a package of its own that depends on this one by path (so no product it
	# uses may carry unsafe flags), built and run from its folder with no argument: it plays the
	# demo bundle on the simulated device and must exit 0.
	bash scripts/make-demo-bundle.sh $(OUT) .build/release/pulsar > /dev/null
	cd examples/swift && $(SWIFT) build && .build/debug/play-demo
	# The benchmarks must build; rt-allocations checks the real-time path (release build: a debug
	# build boxes variables captured by local closures).
	cd Benchmarks && $(SWIFT) build -c release
	# libpulsar (a dynamic library product, which building the tests does not build): the C API
	# tests compile C against it, as built and as installed into a temporary prefix (the examples
	# through pkg-config, with nothing of the toolchain on any search path); the tests also read
	# the .deb's contents and run its binary unpacked.
	$(SWIFT) build --product PulsarC
	$(SWIFT) build $(RELEASE) --product PulsarC
	# The library's ABI (exported functions, their types, constants, struct layouts) against
	# include/pulsar.abi: a change that would break a compiled caller fails here.
	python3 scripts/abi-check.py .build/release/libPulsarC.so
	rm -rf $(CURDIR)/.build/install-test $(CURDIR)/.build/deb-test
	bash scripts/install.sh install .build/release $(CURDIR)/.build/install-test/prefix
	bash scripts/make-deb.sh .build/release $(CURDIR)/.build/deb-test
	# The Python package: its wheel installed with pip into a fresh virtual environment (numpy and
	# pytest from PyPI), imported from elsewhere, then its tests: renders equal to `pulsar render`,
	# the game example's session replaying bit for bit, bad calls raising.
	bash scripts/make-wheel.sh .build/release $(CURDIR)/.build/wheel-test > /dev/null
	rm -rf $(CURDIR)/.build/python-venv && /usr/bin/python3 -m venv $(CURDIR)/.build/python-venv
	$(CURDIR)/.build/python-venv/bin/pip install --quiet $(CURDIR)/.build/wheel-test/pulsar_haptics-*.whl pytest
	cd /tmp && $(CURDIR)/.build/python-venv/bin/python -c "import pulsar; print('import pulsar:', pulsar.version(), pulsar._native.path)"
	PULSAR_BINARY=$(CURDIR)/.build/release/pulsar $(CURDIR)/.build/python-venv/bin/python -m pytest -q -p no:cacheprovider python/tests
	# Every test, the ALSA ones against a private PipeWire session with a timer-driven null sink,
	# which is stopped by PID whatever the tests do (scripts/pipewire-session.sh). The ALSA suites
	# run on their own after the rest: they time a real device's clock, and the corpus-wide
	# signal tests would otherwise load both cores under them. Then the real-time path must not
	# allocate or free, on the simulated device and on ALSA in the same session; and `follow`
	# from a capture 300 ppm off its device must hold its delay within 1 ms for a simulated hour.
	bash scripts/pipewire-session.sh start $(PW_DIR) && \
	( set -a; . $(PW_DIR)/env; export PULSAR_PIPEWIRE_DIR=$(PW_DIR) PULSAR_INSTALL_PREFIX=$(CURDIR)/.build/install-test/prefix PULSAR_DEB_DIR=$(CURDIR)/.build/deb-test; \
	  $(SWIFT) test --skip '^PulsarALSATests\.' && PULSAR_BINARY=$(CURDIR)/.build/release/pulsar $(SWIFT) test --skip-build --filter '^PulsarALSATests\.' && \
	  Benchmarks/.build/release/rt-allocations && Benchmarks/.build/release/follow-clock --seconds 3600 --check ); status=$$?; \
	bash scripts/pipewire-session.sh stop $(PW_DIR); exit $$status
	# Four threads firing commands and mix changes at one player, and making and driving 64
	# voices of one engine, under ThreadSanitizer.
	$(SWIFT) test --sanitize=thread --scratch-path .build/tsan --filter "HapticPlayerThreadTests|EngineThreadTests|SPSCQueueTests|PlayerLifecycleTests|PlayerStepBoundTests"

# libFuzzer targets (Fuzz/): every reader, seeded from Resources/ and ../shared/corpus, each for
# FUZZ_SECONDS (or FUZZ_RUNS inputs). Findings land in Tests/Fixtures/fuzz/<target>/, which
# `make test` replays. Linked with the toolchain's lld (gold fails on the sanitizer runtime).
FUZZ_SECONDS ?= 60
# Built from scratch each time: SwiftPM did not pick up a source file added to the parent package
# since the last fuzz build.
fuzz: build
	rm -rf Fuzz/.build
	# Product by product: a build of everything would also compile the `pulsar` executable's
	# top-level code under -parse-as-library, which refuses it.
	cd Fuzz && for target in $$(ls Sources | sed -n 's/^fuzz-//p'); do \
	  $(SWIFT) build -c release --toolset toolset.json -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --product fuzz-$$target || exit 1; \
	done
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

bench: deps-bench
	$(SWIFT) build $(RELEASE)
	cd Benchmarks && $(SWIFT) build -c release
	cd Benchmarks && .build/release/render-throughput
	cd Benchmarks && .build/release/derive-throughput
	cd Benchmarks && .build/release/mix-throughput
	cd Benchmarks && .build/release/drift
	cd Benchmarks && .build/release/command-latency
	cd Benchmarks && .build/release/live-play
	cd Benchmarks && .build/release/engine-voices
	cd Benchmarks && .build/release/trigger-latency
	cd Benchmarks && .build/release/lottie-render
	cd Benchmarks && .build/release/viewer-frames

# Soak (not part of `make test`): one simulated hour of random commands and live changes on a
# driven clock (memory, the device clock, recording == replay), then ten real minutes on the
# private PipeWire session (no underrun, memory flat). SOAK_ARGS passes options to the program.
SOAK_ARGS ?=
soak: deps-test
	cd Benchmarks && $(SWIFT) build -c release --product soak
	bash scripts/pipewire-session.sh start $(PW_DIR) && \
	( set -a; . $(PW_DIR)/env; Benchmarks/.build/release/soak $(SOAK_ARGS) ); status=$$?; \
	bash scripts/pipewire-session.sh stop $(PW_DIR); exit $$status

clean:
	rm -rf .build Benchmarks/.build $(OUT)
