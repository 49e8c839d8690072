# Set-up in two commands on Debian 12 (see README): `make demo` and `make test`.
# Each installs the Debian packages it needs (only when dpkg says one is missing), then builds.

SWIFT ?= swift
DEB_PACKAGES := pkg-config libsndfile1-dev libzip-dev libsoxr-dev
BENCH_PACKAGES := sox
OUT ?= out

.PHONY: all deps deps-bench build demo test bench clean

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

deps-bench:
	$(call install_missing,$(DEB_PACKAGES) $(BENCH_PACKAGES))

build: deps
	$(SWIFT) build -c release

demo: build
	@mkdir -p $(OUT)
	.build/release/pulsar render Resources/patterns/demo.json -o $(OUT)/demo.wav
	.build/release/pulsar render Resources/patterns/demo.json -o $(OUT)/demo-lra.wav --profile lra --format s16
	.build/release/pulsar info Resources/patterns/demo.json

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	# The benchmarks must build; the real-time path must not allocate (release build: a debug
	# build boxes variables captured by local closures).
	cd Benchmarks && $(SWIFT) build -c release
	cd Benchmarks && .build/release/rt-allocations
	# Four threads firing commands and mix changes at one player, under ThreadSanitizer.
	$(SWIFT) test --sanitize=thread --scratch-path .build/tsan --filter "HapticPlayerThreadTests|SPSCQueueTests|FrameTickerTests"

bench: deps-bench
	cd Benchmarks && $(SWIFT) build -c release
	cd Benchmarks && .build/release/render-throughput
	cd Benchmarks && .build/release/mix-throughput
	cd Benchmarks && .build/release/drift
	cd Benchmarks && .build/release/command-latency

clean:
	rm -rf .build Benchmarks/.build $(OUT)
