# Gatehouse — the two commands a user needs are `make run` and `make test`.
# Each installs what is missing on a Debian machine with Swift, then does its job.

SWIFT       ?= swift
DATABASE    ?= gatehouse.sqlite
HOST        ?= 127.0.0.1
PORT        ?= 8080
APT_PACKAGES = libsqlite3-dev libssl-dev libargon2-dev pkg-config
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release run test bench fuzz clean bench-mustache fuzz-mustache

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

bench: release bench-mustache

fuzz: fuzz-mustache

FUZZ_SECONDS ?= 60

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
