# pttrelay: `make run` starts the server, `make test` runs every test.
# Missing system libraries are installed with apt-get (as root, or through sudo when available).

SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
DATA ?= ./.pttd
APT_PACKAGES := libopus-dev libsrtp2-dev libogg-dev libsqlite3-dev pkg-config
PKG_CONFIG_NAMES := opus libsrtp2 ogg sqlite3
# Real peers the tests talk to: command name → Debian package.
TEST_TOOLS := opusenc:opus-tools opusinfo:opus-tools opusdec:opus-tools ffmpeg:ffmpeg tshark:tshark

SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: all deps test-tools build release run test clean
.PHONY: test-sanitized test-sanitized-thread test-sanitized-address

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

## Every test (Swift Testing); ends with a plain "N passed, N failed" line.
test: deps test-tools
	$(SWIFT) build --build-tests
	@set -o pipefail; $(SWIFT) test --skip-build --disable-xctest 2>&1 | tee .build/test-output.txt; status=$$?; \
	summary=$$(grep -E 'Test run with [0-9]+ tests?' .build/test-output.txt | tail -n 1); \
	total=$$(echo "$$summary" | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/'); \
	failed=$$(grep -cE '^✘ Test .* failed' .build/test-output.txt); \
	[ -n "$$total" ] && echo "$$((total - failed)) passed, $$failed failed"; \
	exit $$status

## Every test under ThreadSanitizer, then under AddressSanitizer (+ LeakSanitizer). Each pass has its
## own scratch path, builds every product instrumented (the tests spawn pttd, ptt and pttctl), and ends
## with "N passed, N failed" and the number of sanitizer reports; any failure or report fails the target.
## Reports from every process (tests and the executables they spawn) go to files through log_path and
## are printed at the end of the pass. Suppressions (each with its reason) are in Tests/Sanitizers/.
SANITIZER_DIR := $(CURDIR)/Tests/Sanitizers
# Sanitized builds run 2–10× slower: tests multiply their waits by this (see TestTimeouts.swift).
PTT_TEST_TIMEOUT_SCALE ?= 4
SANITIZER_ENV = SWIFT_BACKTRACE=enable=no PTT_TEST_TIMEOUT_SCALE=$(PTT_TEST_TIMEOUT_SCALE) \
  TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 history_size=4 suppressions=$(SANITIZER_DIR)/tsan.supp log_path=$$reports/report" \
  ASAN_OPTIONS="detect_leaks=1 abort_on_error=0 log_path=$$reports/report" \
  LSAN_OPTIONS="suppressions=$(SANITIZER_DIR)/lsan.supp print_suppressions=0 log_path=$$reports/report"

# $(call sanitized-pass,thread|address,scratch path)
define sanitized-pass
	@set -o pipefail; scratch=$(2); reports=$(CURDIR)/$$scratch/sanitizer-reports; out=$$scratch/test-output.txt; \
	start=$$(date +%s); \
	$(SWIFT) build --build-tests --sanitize=$(1) --scratch-path $$scratch || exit $$?; \
	built=$$(date +%s); rm -rf $$reports; mkdir -p $$reports; \
	$(SANITIZER_ENV) $(SWIFT) test --skip-build --disable-xctest --sanitize=$(1) --scratch-path $$scratch 2>&1 | tee $$out; status=$$?; \
	for f in $$reports/report.*; do [ -s "$$f" ] && { echo "--- $$f"; cat "$$f"; }; done 2>/dev/null | tee -a $$out; \
	summary=$$(grep -E 'Test run with [0-9]+ tests?' $$out | tail -n 1); \
	total=$$(echo "$$summary" | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/'); \
	failed=$$(grep -cE '^✘ Test "[^"]*"( with [0-9]+ test cases?)? failed after' $$out); \
	found=$$(grep -cE 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer' $$out); \
	echo "sanitize=$(1): build $$((built - start)) s, tests $$(( $$(date +%s) - built )) s"; \
	[ -n "$$total" ] && echo "$$((total - failed)) passed, $$failed failed (sanitize=$(1))" || echo "no test summary (sanitize=$(1)): the test process crashed"; \
	echo "$$found sanitizer reports (sanitize=$(1))"; \
	[ $$status -eq 0 ] && [ -n "$$total" ] && [ $$found -eq 0 ]
endef

test-sanitized: deps test-tools
	@status=0; \
	$(MAKE) --no-print-directory test-sanitized-thread || status=1; \
	$(MAKE) --no-print-directory test-sanitized-address || status=1; \
	exit $$status

test-sanitized-thread: deps test-tools
	$(call sanitized-pass,thread,.build-tsan)

test-sanitized-address: deps test-tools
	$(call sanitized-pass,address,.build-asan)

clean:
	rm -rf .build
