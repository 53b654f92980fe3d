# pttrelay: `make run` starts the server, `make test` runs every test.
# Missing system libraries are installed with apt-get (as root, or through sudo when available).

SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
DATA ?= ./.pttd
# What pttd, pttctl and ptt link (libsrtp2 is not among them: only the tests' oracle uses it, see TEST_LIBRARIES).
APT_PACKAGES := libopus-dev libssl-dev libogg-dev libsqlite3-dev pkg-config
PKG_CONFIG_NAMES := opus libcrypto ogg sqlite3
# The programs `make build`, `make run`, `make install` and `make deb` build; pttbench, srtp-bench and the fuzz
# targets have targets of their own (bench, fuzz-build), the tests `make test`.
PRODUCTS := pttd pttctl ptt
# Real peers the tests talk to: command name → Debian package.
TEST_TOOLS := opusenc:opus-tools opusinfo:opus-tools opusdec:opus-tools ffmpeg:ffmpeg tshark:tshark ip:iproute2 tc:iproute2 \
  chromium:chromium prometheus:prometheus promtool:prometheus openssl:openssl curl:curl setpriv:util-linux \
  pg_ctlcluster:postgresql gst-launch-1.0:gstreamer1.0-tools gst-inspect-1.0:gstreamer1.0-tools
# GStreamer elements the GStreamer interop test runs (gst-inspect-1.0 finds them): element → Debian package.
TEST_GST_ELEMENTS := srtpdec:gstreamer1.0-plugins-bad srtpenc:gstreamer1.0-plugins-bad \
  rtpopusdepay:gstreamer1.0-plugins-good rtpopuspay:gstreamer1.0-plugins-good udpsrc:gstreamer1.0-plugins-good \
  oggmux:gstreamer1.0-plugins-base oggdemux:gstreamer1.0-plugins-base opusparse:gstreamer1.0-plugins-bad
# C libraries only the tests link (pkg-config name → Debian package): libsrtp2 is the SRTP tests' oracle (LibSRTP).
TEST_LIBRARIES := libsrtp2:libsrtp2-dev

SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: all deps test-tools build release run test clean bench lint format docs install deb
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
	for pair in $(TEST_GST_ELEMENTS); do \
	  gst-inspect-1.0 --exists $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair##*:}"; \
	done; \
	for pair in $(TEST_LIBRARIES); do \
	  pkg-config --exists $${pair%%:*} 2>/dev/null || missing="$$missing $${pair##*:}"; \
	done; \
	missing=$$(echo $$missing | tr ' ' '\n' | sort -u | xargs); \
	if [ -n "$$missing" ]; then \
	  echo "make: installing test tools: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@# Playwright for Python drives Debian's chromium in the browser tests (no browser download: none is needed).
	@python3 -c 'import playwright' 2>/dev/null || { \
	  echo "make: installing Playwright for Python (PyPI)"; \
	  python3 -m pip install -q playwright || python3 -m pip install -q --break-system-packages playwright; }
	@# schemathesis runs generated requests against pttd's admin API from its OpenAPI document (AdminSchemaTests).
	@python3 -c 'import schemathesis' 2>/dev/null || { \
	  echo "make: installing schemathesis (PyPI)"; \
	  python3 -m pip install -q schemathesis || python3 -m pip install -q --break-system-packages schemathesis; }

build: deps
	@set -e; for product in $(PRODUCTS); do echo "$(SWIFT) build --product $$product"; $(SWIFT) build --product $$product; done

release: deps
	@set -e; for product in $(PRODUCTS); do \
	  echo "$(SWIFT) build -c release --product $$product"; $(SWIFT) build -c release --product $$product; done

## Start pttd in release mode with its data in $(DATA).
run: release
	$$($(SWIFT) build -c release --show-bin-path)/pttd --data $(DATA) $(ARGS)

