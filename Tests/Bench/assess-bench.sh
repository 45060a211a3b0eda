#!/bin/sh
# Assess bench (make bench-assess): POST /api/v4/assess with an App Attest assertion and with a Play Integrity token,
# with Android key attestation (a stored key's signature; registrations of new keys), and POST /api/v4/receipts/verify
# with a proof, each under wrk (2 threads, 64 connections) against a release
# `gatehouse serve`, next to the machine's ECDSA P-256 verify limit measured in the same run
# (`openssl speed -multi <cores> ecdsap256`). Requests are pre-built and distinct (AssessBench): nonces and assertion
# counters differ per request, tokens are bound to their own canonical strings; every receipt is bound, so each
# assessment also signs a receipt and each verification checks a receipt signature and a proof.
# Goals (issue 14): assess >= 0.4x the verify limit, receipt verification >= 0.5x, p99 <= 20 ms.
# Knobs: BENCH_PORT (18196), BENCH_SECONDS (10), BENCH_REQUESTS (100000 of each kind: each of wrk's two threads sends its own
# half, and a thread that runs past its half sends replays).
set -eu
NAME=assess-bench
PORT=${BENCH_PORT:-18196}
REQUESTS=${BENCH_REQUESTS:-100000}
. Tests/Bench/verify-limit-lib.sh

verify_limit

start=$(date +%s)
"$BIN/AssessBench" "$DIR" "$PWD" "$REQUESTS"
echo "built $REQUESTS iOS and $REQUESTS Android requests, $((REQUESTS / 10)) receipts with proofs in $(( $(date +%s) - start )) s (fresh for 2 minutes)"

serve --app-attest-roots "$DIR/roots.pem" --key-attestation-roots "$DIR/key-attestation-roots.pem" --bench-echo

# run NAME PATH GOAL: wrk over DIR/NAME.txt; prints the figures and leaves "rps p99" in $DIR/NAME.fig.
run() {
  wrk_measured "$DIR/$1.wrk" "$DIR/$1.lua" "$2" 2>"$DIR/$1.err"
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$DIR/$1.wrk")
  p50=$(ms "$(awk '$1 == "50%" {print $2}' "$DIR/$1.wrk")")
  p99=$(ms "$(awk '$1 == "99%" {print $2}' "$DIR/$1.wrk")")
  counts=$(awk '/^good:/ {print}' "$DIR/$1.wrk")
  echo "$rps $p99" > "$DIR/$1.fig"
  awk -v n="$1" -v r="$rps" -v lim="$LIMIT" -v p50="$p50" -v p99="$p99" -v c="$counts" \
    'BEGIN { printf "%-8s %8.0f req/s  %.2fx the verify limit  p50 %s ms  p99 %s ms  (%s)\n", n, r, r / lim, p50, p99, c }'
  cpu_line "$DIR/$1.wrk" "$3"
  per_request "$DIR/$1.wrk" > "$DIR/$1.us"
  if [ -s "$DIR/$1.err" ]; then echo "  first answer not counted good: $(head -c 300 "$DIR/$1.err")"; fi
}
run ios /api/v4/assess 0.4
NONCES_IOS=$(sqlite3 "$DIR/db.sqlite" "SELECT COUNT(*) FROM spent_nonces" 2>/dev/null || echo "?")
run android /api/v4/assess 0.4
BENCH_SECRET=$(cat "$DIR/secret.txt") run verify /api/v4/receipts/verify 0.5
run keyattest /api/v4/assess 0.4
run register /api/v4/attestation/key-attestation 0.2
# The bare exchange of each row (its server CPU per request in DIR/bare-ROW.us).
bare() { bare_exchange "$1" "$DIR/$1.txt" "$2"; echo "$BARE_US" > "$DIR/bare-$1.us"; }
bare ios /api/v4/assess
bare android /api/v4/assess
BENCH_SECRET=$(cat "$DIR/secret.txt") bare verify /api/v4/receipts/verify
bare keyattest /api/v4/assess
bare register /api/v4/attestation/key-attestation
RSS=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
stop
echo "peak RSS: $((RSS / 1024)) MB"
echo "goals: assess >= 0.4x, receipt verification >= 0.5x, p99 <= 20 ms"

# The ratio table (issue 48): each row's server CPU per request against the crypto it must do (one core, from openssl
# in the same run) plus its bare exchange. Crypto: an iOS assessment verifies the assertion and signs the receipt; an
# Android one (Play Integrity, local keys) verifies the token and signs the receipt (its AES unwrap and decrypt, a
# few microseconds, not counted); a receipt check with a proof verifies the receipt and the proof; an assessment with a
# stored key attestation key verifies its signature and signs the receipt; a key attestation registration verifies its
# chain: the key's certificate and the intermediate, each signed with P-384 (the synthetic CA, like Google's EC root).
openssl speed -seconds 3 ecdsap384 2>/dev/null > "$DIR/p384.txt"
VERIFY384_US=$(awk '/384 bits ecdsa/ {v = $NF} END {printf "%.1f", 1e6 / v}' "$DIR/p384.txt")
ratio() { ratio_line "$1" "$(cat "$DIR/$2.us")" "$3" "$(cat "$DIR/bare-$2.us")"; }
ratio assess-ios ios "$(crypto_us "$DIR/openssl.txt" 1 1)"
ratio assess-android android "$(crypto_us "$DIR/openssl.txt" 1 1)"
ratio receipt-verify verify "$(crypto_us "$DIR/openssl.txt" 0 2)"
ratio keyattest-assess keyattest "$(crypto_us "$DIR/openssl.txt" 1 1)"
ratio keyattest-register register "$(awk -v v="$VERIFY384_US" 'BEGIN {print 2 * v}')"

# The spent-nonce store: rows and bytes (table + primary key + expiry index, from SQLite's dbstat) after the run,
# scaled to 10 minutes at the faster assess rate (a nonce is kept until its timestamp + 5 minutes, so the store holds
# about 5 minutes of traffic in steady state; 10 minutes bounds it with the background purge a minute late).
ROWS=$(sqlite3 "$DIR/db.sqlite" "SELECT COUNT(*) FROM spent_nonces")
BYTES=$(sqlite3 "$DIR/db.sqlite" "SELECT SUM(pgsize) FROM dbstat WHERE name IN ('spent_nonces', 'sqlite_autoindex_spent_nonces_1', 'spent_nonces_by_expiry')" 2>/dev/null || echo "")
RATE=$(awk '{print $1}' "$DIR/ios.fig" "$DIR/android.fig" | sort -g | tail -1)
echo "spent nonces after the run: $ROWS rows (iOS run alone: $NONCES_IOS)${BYTES:+, $BYTES bytes on disk}"
if [ -n "$BYTES" ] && [ "$ROWS" -gt 0 ]; then
  awk -v rows="$ROWS" -v bytes="$BYTES" -v rate="$RATE" 'BEGIN {
    per = bytes / rows; n = rate * 600
    printf "10 minutes at %.0f assessments/s: %.0f nonces, about %.0f bytes each on disk -> %.1f MB (SQLite pages; no cache beyond SQLite'"'"'s page cache)\n", rate, n, per, n * per / 1048576 }'
fi
echo "(a shared machine: figures move from run to run; compare ratios measured in one run)"
