#!/bin/sh
# Play Integrity bench (make bench-pi): local decoding over HTTP (wrk, 64 connections, rotating through distinct
# pre-minted tokens: a token sent twice would be a replay) against a release `gatehouse serve`, next to the machine's
# ECDSA P-256 verify limit measured in the same run (`openssl speed -multi <cores> ecdsap256`). Each request decrypts
# (AES key unwrap + AES-256-GCM), verifies one ES256 signature, judges the payload and commits the token's hash.
# Goals (issue 13): >= 0.5x the verify limit, p99 <= 20 ms.
# Knobs: BENCH_PORT (18195), BENCH_SECONDS (10), BENCH_TOKENS (100000 distinct tokens).
set -eu
NAME=pi-bench
PORT=${BENCH_PORT:-18195}
TOKENS=${BENCH_TOKENS:-100000}
. Tests/Bench/verify-limit-lib.sh

verify_limit

start=$(date +%s)
"$BIN/PIBench" "$DIR" "$PWD" "$TOKENS"
echo "minted $TOKENS tokens in $(( $(date +%s) - start )) s (fresh for 10 minutes)"

serve

wrk_measured "$DIR/wrk.txt" "$DIR/pi.lua" /api/v4/attestation/play-integrity
RSS=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
stop
rps=$(awk '/^Requests\/sec:/ {print $2}' "$DIR/wrk.txt")
p50=$(ms "$(awk '$1 == "50%" {print $2}' "$DIR/wrk.txt")")
p99=$(ms "$(awk '$1 == "99%" {print $2}' "$DIR/wrk.txt")")
counts=$(awk '/^verified:/ {print}' "$DIR/wrk.txt")
echo "local decoding over HTTP: $rps judgements/s, p50 $p50 ms, p99 $p99 ms (goal <= 20 ms); $counts"
cpu_line "$DIR/wrk.txt" 0.5
echo "peak RSS: $((RSS / 1024)) MB"
awk -v r="$rps" -v lim="$LIMIT" 'BEGIN { printf "ratio to the verify limit: %.2fx (goal >= 0.5x)\n", r / lim }'
if awk '/^verified:/ {exit !($4 + 0 > 0)}' "$DIR/wrk.txt"; then
  echo "(replays: wrk sent more requests than BENCH_TOKENS; a replay costs the same decode and a refused insert)"
fi
echo "(a shared machine: figures move from run to run; compare ratios measured in one run)"