## Install the release binaries, the systemd unit, a default config (kept if one is there) and the docs:
## `make install PREFIX=/usr/local DESTDIR=` (DESTDIR for a staging root). The unit runs pttd as the user
## `pttd` with its data in /var/lib/pttd: create them first (`adduser --system --group pttd`), or use `make deb`.
PREFIX ?= /usr/local
install: release
	@bin=$$($(SWIFT) build -c release --show-bin-path); set -e; \
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/systemd/system $(DESTDIR)/etc/pttd \
	  $(DESTDIR)$(PREFIX)/share/doc/pttd/monitoring; \
	install -m 0755 $$bin/pttd $$bin/pttctl $$bin/ptt $(DESTDIR)$(PREFIX)/bin/; \
	sed 's|/usr/bin/pttd|$(PREFIX)/bin/pttd|' Docs/packaging/pttd.service > $(DESTDIR)$(PREFIX)/lib/systemd/system/pttd.service; \
	[ -e $(DESTDIR)/etc/pttd/config.json ] || install -m 0644 Docs/packaging/config.json $(DESTDIR)/etc/pttd/config.json; \
	install -m 0644 README.md Docs/OPERATIONS.md Docs/PROTOCOL.md $(DESTDIR)$(PREFIX)/share/doc/pttd/; \
	install -m 0644 Docs/monitoring/* $(DESTDIR)$(PREFIX)/share/doc/pttd/monitoring/; \
	echo "make: installed pttd, pttctl, ptt in $(DESTDIR)$(PREFIX)/bin and pttd.service in $(DESTDIR)$(PREFIX)/lib/systemd/system"

## The Debian package (.build/deb/pttd_VERSION_ARCH.deb): release binaries with the Swift runtime linked in
## statically, the unit, /etc/pttd/config.json, docs, and maintainer scripts that add the pttd user. The binaries
## are stripped: their debug information is in .build/deb/pttd-dbgsym_VERSION_ARCH.deb (by build-id).
VERSION ?= 0.$(shell git rev-list --count HEAD 2>/dev/null || echo 0)+g$(shell git rev-parse --short HEAD 2>/dev/null || echo 0)
deb: deps
	@set -e; for product in $(PRODUCTS); do \
	  echo "$(SWIFT) build -c release --static-swift-stdlib --product $$product"; \
	  $(SWIFT) build -c release --static-swift-stdlib --product $$product; done
	Docs/packaging/make-deb.sh $$($(SWIFT) build -c release --static-swift-stdlib --show-bin-path) .build/deb $(VERSION)

## The benchmark table of the current targets (Docs/BENCHMARKS.md): release pttd and pttbench in their own
## scratch path, then `pttbench matrix` (C reference relay, pttd plain and SRTP, joins over TLS; several
## minutes, best on a quiet machine). Raw JSON of every run in $(BENCH_OUT). BENCH_ARGS adds matrix options.
BENCH_SCRATCH := .build-bench
BENCH_OUT ?= $(BENCH_SCRATCH)/results
bench: deps
	$(SWIFT) build -c release --scratch-path $(BENCH_SCRATCH) --product pttd
	$(SWIFT) build -c release --scratch-path $(BENCH_SCRATCH) --product pttbench
	$(BENCH_SCRATCH)/release/pttbench matrix --out $(BENCH_OUT) $(BENCH_ARGS)

## The benchmark gate (issue 24, Docs/BENCHMARKS.md): heap allocations per relayed packet (100 listeners, plain and
## SRTP), per join and per floor request, counted in process by pttbench-gate (a malloc of its own), against
## fixtures/bench-thresholds.json; it fails naming each metric above its threshold. The thresholds are for the debug
## build `make test` makes, so after it this takes seconds. BENCH_CHECK_ARGS=--update writes what it measures now.
.PHONY: bench-check
bench-check: deps
	$(SWIFT) build --product pttbench-gate
	$$($(SWIFT) build --show-bin-path)/pttbench-gate --thresholds fixtures/bench-thresholds.json $(BENCH_CHECK_ARGS)

## swift-format (in the Swift toolchain) with the settings in .swift-format: `make lint` fails on any finding
## (CI runs it first), `make format` rewrites the files in place.
## Then the kit checks (issue 22, Tests/Scripts/check-kit-dependencies.py, under a second): PTTKit's dependency
## closure holds only Swift targets of ours and products of swift-nio, swift-nio-ssl and swift-crypto (no system
## library, no C target, no other package), and its targets import Glibc/Musl/Darwin only under `#if canImport`.
## It reads `swift package dump-package` and `describe`, which resolve nothing: fine on a fresh clone.
## Last the size rules of Docs/ARCHITECTURE.md (Tests/Scripts/check-sizes.py): no file in Sources over 300 lines,
## no type over 25 methods; and the parts rule (Tests/Scripts/check-parts.py): a plane part never calls another.
FORMAT_PATHS := Sources Tests Package.swift
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)
	SWIFT=$(SWIFT) python3 Tests/Scripts/check-kit-dependencies.py --package-path $(CURDIR)
	python3 Tests/Scripts/check-sizes.py
	python3 Tests/Scripts/check-parts.py

format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_PATHS)

## PTTKit's DocC documentation (Sources/PTTKit/PTTKit.docc and the /// comments) as a DocC archive in
## $(DOCS_OUT); any warning (a broken symbol link, say) fails it. The symbol graph is made in a scratch path of its
## own, so the main build keeps its flags. `docc preview` on the catalog serves it locally.
DOCS_SCRATCH := .build-docs
DOCS_OUT ?= $(DOCS_SCRATCH)/PTTKit.doccarchive
DOCC ?= $(shell command -v docc 2>/dev/null || echo /opt/swift/usr/bin/docc)
docs:
	rm -rf $(DOCS_SCRATCH)/symbol-graphs && mkdir -p $(DOCS_SCRATCH)/symbol-graphs/all $(DOCS_SCRATCH)/symbol-graphs/PTTKit
	$(SWIFT) build --scratch-path $(DOCS_SCRATCH) --target PTTKit \
	  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc $(CURDIR)/$(DOCS_SCRATCH)/symbol-graphs/all
	cp $(DOCS_SCRATCH)/symbol-graphs/all/PTTKit*.symbols.json $(DOCS_SCRATCH)/symbol-graphs/PTTKit/
	$(DOCC) convert Sources/PTTKit/PTTKit.docc --additional-symbol-graph-dir $(DOCS_SCRATCH)/symbol-graphs/PTTKit \
	  --fallback-display-name PTTKit --fallback-bundle-identifier org.pttrelay.PTTKit --warnings-as-errors \
	  --output-path $(DOCS_OUT)
	@echo "make: PTTKit documentation in $(DOCS_OUT)"

## Every test (Swift Testing); ends with a plain "N passed, N failed" line. Five passes: every test but the
## heavy ones; then the suites that run Chromium or build a package (they take both cores and much disk I/O
## for seconds at a time), alone and one suite at a time (--no-parallel, as the sanitized passes run them: the
## page's timing tests starve beside three other suites' Chromium pages, as a press-again round once did); then the cluster suite (several pttd processes and PostgreSQL at once), alone; then the stress suite (floods, churn, storms), alone: neither load disturbs
## the timing of the others (real-time pace, catch-up); last the page's mouth-to-ear measurement, alone (its
## "quiet" phase needs a quiet machine).
STRESS := PTTServerTests\.Stress
# KitConsumerTests builds fixtures/kit-consumer: swift-nio, swift-nio-ssl and swift-crypto from scratch (minutes).
HEAVY := PTTServerTests\.(Browser[A-Za-z]*Tests|ConsoleTests|PackagingTests|KitConsumerTests)
CLUSTER := PTTServerTests\.ClusterTests
# The page's mouth-to-ear delay: a measurement of time, with its own load and its own stalls; alone, after the
# others (a minute and a half).
LATENCY := PTTServerTests\.PageLatencyTests
# The browser tests run Playwright with the python3 that test-tools installed it for.
export PTT_PYTHON := $(shell command -v python3 2>/dev/null)
# A crash's backtrace: the crashed thread, symbols and lines only. The full default symbolicated all 170 threads of
# the test process against its 230 MB of debug information for 19 minutes (2026-11-29).
test: export SWIFT_BACKTRACE = threads=crashed,symbolicate=fast
test: deps test-tools
	$(SWIFT) build --build-tests
	@set -o pipefail; status=0; \
	$(SWIFT) test --skip-build --disable-xctest --skip '$(STRESS)|$(HEAVY)|$(CLUSTER)|$(LATENCY)' 2>&1 | tee .build/test-output.txt || status=$$?; \
	echo "make: the browser and packaging suites, alone, one at a time"; \
	$(SWIFT) test --skip-build --disable-xctest --no-parallel --filter '$(HEAVY)' 2>&1 | tee .build/test-heavy-output.txt || status=$$?; \
	echo "make: the cluster suite, alone"; \
	$(SWIFT) test --skip-build --disable-xctest --filter '$(CLUSTER)' 2>&1 | tee .build/test-cluster-output.txt || status=$$?; \
	echo "make: the stress suite, alone"; \
	$(SWIFT) test --skip-build --disable-xctest --filter '$(STRESS)' 2>&1 | tee .build/test-stress-output.txt || status=$$?; \
	echo "make: the page's mouth-to-ear measurement, alone"; \
	$(SWIFT) test --skip-build --disable-xctest --filter '$(LATENCY)' 2>&1 | tee .build/test-latency-output.txt || status=$$?; \
	total=0; for f in .build/test-output.txt .build/test-heavy-output.txt .build/test-cluster-output.txt .build/test-stress-output.txt .build/test-latency-output.txt; do \
	  n=$$(grep -E 'Test run with [0-9]+ tests?' $$f | tail -n 1 | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/'); \
	  [ -n "$$n" ] || echo "make: $$f has no test summary: the test process crashed (see the backtrace above)"; \
	  total=$$((total + $${n:-0})); \
	done; \
	failed=$$(cat .build/test-output.txt .build/test-heavy-output.txt .build/test-cluster-output.txt .build/test-stress-output.txt .build/test-latency-output.txt | grep -cE '^✘ Test ("[^"]*"|[A-Za-z_][A-Za-z0-9_]*\([^)]*\))( with [0-9]+ test cases?)? failed after'); \
	echo "$$((total - failed)) passed, $$failed failed"; \
	exit $$status

## Every test under ThreadSanitizer, then under AddressSanitizer (+ LeakSanitizer). Each pass has its
## own scratch path, builds every product instrumented (the tests spawn pttd, ptt and pttctl), and ends
## with "N passed, N failed" and the number of sanitizer reports; any failure or report fails the target.
## Reports from every process (tests and the executables they spawn) go to files through log_path and
## are printed at the end of the pass. Suppressions (each with its reason) are in Tests/Sanitizers/.
## The stress suite and the page's mouth-to-ear measurement are left out: they measure throughput, memory and
## delay, which a sanitizer distorts. The browser and packaging suites run one at a time here: seven Chromium pages
## and their sanitized pttd processes at once on two cores lost a page's audio frames (300 of 309) and a member's
## speech, where each suite alone passes.
SANITIZER_DIR := $(CURDIR)/Tests/Sanitizers
# Sanitized builds run 2–10× slower: tests multiply their waits by this (see TestTimeouts.swift).
PTT_TEST_TIMEOUT_SCALE ?= 4
# The sanitized test processes run without address space randomisation (setarch -R): ThreadSanitizer's shadow
# memory once crashed here (SEGV in StoreShadow, in a test that shares no memory) when the kernel placed a
# mapping where TSan does not expect one. It happened once more with the layout fixed (SEGV in MemoryAccess on a
# garbage address, in JoinPlanTests): Tests/Sanitizers/test-pass.sh makes a run that dies that way once more.
NO_ASLR := $(shell setarch $$(uname -m) -R true >/dev/null 2>&1 && echo "setarch $$(uname -m) -R")
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
	: > $$out; \
	$(SANITIZER_ENV) $(SANITIZER_DIR)/test-pass.sh $$out $$reports -- $(NO_ASLR) $(SWIFT) test --skip-build --disable-xctest --sanitize=$(1) --scratch-path $$scratch --skip '$(STRESS)|$(HEAVY)|$(CLUSTER)|$(LATENCY)'; status=$$?; \
	echo "make: the browser and packaging suites, alone, one at a time (sanitize=$(1))" | tee -a $$out; \
	$(SANITIZER_ENV) $(SANITIZER_DIR)/test-pass.sh $$out $$reports -- $(NO_ASLR) $(SWIFT) test --skip-build --disable-xctest --no-parallel --sanitize=$(1) --scratch-path $$scratch --filter '$(HEAVY)' || status=1; \
	echo "make: the cluster suite, alone (sanitize=$(1))" | tee -a $$out; \
	$(SANITIZER_ENV) $(SANITIZER_DIR)/test-pass.sh $$out $$reports -- $(NO_ASLR) $(SWIFT) test --skip-build --disable-xctest --sanitize=$(1) --scratch-path $$scratch --filter '$(CLUSTER)' || status=1; \
	for f in $$reports/report.*; do [ -s "$$f" ] && { echo "--- $$f"; cat "$$f"; }; done 2>/dev/null | tee -a $$out; \
	runs=$$(grep -E 'Test run with [0-9]+ tests?' $$out | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/'); \
	total=0; passes=0; for n in $$runs; do total=$$((total + n)); passes=$$((passes + 1)); done; \
	[ $$passes -eq 3 ] || total=""; \
	failed=$$(grep -cE '^✘ Test ("[^"]*"|[A-Za-z_][A-Za-z0-9_]*\([^)]*\))( with [0-9]+ test cases?)? failed after' $$out); \
	found=$$(grep -cE 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer' $$out); \
	echo "sanitize=$(1): build $$((built - start)) s, tests $$(( $$(date +%s) - built )) s"; \
	[ -n "$$total" ] && echo "$(1): $$((total - failed)) passed, $$failed failed" || echo "no test summary (sanitize=$(1)): the test process crashed"; \
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

## libFuzzer: `make fuzz` builds every fuzz target (Sources/Fuzz/) with the fuzzer and address
## sanitizers and runs each for FUZZ_SECONDS on a scratch copy of its seeds (fixtures/fuzz/NAME, and
## the inputs of crashes fixed earlier, fixtures/fuzz/regressions/NAME).
## Crashing inputs are kept in $(FUZZ_DIR)/crashes/NAME/; the run fails if it added one.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= control-frame rtp srtp opus-packet ogg-opus wav config admin-http
FUZZ_DIR ?= .build-fuzz
FUZZ_FLAGS ?= -use_value_profile=1 -timeout=10 -rss_limit_mb=2048
# Targets whose every input allocates memory that stays reachable (a fresh ControlPlane and store), so
# libFuzzer would run LeakSanitizer after each one: 20 inputs/s instead of 400. Their leaks go unchecked.
FUZZ_NO_LEAK_CHECK ?= admin-http
FUZZ_CONFIG ?= release
# In release builds SwiftPM's --sanitize=fuzzer adds no coverage instrumentation; ask for libFuzzer's own.
FUZZ_BUILD := $(SWIFT) build -c $(FUZZ_CONFIG) --scratch-path $(FUZZ_DIR) --sanitize=fuzzer --sanitize=address \
	-Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp

.PHONY: fuzz fuzz-build fuzz-corpora

## Build the fuzz targets only (the toolchain's clang runtime has libFuzzer and ASan; linking needs libstdc++).
fuzz-build: deps
	@runtime=$$(ls $$(dirname $$(readlink -f $(SWIFT)))/../lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null | head -n 1); \
	[ -n "$$runtime" ] || { echo "make: this Swift toolchain has no libFuzzer runtime (libclang_rt.fuzzer)"; exit 1; }; \
	if ! ls /usr/lib/gcc/*/*/libstdc++.so >/dev/null 2>&1; then \
	  echo "make: installing libstdc++-12-dev (libFuzzer is C++)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libstdc++-12-dev; \
	fi
	@for t in $(FUZZ_TARGETS); do \
	  echo "make: building fuzz-$$t"; \
	  $(FUZZ_BUILD) --product fuzz-$$t || exit 1; \
	done

