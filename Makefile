# Gatehouse — the two commands a user needs are `make run` and `make test`.
# Each installs what is missing on a Debian machine with Swift, then does its job.

SWIFT       ?= swift
DATABASE    ?= gatehouse.sqlite
HOST        ?= 127.0.0.1
PORT        ?= 8080
APT_PACKAGES = libsqlite3-dev libssl-dev libargon2-dev pkg-config
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release run test test-api-schema bench bench-api fuzz fuzz-http clean

# Installs the system libraries the build links against, only those missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Builds, migrates and serves on an embedded SQLite file.
run: build
	$(SWIFT) run gatehouse serve --host $(HOST) --port $(PORT) --database $(DATABASE)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-xctest
	$(MAKE) test-api-schema

# Schemathesis (a pinned version, in .venv) against a live `gatehouse serve` on a temporary database and a free
# port: no 5xx, and every status code, media type and body as Public/openapi.json documents them. Deterministic
# (Tests/EndToEnd/schemathesis.toml), bounded by API_SCHEMA_SECONDS (600).
SCHEMATHESIS_VERSION = 4.32.5
test-api-schema: deps
	@[ -x .venv/bin/python ] || python3 -m venv .venv 2>/dev/null || { echo "installing: python3-venv"; rm -rf .venv; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv && python3 -m venv .venv; }
	@.venv/bin/python -m pip show schemathesis 2>/dev/null | grep -qx "Version: $(SCHEMATHESIS_VERSION)" \
	  || .venv/bin/python -m pip install -q "schemathesis==$(SCHEMATHESIS_VERSION)"
	$(SWIFT) build --product gatehouse
	.venv/bin/python Tests/EndToEnd/api_schema.py "$$($(SWIFT) build --show-bin-path)/gatehouse" .venv/bin/schemathesis

bench: bench-api

# The management API under wrk against nginx serving a static file in the same run (Tests/Bench/api-bench.sh, which
# installs wrk, nginx and curl when missing).
bench-api: deps
	$(SWIFT) build -c release --product gatehouse
	bash Tests/Bench/api-bench.sh "$$($(SWIFT) build -c release --show-bin-path)/gatehouse"

fuzz: fuzz-http

FUZZ_SECONDS ?= 60
FUZZ_BUILD    = $(SWIFT) build -c release --sanitize=fuzzer --sanitize=address -Xswiftc -DFUZZING --scratch-path .build/fuzz

# Fuzzes the HTTP request parser (split invariance, no crash, ASan) for FUZZ_SECONDS with libFuzzer.
# libFuzzer comes with the Swift toolchain (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a). The working corpus grows in
# .build/fuzz-corpus/http from the committed seeds; crashing inputs land in .build/fuzz-crashes/http/ and replay with
# `swift run HTTPParserFuzz FILE`.
fuzz-http:
	@ls "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 \
	  || { echo "this Swift toolchain has no libFuzzer runtime (lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a)"; exit 1; }
	@mkdir -p .build/fuzz-corpus/http .build/fuzz-crashes/http
	@$(FUZZ_BUILD) --product HTTPParserFuzz > .build/fuzz-http-build.log 2>&1 \
	  || { grep -v "Cannot export local symbol" .build/fuzz-http-build.log; exit 1; }
	SWIFT_BACKTRACE=enable=no .build/fuzz/release/HTTPParserFuzz -max_total_time=$(FUZZ_SECONDS) -timeout=5 \
	  -print_final_stats=1 -dict=Tests/Fuzz/HTTPParserFuzz/http.dict -artifact_prefix=.build/fuzz-crashes/http/ \
	  .build/fuzz-corpus/http Tests/Fuzz/HTTPParserFuzz/corpus

clean:
	rm -rf .build .venv
