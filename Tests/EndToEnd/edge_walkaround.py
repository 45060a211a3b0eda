"""Enforcement that cannot be walked around (docs/device-api.md), tried through the proxies of docs/enforcement.md in
front of Express, FastAPI and Flask (edge_upstreams.py), every request written byte for byte (edge_support.raw).

The environment: mode `monitor`; `payments` = `POST /api/payments` (enforce, consume, require bound + verified);
`orders` = `GET /api/orders/*` (enforce). For every spelling a framework might route to a protected handler (case,
trailing `/`, lower-case method, HEAD, `;`, `#`, `%3B`, `%23`, `%5C`, `\\`, dot segments, double slashes, encoded
letters, absolute form) without a receipt, or with one the route does not accept, the handler's run counter must not
move; one good receipt runs the `consume` handler at most once across all spellings. Then what a client adds to a
call (100 headers, a 20 KiB header, an unusual method, a malformed or oversized receipt) cannot open any proxy,
fail-open variants included, and client-sent Gatehouse-* headers never reach an API as the client wrote them."""
from urllib.parse import urlsplit

from api_schema import receipt
from edge_phone import proof
from edge_support import raw

# (method, target) spellings of the payments handler's call; {host} is the proxy's own address (absolute form).
PAYMENTS = [
    ("POST", "/API/payments"), ("POST", "/api/Payments"), ("POST", "/API/PAYMENTS"), ("POST", "/API/PAYMENTS/"),
    ("POST", "/api/payments/"), ("POST", "/api/payments/?x=1"), ("post", "/api/payments"), ("Post", "/API/Payments/"),
    ("POST", "/api/payments;x"), ("POST", "/api;v=1/payments"), ("POST", "/api/payments/;"), ("POST", "/api/payments%3Bx"),
    ("POST", "/api/payments#x"), ("POST", "/api/payments#/../x"), ("POST", "/api/payments%23x"),
    ("POST", "/api%5Cpayments"), ("POST", "/api\\payments"), ("POST", "/api/payments%5C"),
    ("POST", "/api/x/../payments"), ("POST", "/api/./payments"), ("POST", "/api/x/%2e%2E/payments"),
    ("POST", "//api//payments"), ("POST", "/api//payments/"),
    ("POST", "/api/pay%6Dents"), ("POST", "/%61pi/%70ayments/"), ("POST", "/api/PAY%4dENTS"),
    ("POST", "http://{host}/api/payments"), ("POST", "http://{host}/API/Payments/"),
    ("POST", "/api/payments"),  # last: a receipt spent by an earlier spelling must not run it again
]
# Spellings of the orders handler's call (GET /api/orders/{id}).
ORDERS = [
    ("GET", "/api/orders/7"), ("HEAD", "/api/orders/7"), ("GET", "/API/orders/7"), ("GET", "/api/Orders/7/"),
    ("get", "/api/orders/7"), ("head", "/api/orders/7"), ("GET", "/api/orders/7;x"), ("GET", "/api/orders;x/7"),
    ("GET", "/api/orders/7#x"), ("GET", "/api/orders/7%23x"), ("GET", "/api\\orders/7"), ("GET", "/api/orders/%37"),
    ("GET", "/api/x/../orders/7"), ("GET", "//api/orders//7"), ("GET", "/api/ord%65rs/7"),
    ("GET", "http://{host}/api/orders/7"), ("HEAD", "http://{host}/API/ORDERS/7/"),
    # Express routes a dot segment where :id stands to the handler (id "." or ".."): judged as written too.
    ("GET", "/api/orders/."), ("GET", "/api/orders/.."), ("GET", "/api/orders/%2e"), ("GET", "/api/orders/%2E%2E/"),
]


def checked_target(proxy, target):
    """The path and query the check receives for `target` sent to `proxy`, which is what a proof signs: an
    absolute-form target's path and query; through Caddy, `#` and `\\` percent-encoded as Go re-encodes them."""
    if target.startswith("http://"):
        parts = urlsplit(target)
        target = parts.path + ("?" + parts.query if parts.query else "")
    if proxy.kind == "caddy":
        target = target.replace("#", "%23").replace("\\", "%5C")
    return target


def send(proxy, method, target, headers=()):
    return raw(proxy.port, method, target.replace("{host}", f"127.0.0.1:{proxy.port}"), list(headers))


# Spellings each framework is known to route to the protected handler, asked of the API directly (no proxy): the
# walk-around is not vacuous while these reach the handler without one.
LOOSE = {"express": [("POST", "/API/payments"), ("POST", "/api/payments/"), ("HEAD", "/api/orders/7"), ("GET", "/API/orders/7")],
         "fastapi": [("POST", "/api/pay%6Dents"), ("GET", "/api/orders/7;x"), ("GET", "/api/ord%65rs/7")],
         "flask": [("POST", "/api/pay%6Dents"), ("HEAD", "/api/orders/7"), ("GET", "/api/orders/%37")]}