fuzz: fuzz-build
	@bin=$$($(FUZZ_BUILD) --show-bin-path); failed=""; \
	table="target|executions|exec/s|cov|ft|corpus (seeds→end)|seconds|crashes"; \
	for t in $(FUZZ_TARGETS); do \
	  run=$(FUZZ_DIR)/runs/$$t; rm -rf $$run; mkdir -p $$run/corpus $(FUZZ_DIR)/crashes/$$t; \
	  cp fixtures/fuzz/$$t/* $$run/corpus/; cp fixtures/fuzz/regressions/$$t/* $$run/corpus/ 2>/dev/null; \
	  seeds=$$(ls $$run/corpus | wc -l); \
	  echo "make: fuzzing $$t for $(FUZZ_SECONDS) s (log: $$run/log)"; \
	  case " $(FUZZ_NO_LEAK_CHECK) " in *" $$t "*) leaks=0;; *) leaks=1;; esac; \
	  touch $$run/started; start=$$(date +%s); \
	  SWIFT_BACKTRACE=enable=no \
	    $$bin/fuzz-$$t $$run/corpus -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -detect_leaks=$$leaks \
	    -artifact_prefix=$(FUZZ_DIR)/crashes/$$t/ $(FUZZ_FLAGS) > $$run/log 2>&1; status=$$?; \
	  seconds=$$(( $$(date +%s) - start )); \
	  stat() { sed -n "s/^stat::$$1: *//p" $$run/log | tail -n 1; }; \
	  last=$$(grep -E '^#[0-9]+.*cov: ' $$run/log | tail -n 1); \
	  cov=$$(echo "$$last" | sed -nE 's/.*cov: ([0-9]+).*/\1/p'); ft=$$(echo "$$last" | sed -nE 's/.*ft: ([0-9]+).*/\1/p'); \
	  new=$$(find $(FUZZ_DIR)/crashes/$$t -type f -newer $$run/started); crashes=$$(echo -n "$$new" | grep -c .); \
	  table="$$table\n$$t|$$(stat number_of_executed_units)|$$(stat average_exec_per_sec)|$$cov|$$ft|$$seeds→$$(ls $$run/corpus | wc -l)|$$seconds|$$crashes"; \
	  if [ $$status -ne 0 ] || [ $$crashes -gt 0 ]; then \
	    failed="$$failed $$t"; \
	    grep -E '^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*Assertion failed|.*Precondition failed)' $$run/log | head -n 5; \
	    for f in $$new; do echo "make: crashing input $$f; reproduce: $$bin/fuzz-$$t $$f"; done; \
	  fi; \
	done; \
	echo; echo -e "$$table" | column -t -s '|'; \
	if [ -n "$$failed" ]; then echo "make: fuzz targets failed:$$failed (inputs in $(FUZZ_DIR)/crashes/)"; exit 1; fi

## Remake the seed corpora in fixtures/fuzz/ from the fixtures, Docs/PROTOCOL.md and README.md.
fuzz-corpora:
	python3 fixtures/fuzz/make-corpora.py
