"""Nothing a client sends makes the library raise: random tokens, proofs, headers and paths (hypothesis), through the
functions and through both middlewares; and no change to a good receipt keeps it valid."""
import asyncio
import json
import time

from cryptography.hazmat.primitives.asymmetric import ec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatehouse_receipts import JWKS, GatehouseMiddleware, GatehouseWSGIMiddleware, ReceiptPolicy, Verification, \
    verify_request_proof, verify_session_token
from gatehouse_receipts._paths import PathRefused, normalized_segments
from gatehouse_receipts._strict import StrictError, parse_json
from helpers import ENV, NOW_MS, Signer, b64, claims, proof, public_jwk

SIGNER = Signer()
KEYS = JWKS.parse({"keys": [SIGNER.jwk()]})
PHONE = ec.generate_private_key(ec.SECP256R1())
GOOD = SIGNER.token(claims(phone=PHONE, att={"provider": "app-attest", "status": "verified"}))
GOOD_PROOF = proof(PHONE, "GET", "/api/orders")
REASONS = {"malformed", "signatureInvalid", "expired", "wrongEnvironment", "session:proof", "unbound", "unattested"}
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

alphabet = st.characters(codec="utf-8") | st.sampled_from(list("ABCxyz019-_.=+/,t=s= \t%?"))
texts = st.text(alphabet, max_size=300) | st.binary(max_size=300)
segments = st.lists(st.text(st.sampled_from(list("AbZ09-_")), min_size=0, max_size=40), min_size=3, max_size=4)
token_like = texts | segments.map(".".join) | st.builds(lambda h, p, s: f"{b64(h)}.{b64(p)}.{b64(s)}",
                                                         st.binary(max_size=80), st.binary(max_size=200), st.binary(max_size=80))
json_like = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                         lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
                         max_leaves=12)
# Signed tokens whose payload is any JSON: the signature holds, so everything after it is exercised.
signed = st.builds(lambda payload: SIGNER.token(None, payload_text=json.dumps(payload).encode()), json_like) | \
    st.builds(lambda c, extra: SIGNER.token(dict(claims(), **extra)), st.just(0),
              st.dictionaries(st.sampled_from(["iss", "env", "sub", "iat", "exp", "plat", "action", "att", "cnf"]),
                              json_like, max_size=3))
proofs = st.none() | texts | st.builds(lambda t, s: f"t={t},s={b64(s)}", st.integers(-10, 10**16), st.binary(max_size=80))
policies = st.none() | st.builds(ReceiptPolicy, st.booleans(), st.sampled_from([None, "verified"]), st.booleans())
int64 = st.integers(-(2**63), 2**63 - 1)


@SETTINGS
@given(token=token_like | signed, proof_header=proofs, method=texts, path=texts, policy=policies,
       now_ms=int64 | st.just(NOW_MS))
def test_verify_session_token_never_raises(token, proof_header, method, path, policy, now_ms):
    v = verify_session_token(token, jwks=KEYS, environment=ENV, method=method, path_and_query=path, proof=proof_header,
                             policy=policy, now_ms=now_ms)
    assert isinstance(v, Verification)
    assert set(v.reasons) <= REASONS
    if v.claims is None:
        assert len(v.reasons) == 1 and v.reasons[0] in ("malformed", "signatureInvalid")


@SETTINGS
@given(data=st.data())
def test_no_change_to_a_good_receipt_keeps_it_valid(data):
    assert verify_session_token(GOOD, jwks=KEYS, environment=ENV, method="GET", path_and_query="/api/orders",
                                proof=GOOD_PROOF, now_ms=NOW_MS).valid
    raw = bytearray(GOOD.encode())
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["flip", "insert", "delete"]))
        i = data.draw(st.integers(0, len(raw) - 1))
        if kind == "flip":
            raw[i] = data.draw(st.integers(0, 255).filter(lambda b, old=raw[i]: b != old))
        elif kind == "insert":
            raw.insert(i, data.draw(st.integers(0, 255)))
        else:
            del raw[i]
    mutated = bytes(raw)
    v = verify_session_token(mutated, jwks=KEYS, environment=ENV, method="GET", path_and_query="/api/orders",
                             proof=GOOD_PROOF, now_ms=NOW_MS)
    assert mutated == GOOD.encode() or not v.valid


@SETTINGS
@given(proof_header=proofs, method=texts, path=texts, now_ms=int64)
def test_verify_request_proof_never_raises(proof_header, method, path, now_ms):
    assert verify_request_proof(proof_header, jwk=public_jwk(PHONE), method=method, path_and_query=path,
                                now_ms=now_ms) in (True, False)


