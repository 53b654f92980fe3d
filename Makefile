# pttrelay: `make run` starts the server, `make test` runs every test.
# Missing system libraries are installed with apt-get (as root, or through sudo when available).

SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
DATA ?= ./.pttd
APT_PACKAGES := libopus-dev libsrtp2-dev libogg-dev libsqlite3-dev pkg-config
PKG_CONFIG_NAMES := opus libsrtp2 ogg sqlite3
# Real peers the tests talk to: command name → Debian package.
TEST_TOOLS := opusenc:opus-tools opusinfo:opus-tools opusdec:opus-tools ffmpeg:ffmpeg tshark:tshark ip:iproute2 tc:iproute2

SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: all deps test-tools build release run test clean

all: build

## Install the Debian packages the build needs, only if pkg-config cannot find them.
deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"; \
	for name in $(PKG_CONFIG_NAMES); do \
	  command -v pkg-config >/dev/null 2>&1 && pkg-config --exists $$name || missing="$$missing $$name"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing system packages (missing: $$missing): $(APT_PACKAGES)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PACKAGES); \
	fi

## Install the programs the interop tests run as peers, only if missing.
test-tools:
	@missing=""; \
	for pair in $(TEST_TOOLS); do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair##*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing test tools:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Start pttd in release mode with its data in $(DATA).
run: release
	$$($(SWIFT) build -c release --show-bin-path)/pttd --data $(DATA) $(ARGS)

## Every test (Swift Testing); ends with a plain "N passed, N failed" line. Two passes: every test but the
## stress suite (floods, churn, storms), then the stress suite alone, so its load never disturbs the
## timing of the others.
STRESS := PTTServerTests\.Stress
test: deps test-tools
	$(SWIFT) build --build-tests
	@set -o pipefail; status=0; \
	$(SWIFT) test --skip-build --disable-xctest --skip '$(STRESS)' 2>&1 | tee .build/test-output.txt || status=$$?; \
	echo "make: the stress suite, alone"; \
	$(SWIFT) test --skip-build --disable-xctest --filter '$(STRESS)' 2>&1 | tee .build/test-stress-output.txt || status=$$?; \
	total=0; for f in .build/test-output.txt .build/test-stress-output.txt; do \
	  n=$$(grep -E 'Test run with [0-9]+ tests?' $$f | tail -n 1 | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/'); \
	  total=$$((total + $${n:-0})); \
	done; \
	failed=$$(cat .build/test-output.txt .build/test-stress-output.txt | grep -E '^✘ Test .* failed' | grep -vc '^✘ Test run with'); \
	echo "$$((total - failed)) passed, $$failed failed"; \
	exit $$status

clean:
	rm -rf .build
