"""What the tests sign receipts and proofs with, and a small fake Gatehouse (keys, verify with consume, ingest) for
the tests that need a server but not the real one."""
from __future__ import annotations

import base64
import hashlib
import http.server
import json
import threading
import time
from typing import Any, Dict, List, Optional

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from gatehouse_receipts import JWKS, ReceiptPolicy, verify_session_token

ENV = "env_test0000000000"
NOW_MS = 1_800_000_000_000
NOW = NOW_MS // 1000


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_signature(key: ec.EllipticCurvePrivateKey, message: bytes) -> bytes:
    r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def public_jwk(key: ec.EllipticCurvePrivateKey, kid: Optional[str] = None) -> Dict[str, str]:
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    jwk = {"kty": "EC", "crv": "P-256", "x": b64(point[1:33]), "y": b64(point[33:])}
    if kid is not None:
        jwk.update(kid=kid, use="sig", alg="ES256")
    return jwk


class Signer:
    """A receipt signing key as Gatehouse's ReceiptSigner uses one."""

    def __init__(self, kid: str = "kid-test") -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.kid = kid

    def jwk(self) -> Dict[str, str]:
        return public_jwk(self.key, self.kid)

    def token(self, claims: Any, header: Any = None, *, payload_text: Optional[bytes] = None,
              header_text: Optional[bytes] = None, signature: Optional[bytes] = None) -> str:
        if header_text is None:
            header = header if header is not None else {"alg": "ES256", "kid": self.kid, "typ": "gatehouse-receipt+jwt"}
            header_text = json.dumps(header, separators=(",", ":")).encode()
        if payload_text is None:
            payload_text = json.dumps(claims, separators=(",", ":")).encode()
        signing_input = b64(header_text) + "." + b64(payload_text)
        if signature is None:
            signature = raw_signature(self.key, signing_input.encode())
        return signing_input + "." + b64(signature)


def jwks(*signers: Signer) -> Dict[str, Any]:
    return {"keys": [s.jwk() for s in signers]}