@SETTINGS
@given(path=texts)
def test_paths_normalize_or_are_refused(path):
    try:
        normalized_segments(path)
    except PathRefused:
        pass


@SETTINGS
@given(data=st.binary(max_size=200) | json_like.map(lambda v: json.dumps(v).encode()))
def test_json_reads_or_refuses(data):
    try:
        parse_json(data)
    except StrictError:
        pass


ROUTES = [{"name": "orders", "match": "GET /api/orders/**", "mode": "enforce"},
          {"name": "attested", "match": "* /api/a/*", "require": {"bound": True, "attestation": "verified"}}]


def _ready(middleware):
    source = middleware.enforcer.source
    source._keys = KEYS
    source._fresh_until = float("inf")
    return middleware


def _app(environ_or_scope, *rest):
    raise AssertionError("unused")


WSGI = _ready(GatehouseWSGIMiddleware(lambda environ, start: (start("200 OK", []), [b"ok"])[1],
                                      gatehouse_url="http://127.0.0.1:9", environment=ENV, routes=ROUTES, mode="enforce"))


async def _ok(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


ASGI = _ready(GatehouseMiddleware(_ok, gatehouse_url="http://127.0.0.1:9", environment=ENV, routes=ROUTES,
                                  mode="monitor"))
header_bytes = st.binary(max_size=200) | st.just(GOOD.encode()) | st.just(GOOD_PROOF.encode()) | \
    token_like.map(lambda t: t.encode() if isinstance(t, str) else t)
latin1 = st.binary(max_size=200).map(lambda b: b.decode("latin-1"))
methods = st.sampled_from(["GET", "POST", "PATCH"]) | st.text(max_size=8)


@SETTINGS
@given(method=methods, target=latin1 | st.sampled_from(["/api/orders/1", "/api/a/b?x", "/api/a/%2F", "*"]),
       token=st.none() | header_bytes.map(lambda b: b.decode("latin-1")),
       pop=st.none() | header_bytes.map(lambda b: b.decode("latin-1")))
def test_the_wsgi_middleware_never_raises(method, target, token, pop):
    environ = {"REQUEST_METHOD": method, "REQUEST_URI": target, "PATH_INFO": "/", "QUERY_STRING": ""}
    if token is not None:
        environ["HTTP_ANTIBOT_TOKEN"] = token
    if pop is not None:
        environ["HTTP_ANTIBOT_POP"] = pop
    statuses = []
    body = b"".join(WSGI(environ, lambda status, headers, exc_info=None: statuses.append(status)))
    assert statuses and statuses[0][:3] in ("200", "401", "403") and body
    assert environ["gatehouse"]["route"] in ("orders", "attested", "(unmatched)")


@SETTINGS
@given(raw_path=st.binary(max_size=120), query=st.binary(max_size=60),
       headers=st.lists(st.tuples(st.sampled_from([b"antibot-token", b"Antibot-Pop", b"antibot-pop", b"x"]), header_bytes),
                        max_size=4),
       method=methods)
def test_the_asgi_middleware_never_raises(raw_path, query, headers, method):
    scope = {"type": "http", "method": method, "path": "/", "raw_path": raw_path, "query_string": query,
             "headers": headers}
    sent = []

    async def send(message):
        sent.append(message)

    asyncio.run(ASGI(scope, None, send))
    assert sent[0]["status"] in (200, 401, 403)  # the orders route enforces, and an unreadable path is judged under it
    assert scope["state"]["gatehouse"]["outcome"] in (None, "missing", "invalid", "challenge", "unmet", "verified")


def test_a_good_receipt_passes_the_enforced_route():
    environ = {"REQUEST_METHOD": "GET", "REQUEST_URI": "/api/orders/1", "HTTP_ANTIBOT_TOKEN":
               SIGNER.token(claims(iat=int(time.time()) - 5))}
    statuses = []
    WSGI(environ, lambda status, headers, exc_info=None: statuses.append(status))
    assert statuses == ["200 OK"] and environ["gatehouse"]["outcome"] == "verified"


def _reference_b64url(text):
    """Base64url in its one spelling, the slow obvious way: decode leniently, then demand the re-encoding be the
    input."""
    import base64
    import binascii

    if not isinstance(text, str) or not text.isascii():
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    return raw if base64.urlsafe_b64encode(raw).rstrip(b"=").decode() == text else None


@SETTINGS
@given(text=st.text(st.sampled_from(list("ABQgw09-_+/= \n\x00é")), max_size=12) | st.binary(max_size=9).map(b64))
def test_base64url_reads_exactly_the_canonical_spelling(text):
    from gatehouse_receipts._strict import b64url_decode

    assert b64url_decode(text) == _reference_b64url(text)
