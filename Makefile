# Gatehouse — the two commands a user needs are `make run` and `make test`.
# Each installs what is missing on a Debian machine with Swift, then does its job.

SWIFT       ?= swift
DATABASE    ?= gatehouse.sqlite
HOST        ?= 127.0.0.1
PORT        ?= 8080
APT_PACKAGES = libsqlite3-dev libssl-dev libargon2-dev libcurl4-openssl-dev libpq-dev pkg-config
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps test-deps build release run test check-imports receipt-vectors test-asan test-browser test-api-schema test-edge test-webhooks test-node-client test-python-client bench bench-clients bench-http bench-api bench-dashboard bench-traffic bench-attest bench-pi bench-assess bench-edge bench-mustache fuzz fuzz-http fuzz-connection fuzz-mustache fuzz-attest fuzz-pi fuzz-keyattest clean

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

# The test suites' own server: a throwaway PostgreSQL 15 that Tests/with-postgres.sh starts beside `swift test` (the
# store contract suite and the PostgreSQL driver run on it as well as on SQLite).
TEST_PACKAGES = postgresql-15 pgbouncer
# The reverse proxies the edge check is tested behind (test-edge): Debian's nginx (auth_request) and Caddy (forward_auth).
EDGE_PACKAGES = nginx caddy
# The Node backend library's runtime, the framework its middleware is tested under and the compiler its TypeScript
# declarations are checked with (test-node-client): Debian's nodejs, node-express and node-typescript.
NODE_PACKAGES = nodejs node-express node-typescript

