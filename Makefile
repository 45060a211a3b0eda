# Gatehouse — the two commands a user needs are `make run` and `make test`.
# Each installs what is missing on a Debian machine with Swift, then does its job.

SWIFT       ?= swift
DATABASE    ?= gatehouse.sqlite
HOST        ?= 127.0.0.1
PORT        ?= 8080
APT_PACKAGES = libsqlite3-dev libssl-dev libargon2-dev pkg-config
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release run test bench bench-http fuzz clean

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

bench: release bench-http

# Our Router + Server against nginx (static file) with wrk, and peak RSS with 1 000 idle connections.
bench-http: deps
	SWIFT=$(SWIFT) Tests/Bench/http-bench.sh

fuzz:
	@echo "no fuzz targets yet"

clean:
	rm -rf .build .venv
