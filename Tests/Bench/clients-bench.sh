#!/bin/sh
# The receipt libraries' bench (make bench-clients): clients/node/bench.mjs and clients/python/bench.py (run with the
# Python given as $1), each printing its figures and issue 48's `bench <row>: …` lines, which are also appended to the
# file BENCH_RATIOS names when set (make bench's table).
# Knobs: BENCH_CLIENT_RECEIPTS (receipts per round, 2000).
set -eu
PYTHON=${1:-python3}
case "$PYTHON" in /*) ;; */*) PYTHON="$PWD/$PYTHON" ;; esac  # it runs from clients/python
N=${BENCH_CLIENT_RECEIPTS:-2000}
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT INT TERM
(cd clients/node && node bench.mjs "$N") | tee "$OUT"
(cd clients/python && "$PYTHON" bench.py "$N") | tee -a "$OUT"
if [ -n "${BENCH_RATIOS:-}" ]; then grep '^bench ' "$OUT" >> "$BENCH_RATIOS"; fi