test-deps: deps
	@missing=""; for p in $(TEST_PACKAGES) $(EDGE_PACKAGES) $(NODE_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; fi

# Every suite of GatehouseWebTests runs a second time with its servers on PostgreSQL (GATEHOUSE_TEST_ENGINE), and a
# third through Debian's pgBouncer in transaction mode in front of it (Tests/with-pgbouncer.sh): a new end-to-end suite
# runs on both engines without anyone listing it. A suite pinned to one engine says so with an `.enabled(if:)` trait
# (one that reads the SQLite file; one that runs on PostgreSQL in every pass already).
ENGINE_SUITES = GatehouseWebTests\.

test: test-deps check-imports
	$(SWIFT) build --build-tests
	sh Tests/with-postgres.sh $(SWIFT) test --skip-build --disable-xctest
	GATEHOUSE_TEST_ENGINE=postgresql sh Tests/with-postgres.sh $(SWIFT) test --skip-build --disable-xctest --filter '$(ENGINE_SUITES)'
	GATEHOUSE_TEST_ENGINE=postgresql sh Tests/with-postgres.sh sh Tests/with-pgbouncer.sh $(SWIFT) test --skip-build --disable-xctest --filter '$(ENGINE_SUITES)'
	$(MAKE) test-asan
	$(MAKE) test-api-schema
	$(MAKE) test-edge
	$(MAKE) test-webhooks
	$(MAKE) test-node-client
	$(MAKE) test-python-client
	$(MAKE) test-browser

# The code that reads memory through pointers under AddressSanitizer (a debug build of its own in .build/asan): the
# Mustache tests (the spec suite among them) and every committed fuzz corpus (Tests/Fuzz/*/corpus) replayed through
# its fuzz target's replay tool (a plain build of a fuzz target replays the files it is given).
ASAN = --sanitize=address --scratch-path .build/asan
# Every `import` in Sources/ and Tests/ is declared for its target in Package.swift (no transitive imports).
check-imports:
	python3 Tests/check_imports.py $(SWIFT)

# Every fuzz target with a committed corpus (Tests/Fuzz/*), so a new one is replayed without anyone remembering.
FUZZ_TARGETS = $(notdir $(wildcard Tests/Fuzz/*))

test-asan: deps
	for t in $(FUZZ_TARGETS); do $(SWIFT) build $(ASAN) --product $$t || exit 1; done
	for t in $(FUZZ_TARGETS); do SWIFT_BACKTRACE=enable=no .build/asan/debug/$$t Tests/Fuzz/$$t/corpus/* > /dev/null || exit 1; done
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

# The edge check behind Debian's nginx (auth_request) and Caddy (forward_auth), configured with the blocks of
# docs/enforcement.md (the fail-open variants too), against a live `gatehouse serve` on a temporary database and free
# ports: refusals, the headers the API receives, client-sent headers that must change nothing, the outcomes counted;
# then in front of an Express 4 (Debian's node-express), a FastAPI (uvicorn) and a Flask (waitress) app, every spelling
# of a protected call (case, trailing /, HEAD, ; # \ raw and encoded, dot segments, //, encoded letters, absolute
# form) without a receipt the route accepts never runs its handler, one receipt runs a consume handler at most once,
# and 100 headers, a 20 KiB header, an odd method or a check answering 400/431/5xx or resetting cannot open a proxy
# (Tests/EndToEnd/edge_proxies.py, with the venv's FastAPI, uvicorn, Flask, waitress and cryptography).
test-edge: test-deps $(VENV)/.installed
	$(SWIFT) build --product gatehouse
	$(VENV)/bin/python Tests/EndToEnd/edge_proxies.py "$$($(SWIFT) build --show-bin-path)/gatehouse"

# Alerts as webhooks against a live `gatehouse serve` on a temporary database and a receiver on a free loopback port:
# every signature verified by the `standardwebhooks` package from PyPI; the test event, a security event written by the
# command line, a checklist item turned red by ingested verdicts and green again, retries with a stable id, a rotated
# secret, and the server killed with SIGKILL while events wait: every event delivered once after the restart.
test-webhooks: deps $(VENV)/.installed
	$(SWIFT) build --product gatehouse
	$(VENV)/bin/python Tests/EndToEnd/webhooks_end_to_end.py "$$($(SWIFT) build --show-bin-path)/gatehouse"

# The Node backend library (clients/node, package gatehouse-receipts): `node --check` on every file, then `node --test`:
# the shared conformance vectors (Tests/Fixtures/receipts/conformance.json), unit and seeded property tests, the
# middleware under node:http and Debian's Express, the README's quickstarts, and end to end against a live
# `gatehouse serve` on a temporary database and a free port (JWKS fetches counted in its access log, key rotation,
# a consume route, reporting, Gatehouse stopped).
test-node-client: test-deps
	$(SWIFT) build --product gatehouse
	find clients/node -name node_modules -prune -o \( -name '*.js' -o -name '*.mjs' -o -name '*.cjs' \) -print | xargs -n 1 node --check
	cd clients/node && GATEHOUSE_BINARY="$$(cd ../.. && $(SWIFT) build --show-bin-path)/gatehouse" NODE_PATH=/usr/share/nodejs node --test test/*.test.mjs

# The Python backend library (clients/python, distribution gatehouse-receipts), installed from its folder into the
# project's virtualenv with its pinned test tools (clients/python/tests/requirements.txt): pytest runs the shared
# conformance vectors, unit and hypothesis property tests, the middlewares in-process, the README's FastAPI, Flask and
# Django quickstarts under uvicorn and waitress, and end to end against a live `gatehouse serve` on a temporary
# database and a free port (JWKS fetches counted in its access log, key rotation, a consume route, reporting, Gatehouse
# stopped); then mypy --strict and bandit on the package.
test-python-client: deps $(VENV)/.installed
	$(SWIFT) build --product gatehouse
	$(VENV)/bin/pip install -q -r clients/python/tests/requirements.txt
	$(VENV)/bin/pip install -q --force-reinstall --no-deps ./clients/python
	cd clients/python && GATEHOUSE_TEST_INSTALLED=1 GATEHOUSE_BINARY="$$(cd ../.. && $(SWIFT) build --show-bin-path)/gatehouse" \
	  ../../$(VENV)/bin/python -m pytest -q -p no:cacheprovider tests
	$(VENV)/bin/mypy --strict --cache-dir=/dev/null clients/python/src
	$(VENV)/bin/bandit -q -r clients/python/src -c clients/python/pyproject.toml

# Browser tests: Debian's chromium + chromium-driver driven by selenium against a real `gatehouse serve`.
test-browser: test-deps $(VENV)/.installed
	@missing=""; for p in $(BROWSER_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; fi
	$(SWIFT) build --product gatehouse
	$(VENV)/bin/python -m pytest -q Tests/Browser

# Every bench below, then issue 48's ratio table: each hot path's server CPU per request against the crypto it must do
# and a bare exchange of the same size, all measured in this run (the parts print their rows as
# `bench <row>: server <n> us, crypto <n> us, bare <n> us, ratio <r>` and append them to BENCH_RATIOS).
BENCH_RATIOS_FILE = $(CURDIR)/.build/bench-ratios.txt
bench: release
	@mkdir -p .build && : > $(BENCH_RATIOS_FILE)
	BENCH_RATIOS=$(BENCH_RATIOS_FILE) $(MAKE) bench-http bench-api bench-dashboard bench-traffic bench-attest bench-pi bench-assess bench-edge bench-clients bench-crypto bench-mustache
	@sh Tests/Bench/ratio-table.sh $(BENCH_RATIOS_FILE)

# The receipt libraries (clients/node/bench.mjs, clients/python/bench.py): a bound receipt and its proof checked,
# against the same crypto done by node:crypto and by `cryptography` in the same run.
bench-clients: test-deps $(VENV)/.installed
	$(VENV)/bin/pip install -q -r clients/python/tests/requirements.txt
	sh Tests/Bench/clients-bench.sh $(VENV)/bin/python

# The recipe of the benches that drive a release `gatehouse serve` with wrk: $(call wrk_bench,PRODUCT,SCRIPT) installs
# wrk and curl when missing, builds gatehouse and the bench's preparation tool PRODUCT (release; none when empty) and
# runs Tests/Bench/SCRIPT.
define wrk_bench
@command -v wrk >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq wrk curl; }
$(SWIFT) build -c release --product gatehouse
$(if $(1),$(SWIFT) build -c release --product $(1))
sh Tests/Bench/$(2)
endef

# Ingest throughput over HTTP (wrk against a release server on a temporary database, with the server's CPU time per
# batch), where a batch's time goes in-process, and the checklist's latency at 10 thousand, 1 million and 10 million
# verdicts in the window (Tests/Bench/traffic-bench.sh).
bench-traffic: deps
	$(call wrk_bench,TrafficBench,traffic-bench.sh)

# App Attest assertions over HTTP (wrk) with 1,000 and 1,000,000 registered keys against `openssl speed` ECDSA verify/s
# in the same run, peak RSS with a million keys, and challenges/s (Tests/Bench/attest-bench.sh); on SQLite, then on a
# throwaway PostgreSQL with its CPU per request.
bench-attest: deps test-deps
	$(call wrk_bench,AttestBench,attest-bench.sh)
	POSTGRES_DURABLE=1 sh Tests/with-postgres.sh sh -c 'BENCH_DATABASE="$$GATEHOUSE_TEST_POSTGRES" sh Tests/Bench/attest-bench.sh'

# Play Integrity local decoding over HTTP (wrk, distinct pre-minted tokens) against `openssl speed` ECDSA verify/s in
# the same run (Tests/Bench/pi-bench.sh).
bench-pi: deps
	$(call wrk_bench,PIBench,pi-bench.sh)

# Signed requests: assess with an App Attest assertion and with a Play Integrity token, and receipt verification with a
# proof, over HTTP (wrk, distinct pre-built requests) against `openssl speed` ECDSA verify/s in the same run
# (Tests/Bench/assess-bench.sh).
bench-assess: deps
	@command -v sqlite3 >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq sqlite3; }
	$(call wrk_bench,AssessBench,assess-bench.sh)

# The edge check (GET /api/v4/edge/nginx) over HTTP (wrk): the server's CPU per call with a receipt seen before (bound,
# with a proof; unbound) and with a new bound receipt each call, against one `openssl speed` ECDSA verify and a bare
# /healthz in the same run; then the p99 Debian's nginx adds with the check (docs/enforcement.md's block) at half its
# peak rate. Prepared with Python's standard library and openssl, no Swift product (Tests/Bench/edge-bench.sh).
bench-edge: deps
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq nginx; }
	$(call wrk_bench,,edge-bench.sh)

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

# Renders the dashboard page (layout through inheritance, 3 partials, 100 environments) with a release build and
# prints parse time, µs per render (median) and MB/s of output.
bench-mustache: deps
	$(SWIFT) build -c release --product MustacheBench
	.build/release/MustacheBench

# Writes the receipt conformance vectors the Swift, Python and Node receipt libraries are tested against
# (Tests/Fixtures/receipts/conformance.json): each case's answer is written by hand in Tests/Tools/ReceiptVectors, and
# the tool writes nothing unless GatehouseReceipts gives it. New keys each time: commit the file it writes.
receipt-vectors: deps
	$(SWIFT) build --product ReceiptVectors
	"$$($(SWIFT) build --show-bin-path)/ReceiptVectors" Tests/Fixtures/receipts/conformance.json

fuzz: fuzz-http fuzz-connection fuzz-mustache fuzz-attest fuzz-pi fuzz-keyattest

FUZZ_SECONDS ?= 60

# The recipe every fuzz target shares: $(call fuzz,NAME,PRODUCT,SCRATCH,LIBFUZZER OPTIONS) builds PRODUCT with libFuzzer
# and AddressSanitizer in SCRATCH (release, -DFUZZING) and runs it for FUZZ_SECONDS over the working corpus
# .build/fuzz-corpus/NAME, grown from the committed seeds Tests/Fuzz/PRODUCT/corpus; crashing inputs land in
# .build/fuzz-crashes/NAME/ and replay with `swift run PRODUCT FILE` (a plain build replays the files it is given).
# libFuzzer comes with the Swift toolchain (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a). `-Xswiftc
# -sanitize=fuzzer,address` because SwiftPM hands library modules only one of the two `--sanitize` values (whichever
# its set yields last), leaving them without coverage or without ASan at random. An incremental build once linked
# objects without coverage instrumentation (after a Package.swift change): the recipe checks the seeds report coverage
# and rebuilds SCRATCH from scratch when they do not.
fuzz_build = $(SWIFT) build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address \
             -Xswiftc -DFUZZING --scratch-path $(2) --product $(1) > .build/fuzz-$(3)-build.log 2>&1 \
             || { grep -v "Cannot export local symbol" .build/fuzz-$(3)-build.log; exit 1; }
define fuzz
@ls "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 \
  || { echo "this Swift toolchain has no libFuzzer runtime (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a)"; exit 1; }
@mkdir -p .build/fuzz-corpus/$(1) .build/fuzz-crashes/$(1)
@$(call fuzz_build,$(2),$(3),$(1))
@SWIFT_BACKTRACE=enable=no $(3)/release/$(2) -runs=0 Tests/Fuzz/$(2)/corpus 2>&1 | grep -q "INITED cov: [1-9]" \
  || { echo "fuzz build lacks coverage instrumentation: rebuilding $(3) from scratch"; \
       rm -rf $(3) && $(call fuzz_build,$(2),$(3),$(1)); }
SWIFT_BACKTRACE=enable=no $(3)/release/$(2) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(4) \
  -artifact_prefix=.build/fuzz-crashes/$(1)/ .build/fuzz-corpus/$(1) Tests/Fuzz/$(2)/corpus
endef

# Fuzzes the HTTP request parser (split invariance, no crash, ASan).
fuzz-http:
	$(call fuzz,http,HTTPParserFuzz,.build/fuzz-http,-timeout=5 -dict=Tests/Fuzz/HTTPParserFuzz/http.dict)

# Fuzzes the HTTP/1 connection state machine (HTTP1Connection): the input is decoded as a sequence of events (bytes
# read, EOF, responses, write progress, clock ticks, shutdown) and every invariant (one request in flight, order,
# nothing after close, a timer whenever it waits on the peer, closed after EOF and drain) is checked after every
# action. Shares the fuzz-http build folder (both need only the HTTP module) and its dictionary.
fuzz-connection:
	$(call fuzz,connection,HTTPConnectionFuzz,.build/fuzz-http,-timeout=5 -dict=Tests/Fuzz/HTTPParserFuzz/http.dict)

# Fuzzes the Mustache parser and renderer.
fuzz-mustache:
	$(call fuzz,mustache,MustacheFuzz,.build/fuzz,-timeout=10 -dict=Tests/Fuzz/MustacheFuzz/mustache.dict)

# Fuzzes the CBOR decoder, the App Attest object parsers and the verifier (no crash, ASan, consistent verdicts), from
# the public vectors' CBOR objects.
fuzz-attest:
	$(call fuzz,attest,AttestationFuzz,.build/fuzz-attest,-timeout=5 -max_len=8192)

# Fuzzes the Play Integrity JOSE reader and payload evaluator (no crash, ASan, genuine tokens round-trip, only
# A256KW/A256GCM and ES256 accepted). The first input byte picks the layer fuzzed (see Tests/Fuzz/PlayIntegrityFuzz);
# the committed seeds are minted tokens (`swift run PlayIntegrityFuzz --seeds DIR` rewrites them).
fuzz-pi:
	$(call fuzz,pi,PlayIntegrityFuzz,.build/fuzz-pi,-timeout=5 -dict=Tests/Fuzz/PlayIntegrityFuzz/pi.dict)

# The key attestation fuzz target: the key description reader and the chain verifier, seeded with real devices' chains.
fuzz-keyattest:
	$(call fuzz,keyattest,KeyAttestationFuzz,.build/fuzz-keyattest,-timeout=5)

clean:
	rm -rf .build .venv