def claims(*, env: str = ENV, sub: str = "req_test", iat: int = NOW - 60, ttl: int = 600, action: str = "allow",
           att: Any = None, plat: Optional[str] = "ios", phone: Optional[ec.EllipticCurvePrivateKey] = None,
           **extra: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {"iss": "gatehouse", "env": env, "sub": sub, "iat": iat, "exp": iat + ttl}
    if plat is not None:
        out["plat"] = plat
    out["action"] = action
    out["att"] = att
    if phone is not None:
        out["cnf"] = {"jwk": public_jwk(phone)}
    out.update(extra)
    return out


def proof(phone: ec.EllipticCurvePrivateKey, method: str, path: str, t: int = NOW_MS, der: bool = False) -> str:
    message = f"{t}\n{method}\n{path}".encode()
    if der:
        return f"t={t},s=" + b64(phone.sign(message, ec.ECDSA(hashes.SHA256())))
    return f"t={t},s=" + b64(raw_signature(phone, message))


class FakeGatehouse(http.server.ThreadingHTTPServer):
    """Gatehouse's endpoints as the libraries use them: the JWKS (max-age, ETag, 304), the environment's routes
    (`enforcement`, answered for `routes_environment`, ETag, 304), verify with consume (the library's own checks plus
    a spent set), and ingest (recorded, once per Idempotency-Key); `fail` makes every call answer 503, `down_ingest`
    makes the ingest answer 503 that many times, a wrong secret key gets 401."""

    daemon_threads = True

    def __init__(self, signers: List[Signer], secret: str = "sk_test_secret", environment: str = ENV,
                 max_age: int = 300) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.signers = list(signers)
        self.secret = secret
        self.environment = environment
        self.max_age = max_age
        self.lock = threading.Lock()
        self.requests: List[Dict[str, Any]] = []
        self.spent: set = set()
        self.ingested: Dict[str, List[Dict[str, Any]]] = {}
        self.fail = False
        self.down_ingest = 0
        self.verify_delay = 0.0
        self.keys_delay = 0.0
        self.enforcement: Dict[str, Any] = {"mode": "monitor", "routes": []}
        self.routes_environment = environment
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def count(self, path: str, method: str = "GET") -> int:
        with self.lock:
            return sum(1 for r in self.requests if r["path"] == path and r["method"] == method)

    def ingested_counts(self) -> Dict[tuple, int]:
        """{(route, outcome): count} over every report accepted (each Idempotency-Key once)."""
        totals: Dict[tuple, int] = {}
        with self.lock:
            for entries in self.ingested.values():
                for entry in entries:
                    key = (entry["route"], entry["outcome"])
                    totals[key] = totals.get(key, 0) + entry["count"]
        return totals

    def set_routes(self, routes: List[Dict[str, Any]], mode: str = "monitor") -> None:
        """What GET /api/v4/edge/routes answers from now on (as a PATCH of the environment's enforcement)."""
        with self.lock:
            self.enforcement = {"mode": mode, "routes": routes}

    def routes_body(self) -> bytes:
        with self.lock:
            return json.dumps(dict({"environment": self.routes_environment}, **self.enforcement)).encode()

    def jwks_body(self) -> bytes:
        return json.dumps(jwks(*self.signers), separators=(",", ":")).encode()

    def close(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeGatehouse

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self, status: int, body: bytes = b"", headers: Optional[Dict[str, str]] = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _record(self, body: bytes = b"") -> None:
        with self.server.lock:
            self.server.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers),
                                         "body": body})

    def do_GET(self) -> None:
        self._record()
        if self.server.fail:
            return self._answer(503)
        if self.path == "/api/v4/edge/routes":
            if self.headers.get("Authorization") != "Bearer " + self.server.secret:
                return self._answer(401, b'{"type":"/problems/unauthenticated"}',
                                    {"Content-Type": "application/problem+json"})
            body, max_age, content_type = self.server.routes_body(), 30, "application/json"
        elif self.path == "/api/v4/receipts/keys":
            time.sleep(self.server.keys_delay)
            body, max_age, content_type = self.server.jwks_body(), self.server.max_age, "application/jwk-set+json"
        else:
            return self._answer(404)
        etag = '"' + b64(hashlib.sha256(body).digest()[:16]) + '"'
        headers = {"Cache-Control": f"public, max-age={max_age}", "ETag": etag}
        if self.headers.get("If-None-Match") == etag:
            return self._answer(304, headers=headers)
        headers["Content-Type"] = content_type
        self._answer(200, body, headers)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._record(body)
        if self.server.fail:
            return self._answer(503, b'{"title":"Busy"}', {"Retry-After": "1"})
        if self.headers.get("Authorization") != "Bearer " + self.server.secret:
            return self._answer(401, b'{"type":"/problems/unauthenticated","detail":"Wrong key."}',
                                {"Content-Type": "application/problem+json"})
        request = json.loads(body)
        if self.path == "/api/v4/receipts/verify":
            time.sleep(self.server.verify_delay)
            policy = ReceiptPolicy.from_json(request.get("require"))
            v = verify_session_token(request["token"], jwks=JWKS.parse(self.server.jwks_body()),
                                     environment=self.server.environment, method=request["method"],
                                     path_and_query=request["pathAndQuery"], proof=request.get("proof"), policy=policy)
            consumed = False
            if v.claims is not None and v.environment == self.server.environment:
                sub = v.subject
                with self.server.lock:
                    if request.get("consume") and v.valid and sub not in self.server.spent:
                        self.server.spent.add(sub)
                        consumed = True
                    elif sub in self.server.spent:
                        v.reasons.append("consumed")
            answer = v.to_json()
            answer["consumed"] = consumed
            return self._answer(200, json.dumps(answer).encode(), {"Content-Type": "application/json"})
        if self.path == "/api/ingest/v1/enforcement":
            with self.server.lock:
                if self.server.down_ingest > 0:
                    self.server.down_ingest -= 1
                    return self._answer(503)
                key = self.headers.get("Idempotency-Key") or ""
                self.server.ingested.setdefault(key, request["counts"])
            return self._answer(202, b'{"accepted":1}', {"Content-Type": "application/json"})
        self._answer(404)


def wait_for(predicate: Any, seconds: float = 30.0, what: str = "the state") -> Any:
    """Polls `predicate` until it returns something true (returned), failing after `seconds`: a test waits for a
    state, never for a clock; the bound only ends a test that would otherwise hang."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {seconds} s (last: {value!r})")
        time.sleep(0.01)
