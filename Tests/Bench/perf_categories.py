#!/usr/bin/env python3
"""Where a bench row's server CPU goes (issue 48's per-path table), from a `perf record` of the release server:

    perf record -F 999 -p <gatehouse pid> -o perf.data -- sleep 5      (while wrk drives one row)
    python3 Tests/Bench/perf_categories.py perf.data [server-us-per-request]

Reads `perf report`'s flat profile (self time of each symbol, Swift names demangled by `swift demangle`) and sums it
into categories by library and module; with the row's server CPU per request it also prints each category in us.
libcrypto has no frame pointers here: samples are counted where they land, not by their caller."""
import re
import subprocess
import sys

# (category, test on (library, demangled symbol)): the first that matches takes the sample.
CATEGORIES = [
    ("crypto: libcrypto (OpenSSL, with its provider overhead)", lambda d, s: d.startswith("libcrypto")),
    ("storage: SQLite and the store", lambda d, s: d.startswith("libsqlite3") or re.match(r"(SQLite|Storage|PostgreSQL)\.", s)
        or ".Store." in s or "Table." in s),
    ("kernel: sockets, epoll, fsync, scheduling", lambda d, s: d.startswith("[kernel")),
    ("memory: malloc/free, retain/release", lambda d, s: re.search(r"\b(malloc|free|cfree|_int_malloc|_int_free|realloc|"
        r"malloc_consolidate|swift_retain|swift_release|swift_allocObject|swift_deallocObject|swift_bridgeObjectRetain|"
        r"swift_bridgeObjectRelease|swift_slowAlloc|swift_slowDealloc|swift_isUniquelyReferenced\w*|tcache\w*)\b", s)),
    ("parsing and writing: JSON, base64, CBOR", lambda d, s: re.match(r"JSON\.", s)
        or "Base64" in s or "CBOR" in s),
    ("HTTP: the server, requests, responses", lambda d, s: re.match(r"(HTTPServer|HTTP)\.", s)),
    ("crypto wrappers: Crypto and Attestation modules", lambda d, s: re.match(r"(Crypto|Attestation|GatehouseReceipts)\.", s)),
    ("Swift runtime and standard library (other)", lambda d, s: d.startswith(("libswift", "libFoundation", "libdispatch",
        "lib_FoundationICU", "libBlocksRuntime"))),
    ("libc (other: memcpy, strings, locks)", lambda d, s: d.startswith(("libc.so", "libc-", "ld-linux", "libm"))),
    ("gatehouse (other: routing, evaluation, recording)", lambda d, s: True),
]


PREFIXES = re.compile(r"^(merged |static |(generic |function signature )?specialization <(?:[^<>]|<[^<>]*>)*> of |"
                      r"(implicit )?closure #\d+ .*? in |partial apply forwarder for |reabstraction thunk helper .*? to )+")


def head(symbol: str) -> str:
    """The symbol's own name, without the specialization, closure and `static` words before it."""
    return PREFIXES.sub("", symbol)


def main() -> None:
    data = sys.argv[1]
    per_request = float(sys.argv[2]) if len(sys.argv) > 2 else None
    report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym", "--stdio", "-g", "none",
                             "--percent-limit", "0"], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)$", line)
        if m:
            rows.append((float(m.group(1)), m.group(2), m.group(3).strip()))
    names = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(r[2] for r in rows), capture_output=True,
                           text=True, check=True).stdout.splitlines()
    totals = {name: 0.0 for name, _ in CATEGORIES}
    top = {name: [] for name, _ in CATEGORIES}
    for (share, dso, _), symbol in zip(rows, names):
        for name, test in CATEGORIES:
            if test(dso, head(symbol)):
                totals[name] += share
                top[name].append((share, symbol))
                break
    whole = sum(totals.values()) or 1
    for name, _ in CATEGORIES:
        share = totals[name] * 100 / whole
        us = f" {per_request * share / 100:6.0f} us" if per_request else ""
        leaders = ", ".join(f"{s[:60]} {p:.1f}%" for p, s in sorted(top[name], reverse=True)[:3])
        print(f"{share:5.1f}%{us}  {name}   [{leaders}]")


if __name__ == "__main__":
    main()