def reachable(checks, app):
    """Every spelling sent to `app` directly: which run a protected handler. Prints them (what a route table in front
    of this framework must catch) and checks the known loose ones are among them."""
    ran = []
    for method, target in PAYMENTS + ORDERS:
        handler = "payments" if (method, target) in PAYMENTS else "orders"
        before = app.runs()[handler]
        raw(app.port, method, target.replace("{host}", app.address))
        if app.runs()[handler] > before:
            ran.append(f"{method} {target}")
    print(f"{app.name} runs a protected handler, asked directly, for: {', '.join(ran)}", flush=True)
    for method, target in LOOSE[app.name]:
        checks.expect(f"{method} {target}" in ran, f"{app.name} directly: {method} {target} runs its handler (the walk-around is not vacuous)")


class Walk:
    """The walk-around checks against one Gatehouse environment: `base` and `public` to mint receipts with, `phone`
    (edge_phone.AndroidPhone, registered in the environment) for bound ones."""

    def __init__(self, checks, base, public, phone):
        self.checks, self.base, self.public, self.phone = checks, base, public, phone

    def unchanged(self, label, app, before, handler):
        after = app.runs()[handler]
        self.checks.equal(after, before[handler], f"{label}: {app.name} {handler} handler did not run")

    def refused_spellings(self, proxy, app):
        """No receipt, an unbound one, a bound one without attestation (with a valid proof): no spelling runs a
        protected handler. Orders accept any valid receipt: there, none and a malformed one."""
        unbound = receipt(self.base, self.public)
        answer, key = self.phone.assess(self.base, self.public, attest=False)
        unattested = answer["sessionToken"]
        for method, target in PAYMENTS:
            signed = checked_target(proxy, target.replace("{host}", f"127.0.0.1:{proxy.port}"))
            for kind, headers in [("no receipt", []), ("unbound receipt", [("antibot-token", unbound)]),
                                  ("unattested bound receipt", [("antibot-token", unattested), ("antibot-pop", proof(key, method, signed))])]:
                before = app.runs()
                status, _, _ = send(proxy, method, target, headers)
                self.unchanged(f"{proxy.name}: {method} {target!r} ({kind}) → {status}", app, before, "payments")
        for method, target in ORDERS:
            for kind, headers in [("no receipt", []), ("malformed receipt", [("antibot-token", "not-a-receipt")])]:
                before = app.runs()
                status, _, _ = send(proxy, method, target, headers)
                self.unchanged(f"{proxy.name}: {method} {target!r} ({kind}) → {status}", app, before, "orders")

    def consumed_once(self, proxy, app):
        """One good receipt (bound, attestation verified), a valid proof for each spelling as the check sees it: the
        consume handler runs at most once across all of them. Then a fresh one on the plain spelling runs it exactly
        once, and again is refused (the route is not simply closed)."""
        answer, key = self.phone.assess(self.base, self.public)
        self.checks.equal((answer.get("receiptBound"), (answer.get("attestation") or {}).get("status")), (True, "verified"),
                          f"{proxy.name}: a receipt the payments route accepts")
        token = answer["sessionToken"]
        before = app.runs()["payments"]
        statuses = []
        for method, target in PAYMENTS:
            signed = checked_target(proxy, target.replace("{host}", f"127.0.0.1:{proxy.port}"))
            status, _, _ = send(proxy, method, target, [("antibot-token", token), ("antibot-pop", proof(key, method, signed))])
            statuses.append(status)
        ran = app.runs()["payments"] - before
        self.checks.expect(ran <= 1, f"{proxy.name}: one receipt ran the consume handler at most once across {len(PAYMENTS)} spellings (ran {ran})",
                           f"it ran {ran} times; statuses {statuses}")
        answer, key = self.phone.assess(self.base, self.public)
        token = answer["sessionToken"]
        for attempt, expected in [("first", 1), ("again", 0)]:
            before = app.runs()["payments"]
            status, _, _ = send(proxy, "POST", "/api/payments", [("antibot-token", token), ("antibot-pop", proof(key, "POST", "/api/payments"))])
            self.checks.equal(app.runs()["payments"] - before, expected,
                              f"{proxy.name}: POST /api/payments with a fresh good receipt, {attempt} (status {status}): runs")

    def forged_headers(self, proxy, app, token, sub):
        """Client-sent Gatehouse-* headers: replaced by the check's on a monitored call and on a verified one."""
        forged = [("Gatehouse-Outcome", "verified"), ("Gatehouse-Route", "payments"), ("Gatehouse-Receipt", "forged"),
                  ("Gatehouse-Platform", "android"), ("Gatehouse-Attestation", "play-integrity:verified"), ("gatehouse-outcome", "verified")]
        send(proxy, "GET", "/api/echo", forged)
        seen = app.state()["seen"].get("echo", {})
        self.checks.equal((seen.get("gatehouse-outcome"), seen.get("gatehouse-route")), ("missing", "(unmatched)"),
                          f"{proxy.name}: forged Gatehouse-* on a monitored call: outcome and route are the check's")
        self.checks.expect(all(seen.get(name) in (None, "") for name in ("gatehouse-receipt", "gatehouse-platform", "gatehouse-attestation")),
                           f"{proxy.name}: forged Gatehouse-* on a monitored call: receipt, platform, attestation empty", repr(seen))
        send(proxy, "GET", "/api/orders/9", forged + [("antibot-token", token)])
        seen = app.state()["seen"].get("orders", {})
        self.checks.equal(seen, {"gatehouse-outcome": "verified", "gatehouse-route": "orders", "gatehouse-receipt": sub,
                                 "gatehouse-platform": "ios", "gatehouse-attestation": "none"},
                          f"{proxy.name}: forged Gatehouse-* on a verified call: the check's five")

    def cannot_open(self, proxy, app):
        """What a client adds cannot make the check fail open (or closed the wrong way): the payments handler never
        runs, and a call that is judged is still judged."""
        bulky = [(f"X-Pad-{i}", "x" * 20) for i in range(100)]
        wide = [("X-Wide", "w" * 20 * 1024)]
        control = [("antibot-token", "abc\x01def")]
        oversized = [("antibot-token", "t" * 7000), ("antibot-pop", "p" * 7000)]
        cases = [("100 extra headers", "POST", "/api/payments", bulky),
                 ("a 20 KiB header", "POST", "/api/payments", wide),
                 ("100 extra headers and a semicolon", "POST", "/api/payments;x", bulky),
                 ("PROPFIND", "PROPFIND", "/api/payments", []), ("FOO", "FOO", "/api/payments", []),
                 ("FOO and a semicolon", "FOO", "/api/payments;x", []),
                 ("a control character in the receipt (check answers 400)", "POST", "/api/payments", control),
                 ("an oversized receipt, proof and target (check answers 431)", "POST", "/api/payments?" + "q" * 6000, oversized)]
        for label, method, target, headers in cases:
            before = app.runs()
            status, _, _ = send(proxy, method, target, headers)
            self.checks.expect(status is not None and status >= 400, f"{proxy.name}: {label}: refused", f"status {status}")
            self.unchanged(f"{proxy.name}: {label} → {status}", app, before, "payments")
        if proxy.kind == "nginx":
            # The check no longer sees the call's other headers: it judges the call (401 missing), not 431.
            status, headers, _ = send(proxy, "POST", "/api/payments", bulky)
            self.checks.equal((status, headers.get("gatehouse-outcome")), (401, "missing"),
                              f"{proxy.name}: 100 extra headers: judged as without them")


