# Gatehouse — the two commands a user needs are `make run` and `make test`.
# Each installs what is missing on a Debian machine with Swift, then does its job.

SWIFT       ?= swift
DATABASE    ?= gatehouse.sqlite
HOST        ?= 127.0.0.1
PORT        ?= 8080
APT_PACKAGES = libsqlite3-dev libssl-dev libargon2-dev pkg-config
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release run test test-browser test-api-schema bench bench-http bench-api bench-dashboard bench-traffic bench-attest bench-mustache fuzz fuzz-http fuzz-mustache clean

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
	$(MAKE) test-api-schema
	$(MAKE) test-browser

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

bench: release bench-http bench-api bench-dashboard bench-traffic bench-attest bench-crypto bench-mustache

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

fuzz: fuzz-http fuzz-mustache

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

clean:
	rm -rf .build .venv
