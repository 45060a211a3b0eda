# Gatehouse — the two commands a user needs are `make run` and `make test`.
# Each installs what is missing on a Debian machine with Swift, then does its job.

SWIFT       ?= swift
DATABASE    ?= gatehouse.sqlite
HOST        ?= 127.0.0.1
PORT        ?= 8080
APT_PACKAGES = libsqlite3-dev libssl-dev libargon2-dev libcurl4-openssl-dev pkg-config
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release run test test-asan test-browser test-api-schema bench bench-http bench-api bench-dashboard bench-traffic bench-attest bench-pi bench-mustache fuzz fuzz-http fuzz-connection fuzz-mustache fuzz-attest fuzz-pi clean

# Installs the system libraries the build links against, only those missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Builds, migrates and serves on an embedded SQLite file; a fresh database gets the demo environment.
run: build
	$(SWIFT) run gatehouse serve --host $(HOST) --port $(PORT) --database $(DATABASE) $(if $(wildcard $(DATABASE)),,--demo)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest
	$(MAKE) test-asan
	$(MAKE) test-api-schema
	$(MAKE) test-browser

# The code that reads memory through pointers under AddressSanitizer (a debug build of its own in .build/asan): the
# Mustache tests (the spec suite among them) and the committed fuzz corpora of the Mustache and HTTP parsers replayed
# through their fuzz targets' replay tools (a plain build of a fuzz target replays the files it is given).
ASAN = --sanitize=address --scratch-path .build/asan
test-asan: deps
	$(SWIFT) build $(ASAN) --product MustacheFuzz
	$(SWIFT) build $(ASAN) --product HTTPParserFuzz
	SWIFT_BACKTRACE=enable=no .build/asan/debug/MustacheFuzz Tests/Fuzz/MustacheFuzz/corpus/* > /dev/null
	SWIFT_BACKTRACE=enable=no .build/asan/debug/HTTPParserFuzz Tests/Fuzz/HTTPParserFuzz/corpus/* > /dev/null
	$(SWIFT) test $(ASAN) --disable-xctest --filter MustacheTests

VENV = .venv
BROWSER_PACKAGES = chromium chromium-driver

# The Python tools of the test suites (selenium, pytest, schemathesis; pinned) in a virtualenv of the project.
$(VENV)/.installed: Tests/requirements.txt
	@python3 -m venv $(VENV) 2>/dev/null || { echo "installing: python3-venv"; rm -rf $(VENV); \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv && python3 -m venv $(VENV); }
	$(VENV)/bin/pip install -q -r Tests/requirements.txt
	touch $@

# Schemathesis against a live `gatehouse serve` on a temporary database and a free port: no 5xx, and every status
# code, media type and body as Public/openapi.json documents them. Deterministic (Tests/EndToEnd/schemathesis.toml),
# bounded by API_SCHEMA_SECONDS (600).
test-api-schema: deps $(VENV)/.installed
	$(SWIFT) build --product gatehouse
	$(VENV)/bin/python Tests/EndToEnd/api_schema.py "$$($(SWIFT) build --show-bin-path)/gatehouse" $(VENV)/bin/schemathesis

# Browser tests: Debian's chromium + chromium-driver driven by selenium against a real `gatehouse serve`.
test-browser: deps $(VENV)/.installed
	@missing=""; for p in $(BROWSER_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; fi
	$(SWIFT) build --product gatehouse
	$(VENV)/bin/python -m pytest -q Tests/Browser

bench: release bench-http bench-api bench-dashboard bench-traffic bench-attest bench-pi bench-crypto bench-mustache

# Ingest throughput over HTTP (wrk against a release server on a temporary database, with the server's CPU time per
# batch), where a batch's time goes in-process, and the checklist's latency at 10 thousand, 1 million and 10 million
# verdicts in the window (Tests/Bench/traffic-bench.sh).
bench-traffic: deps
	@command -v wrk >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq wrk curl; }
	$(SWIFT) build -c release --product gatehouse
	$(SWIFT) build -c release --product TrafficBench
	sh Tests/Bench/traffic-bench.sh

# App Attest assertions over HTTP (wrk) with 1,000 and 1,000,000 registered keys against `openssl speed` ECDSA verify/s
# in the same run, peak RSS with a million keys, and challenges/s (Tests/Bench/attest-bench.sh).
bench-attest: deps
	@command -v wrk >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq wrk curl; }
	$(SWIFT) build -c release --product gatehouse
	$(SWIFT) build -c release --product AttestBench
	sh Tests/Bench/attest-bench.sh

# Play Integrity local decoding over HTTP (wrk, distinct pre-minted tokens) against `openssl speed` ECDSA verify/s in
# the same run (Tests/Bench/pi-bench.sh).
bench-pi: deps
	@command -v wrk >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq wrk curl; }
	$(SWIFT) build -c release --product gatehouse
	$(SWIFT) build -c release --product PIBench
	sh Tests/Bench/pi-bench.sh

# The management API (GET and PATCH of an environment) under wrk against nginx serving a static file in the same run.
bench-api: deps
	SWIFT=$(SWIFT) bash Tests/Bench/api-bench.sh

# The signed-in /environments page with 50 environments, login cost, and /healthz p99 during 20 concurrent logins.
bench-dashboard: deps
	SWIFT=$(SWIFT) Tests/Bench/dashboard-bench.sh

# Gatehouse's GET /healthz against nginx (static file) with wrk, and peak RSS with 1 000 idle connections.
bench-http: deps
	SWIFT=$(SWIFT) Tests/Bench/http-bench.sh

# Times argon2id password hashing (Argon2Parameters.default and alternatives), release build.
.PHONY: bench-crypto
bench-crypto: deps
	$(SWIFT) build -c release --product CryptoBench
	./.build/release/CryptoBench

fuzz: fuzz-http fuzz-connection fuzz-mustache fuzz-attest fuzz-pi

FUZZ_SECONDS ?= 60
HTTP_FUZZ_DIR   = .build/fuzz-http
HTTP_FUZZ_BUILD = $(SWIFT) build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
                  --scratch-path $(HTTP_FUZZ_DIR) --product HTTPParserFuzz
HTTP_FUZZ_BIN   = SWIFT_BACKTRACE=enable=no $(HTTP_FUZZ_DIR)/release/HTTPParserFuzz

# Fuzzes the HTTP request parser (split invariance, no crash, ASan) for FUZZ_SECONDS with libFuzzer.
# libFuzzer comes with the Swift toolchain (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a). The working corpus grows in
# .build/fuzz-corpus/http from the committed seeds; crashing inputs land in .build/fuzz-crashes/http/ and replay with
# `swift run HTTPParserFuzz FILE`. An incremental build once linked objects without coverage instrumentation (after a
# Package.swift change): the target checks the seeds report coverage and rebuilds from scratch when they do not.
fuzz-http:
	@ls "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 \
	  || { echo "this Swift toolchain has no libFuzzer runtime (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a)"; exit 1; }
	@mkdir -p .build/fuzz-corpus/http .build/fuzz-crashes/http
	@$(HTTP_FUZZ_BUILD) > .build/fuzz-http-build.log 2>&1 \
	  || { grep -v "Cannot export local symbol" .build/fuzz-http-build.log; exit 1; }
	@$(HTTP_FUZZ_BIN) -runs=0 Tests/Fuzz/HTTPParserFuzz/corpus 2>&1 | grep -q "INITED cov: [1-9]" \
	  || { echo "fuzz build lacks coverage instrumentation: rebuilding $(HTTP_FUZZ_DIR) from scratch"; \
	       rm -rf $(HTTP_FUZZ_DIR) && $(HTTP_FUZZ_BUILD) > .build/fuzz-http-build.log 2>&1 \
	       || { grep -v "Cannot export local symbol" .build/fuzz-http-build.log; exit 1; }; }
	$(HTTP_FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=5 -print_final_stats=1 \
	  -dict=Tests/Fuzz/HTTPParserFuzz/http.dict -artifact_prefix=.build/fuzz-crashes/http/ \
	  .build/fuzz-corpus/http Tests/Fuzz/HTTPParserFuzz/corpus

CONNECTION_FUZZ_BUILD = $(SWIFT) build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address \
                        -Xswiftc -DFUZZING --scratch-path $(HTTP_FUZZ_DIR) --product HTTPConnectionFuzz
CONNECTION_FUZZ_BIN   = SWIFT_BACKTRACE=enable=no $(HTTP_FUZZ_DIR)/release/HTTPConnectionFuzz

# Fuzzes the HTTP/1 connection state machine (HTTP1Connection) for FUZZ_SECONDS: the input is decoded as a sequence
# of events (bytes read, EOF, responses, write progress, clock ticks, shutdown) and every invariant (one request in
# flight, order, nothing after close, a timer whenever it waits on the peer, closed after EOF and drain) is checked
# after every action. Shares the fuzz-http build folder (both need only the HTTP module) and its dictionary; crashing
# inputs land in .build/fuzz-crashes/connection/ and replay with `swift run HTTPConnectionFuzz FILE`.
fuzz-connection:
	@ls "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 \
	  || { echo "this Swift toolchain has no libFuzzer runtime (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a)"; exit 1; }
	@mkdir -p .build/fuzz-corpus/connection .build/fuzz-crashes/connection
	@$(CONNECTION_FUZZ_BUILD) > .build/fuzz-connection-build.log 2>&1 \
	  || { grep -v "Cannot export local symbol" .build/fuzz-connection-build.log; exit 1; }
	@$(CONNECTION_FUZZ_BIN) -runs=0 Tests/Fuzz/HTTPConnectionFuzz/corpus 2>&1 | grep -q "INITED cov: [1-9]" \
	  || { echo "fuzz build lacks coverage instrumentation: rebuilding $(HTTP_FUZZ_DIR) from scratch"; \
	       rm -rf $(HTTP_FUZZ_DIR) && $(CONNECTION_FUZZ_BUILD) > .build/fuzz-connection-build.log 2>&1 \
	       || { grep -v "Cannot export local symbol" .build/fuzz-connection-build.log; exit 1; }; }
	$(CONNECTION_FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=5 -print_final_stats=1 \
	  -dict=Tests/Fuzz/HTTPParserFuzz/http.dict -artifact_prefix=.build/fuzz-crashes/connection/ \
	  .build/fuzz-corpus/connection Tests/Fuzz/HTTPConnectionFuzz/corpus

# Renders the dashboard page (layout through inheritance, 3 partials, 100 environments) with a release build and
# prints parse time, µs per render (median) and MB/s of output.
bench-mustache: deps
	$(SWIFT) build -c release --product MustacheBench
	.build/release/MustacheBench

# Fuzzes the Mustache parser and renderer with libFuzzer + AddressSanitizer for FUZZ_SECONDS. `-Xswiftc
# -sanitize=fuzzer,address` because SwiftPM hands library modules only one of the two `--sanitize` values (whichever
# its set yields last), leaving Mustache without coverage or without ASan at random. The working corpus grows
# in .build/fuzz-corpus/mustache from the committed seeds; crashing inputs land in .build/fuzz-crashes/mustache/ and
# replay with `swift run MustacheFuzz FILE`.
fuzz-mustache:
	@ls "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 \
	  || { echo "this Swift toolchain has no libFuzzer runtime (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a)"; exit 1; }
	@mkdir -p .build/fuzz-corpus/mustache .build/fuzz-crashes/mustache
	@$(SWIFT) build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
	  --scratch-path .build/fuzz --product MustacheFuzz > .build/fuzz-mustache-build.log 2>&1 \
	  || { grep -v "Cannot export local symbol" .build/fuzz-mustache-build.log; exit 1; }
	SWIFT_BACKTRACE=enable=no .build/fuzz/release/MustacheFuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	  -print_final_stats=1 -dict=Tests/Fuzz/MustacheFuzz/mustache.dict -artifact_prefix=.build/fuzz-crashes/mustache/ \
	  .build/fuzz-corpus/mustache Tests/Fuzz/MustacheFuzz/corpus

ATTEST_FUZZ_DIR   = .build/fuzz-attest
ATTEST_FUZZ_BUILD = $(SWIFT) build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
                    --scratch-path $(ATTEST_FUZZ_DIR) --product AttestationFuzz
ATTEST_FUZZ_BIN   = SWIFT_BACKTRACE=enable=no $(ATTEST_FUZZ_DIR)/release/AttestationFuzz

# Fuzzes the CBOR decoder, the App Attest object parsers and the verifier (no crash, ASan, consistent verdicts) for
# FUZZ_SECONDS with libFuzzer, from the public vectors' CBOR objects. Crashing inputs land in .build/fuzz-crashes/attest/
# and replay with `swift run AttestationFuzz FILE`. Rebuilds from scratch when the seeds report no coverage (as fuzz-http).
fuzz-attest:
	@ls "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 \
	  || { echo "this Swift toolchain has no libFuzzer runtime (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a)"; exit 1; }
	@mkdir -p .build/fuzz-corpus/attest .build/fuzz-crashes/attest
	@$(ATTEST_FUZZ_BUILD) > .build/fuzz-attest-build.log 2>&1 \
	  || { grep -v "Cannot export local symbol" .build/fuzz-attest-build.log; exit 1; }
	@$(ATTEST_FUZZ_BIN) -runs=0 Tests/Fuzz/AttestationFuzz/corpus 2>&1 | grep -q "INITED cov: [1-9]" \
	  || { echo "fuzz build lacks coverage instrumentation: rebuilding $(ATTEST_FUZZ_DIR) from scratch"; \
	       rm -rf $(ATTEST_FUZZ_DIR) && $(ATTEST_FUZZ_BUILD) > .build/fuzz-attest-build.log 2>&1 \
	       || { grep -v "Cannot export local symbol" .build/fuzz-attest-build.log; exit 1; }; }
	$(ATTEST_FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=5 -max_len=8192 -print_final_stats=1 \
	  -artifact_prefix=.build/fuzz-crashes/attest/ .build/fuzz-corpus/attest Tests/Fuzz/AttestationFuzz/corpus
PI_FUZZ_DIR   = .build/fuzz-pi
PI_FUZZ_BUILD = $(SWIFT) build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
                --scratch-path $(PI_FUZZ_DIR) --product PlayIntegrityFuzz
PI_FUZZ_BIN   = SWIFT_BACKTRACE=enable=no $(PI_FUZZ_DIR)/release/PlayIntegrityFuzz

# Fuzzes the Play Integrity JOSE reader and payload evaluator (no crash, ASan, genuine tokens round-trip, only
# A256KW/A256GCM and ES256 accepted) for FUZZ_SECONDS with libFuzzer. The first input byte picks the layer fuzzed (see
# Tests/Fuzz/PlayIntegrityFuzz); the committed seeds are minted tokens (`swift run PlayIntegrityFuzz --seeds DIR`
# rewrites them). The working corpus grows in .build/fuzz-corpus/pi; crashing inputs land in .build/fuzz-crashes/pi/
# and replay with `swift run PlayIntegrityFuzz FILE`. Rebuilds from scratch when the seeds report no coverage, as
# fuzz-http does.
fuzz-pi:
	@ls "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 \
	  || { echo "this Swift toolchain has no libFuzzer runtime (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a)"; exit 1; }
	@mkdir -p .build/fuzz-corpus/pi .build/fuzz-crashes/pi
	@$(PI_FUZZ_BUILD) > .build/fuzz-pi-build.log 2>&1 \
	  || { grep -v "Cannot export local symbol" .build/fuzz-pi-build.log; exit 1; }
	@$(PI_FUZZ_BIN) -runs=0 Tests/Fuzz/PlayIntegrityFuzz/corpus 2>&1 | grep -q "INITED cov: [1-9]" \
	  || { echo "fuzz build lacks coverage instrumentation: rebuilding $(PI_FUZZ_DIR) from scratch"; \
	       rm -rf $(PI_FUZZ_DIR) && $(PI_FUZZ_BUILD) > .build/fuzz-pi-build.log 2>&1 \
	       || { grep -v "Cannot export local symbol" .build/fuzz-pi-build.log; exit 1; }; }
	$(PI_FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -timeout=5 -print_final_stats=1 \
	  -dict=Tests/Fuzz/PlayIntegrityFuzz/pi.dict -artifact_prefix=.build/fuzz-crashes/pi/ \
	  .build/fuzz-corpus/pi Tests/Fuzz/PlayIntegrityFuzz/corpus

clean:
	rm -rf .build .venv