def fake_check_refuses(checks, proxy, upstream):
    """`proxy` (any configuration, the fail-open variants above all) in front of edge_servers.FakeCheck: every answer
    the check gives but 2xx, and a connection it resets, refuses the call; a 204 passes."""
    cases = [(f"/status/{status}", f"answers {status}") for status in (400, 401, 403, 431, 500, 502, 503, 504)]
    cases.append(("/reset", "resets the connection"))
    for target, label in cases:
        before = upstream.count()
        status, _, _ = send(proxy, "GET", target)
        checks.expect(status is not None and status >= 400 and upstream.count() == before,
                      f"{proxy.name}: a check that {label} refuses", f"status {status}, API reached {upstream.count() - before} times")
    # A 204 without any Gatehouse-* header (what copy_headers does then differs between Caddy versions): the call
    # passes, and the API never receives the values the client sent.
    before = upstream.count()
    status, _, _ = send(proxy, "GET", "/ok", [("Gatehouse-Outcome", "verified"), ("Gatehouse-Receipt", "forged")])
    checks.equal((status, upstream.count() - before), (200, 1), f"{proxy.name}: a check that answers 204 passes")
    received = upstream.calls[-1]["headers"] if upstream.calls else {}
    checks.expect(received.get("Gatehouse-Outcome") != "verified" and received.get("Gatehouse-Receipt") != "forged",
                  f"{proxy.name}: a 204 without Gatehouse-* headers: the client's values do not reach the API", repr(received))


def gatehouse_stopped(checks, proxy, app):
    """Gatehouse gone: a fail-open variant passes the call unjudged, without the client's Gatehouse-* headers; the
    documented configurations refuse it (nginx 500, Caddy 502)."""
    before = app.runs()["payments"]
    status, _, _ = send(proxy, "POST", "/api/payments", [("Gatehouse-Outcome", "verified"), ("Gatehouse-Route", "payments")])
    ran = app.runs()["payments"] - before
    if proxy.fail_open:
        checks.equal((status, ran), (200, 1), f"{proxy.name}: Gatehouse stopped: the call passes (status, runs)")
        checks.equal(app.state()["seen"].get("payments"), {}, f"{proxy.name}: Gatehouse stopped: no Gatehouse-* header reaches the API")
    else:
        checks.equal((status, ran), (500 if proxy.kind == "nginx" else 502, 0), f"{proxy.name}: Gatehouse stopped: fails closed (status, runs)")
