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

serve --bench-echo

wrk_measured "$DIR/wrk.txt" "$DIR/pi.lua" /api/v4/attestation/play-integrity
SERVER_US=$(per_request "$DIR/wrk.txt")
RSS=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
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

# The policy's cost (issue 38): the default policy and every knob set, in alternation on the same server, each
# environment with tokens of its own that pass it; the server's CPU per judgement of each, and their ratio.
for round in 1 2; do
  wrk_measured "$DIR/wrk-default-$round.txt" "$DIR/pi-default-$round.lua" /api/v4/attestation/play-integrity
  default_us=$(per_request "$DIR/wrk-default-$round.txt")
  wrk_measured "$DIR/wrk-policy-$round.txt" "$DIR/pi-policy-$round.lua" /api/v4/attestation/play-integrity
  policy_us=$(per_request "$DIR/wrk-policy-$round.txt")
  verified=$(awk '/^verified:/ {gsub(",", ""); print $2 " verified, " $6 " other"}' "$DIR/wrk-policy-$round.txt")
  awk -v d="$default_us" -v p="$policy_us" -v r="$round" -v v="$verified" 'BEGIN {
    printf "policy round %d: server CPU per judgement %s us (default policy) vs %s us (every knob set; %s): %.3fx\n", r, d, p, v, p / d }'
done
# Issue 48's row: one verify per judgement (the AES key unwrap and GCM decryption, a few microseconds, not counted).
bare_exchange pi "$DIR/requests.txt" /api/v4/attestation/play-integrity
stop
ratio_line pi-judgement "$SERVER_US" "$(crypto_us "$DIR/openssl.txt" 0 1)" "$BARE_US"
echo "(a shared machine: figures move from run to run; compare ratios measured in one run)"
