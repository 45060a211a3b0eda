#!/bin/sh
# make bench's last words: issue 48's ratio table from the `bench <row>: server <n> us, crypto <n> us, bare <n> us,
# ratio <r>` lines gathered in the file $1 (every row measured in this run), each row against the goal of 1.2x.
set -eu
[ -s "$1" ] || { echo "no ratio lines in $1" >&2; exit 1; }
echo
echo "== issue 48: server CPU per request against the crypto it must do and a bare exchange of the same size"
awk '
  BEGIN { printf "| %-24s | %10s | %10s | %8s | %6s | %-8s |\n| %s | %s | %s | %s | %s | %s |\n", "row", "server us", "crypto us", "bare us", "ratio", "<= 1.2x",
    "------------------------", "----------", "----------", "--------", "------", "--------" }
  /^bench / {
    row = $2; sub(":", "", row)
    printf "| %-24s | %10s | %10s | %8s | %6s | %-8s |\n", row, $4, $7, $10, $13, ($13 + 0 <= 1.2 ? "yes" : "no")
    n++; if ($13 + 0 > 1.2) missed++
  }
  END { printf "%d rows, %d within 1.2x\n", n, n - missed }' "$1"
cat "$1"
