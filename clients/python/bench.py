"""How much checking a bound receipt with its proof costs, against `cryptography`'s own ECDSA P-256 verify in the
same run (the issue's goal: at most 1.5 × two verifies, since a bound receipt needs two).

    python bench.py [N]

Prints µs per check (median of 7 interleaved rounds of N checks, 2000 by default): one
`EllipticCurvePublicKey.verify` of a DER signature, one import of a P-256 public key, a bound receipt and its proof
never seen before (a new token and a new phone key each time: two ECDSA verifies, the key's import and the parsing),
and the same receipt again (its signature remembered by the key set, so one verify: the proof's)."""
from __future__ import annotations

import base64
import json
import os
import statistics
import sys
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))
from gatehouse_receipts import JWKS, verify_session_token  # noqa: E402

ENV = "env_bench00000000000"
PATH = "/api/orders?page=2"
ECDSA = ec.ECDSA(hashes.SHA256())


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw(key: ec.EllipticCurvePrivateKey, message: bytes) -> bytes:
    r, s = decode_dss_signature(key.sign(message, ECDSA))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def jwk(key: ec.EllipticCurvePrivateKey) -> dict:
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {"kty": "EC", "crv": "P-256", "x": b64(point[1:33]), "y": b64(point[33:])}


def der_of(signature: str) -> bytes:
    raw_bytes = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
    return encode_dss_signature(int.from_bytes(raw_bytes[:32], "big"), int.from_bytes(raw_bytes[32:], "big"))


def point_of(token: str) -> bytes:
    body = token.split(".")[1]
    jwk_ = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["cnf"]["jwk"]
    return b"\x04" + b"".join(base64.urlsafe_b64decode(jwk_[c] + "=" * (-len(jwk_[c]) % 4)) for c in ("x", "y"))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    signer = ec.generate_private_key(ec.SECP256R1())
    keys = JWKS.parse({"keys": [dict(jwk(signer), kid="bench", use="sig", alg="ES256")]})
    now_ms = int(time.time() * 1000)
    header = b64(json.dumps({"alg": "ES256", "kid": "bench", "typ": "gatehouse-receipt+jwt"}, separators=(",", ":")).encode())
    calls = []
    for i in range(n * ROUNDS):
        phone = ec.generate_private_key(ec.SECP256R1())
        claims = {"iss": "gatehouse", "env": ENV, "sub": f"req_{i:016d}", "iat": now_ms // 1000 - 10,
                  "exp": now_ms // 1000 + 590, "plat": "android", "action": "allow",
                  "att": {"provider": "play-integrity", "status": "verified"}, "cnf": {"jwk": jwk(phone)}}
        signing_input = header + "." + b64(json.dumps(claims, separators=(",", ":")).encode())
        token = signing_input + "." + b64(raw(signer, signing_input.encode()))
        pop = f"t={now_ms},s=" + b64(raw(phone, f"{now_ms}\nGET\n{PATH}".encode()))
        calls.append((token, pop))

    def check(token: str, pop: str) -> None:
        result = verify_session_token(token, jwks=keys, environment=ENV, method="GET", path_and_query=PATH, proof=pop,
                                      now_ms=now_ms)
        assert result.valid, result.reasons

    public = signer.public_key()
    message = b"x" * 400
    der = signer.sign(message, ECDSA)
    fresh_points = [ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint) for _ in range(n)]
    # The cryptography this check needs and nothing else: the receipt's signature under the signing key, then the
    # proof's under the phone's key, imported from its point (the same calls, signatures and messages).
    crypto = []
    for token, pop in calls:
        head, body, signature = token.split(".")
        t, proof_signature = pop[2:].split(",s=")
        crypto.append((der_of(signature), (head + "." + body).encode(), point_of(token), der_of(proof_signature),
                       f"{t}\nGET\n{PATH}".encode()))

    def crypto_only(item: tuple) -> None:
        token_signature, signing_input, point, proof_signature, proof_message = item
        public.verify(token_signature, signing_input, ECDSA)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point).verify(proof_signature, proof_message, ECDSA)
    same = calls[-1]
    check(*same)

    def timed(run) -> float:
        start = time.perf_counter()
        run()
        return (time.perf_counter() - start) / n * 1e6

    # Rounds interleaved, medians taken: the machine's other load moves all figures alike.
    baseline, fresh, needed, cold, warm = [], [], [], [], []
    for r in range(ROUNDS):
        baseline.append(timed(lambda: [public.verify(der, message, ECDSA) for _ in range(n)]))
        fresh.append(timed(lambda: [ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), p) for p in fresh_points]))
        needed.append(timed(lambda: [crypto_only(item) for item in crypto[r * n:(r + 1) * n]]))
        cold.append(timed(lambda: [check(*call) for call in calls[r * n:(r + 1) * n]]))
        warm.append(timed(lambda: [check(*same) for _ in range(n)]))
    one, imported, bare, first, again = (statistics.median(x) for x in (baseline, fresh, needed, cold, warm))
    print(f"cryptography: one ECDSA P-256 verify (one key, in a loop):     {one:7.1f} µs")
    print(f"cryptography: one P-256 public key imported from its point:    {imported:7.1f} µs")
    print(f"cryptography: this check's two verifies and import, bare:      {bare:7.1f} µs = {bare / (2 * one):.2f} × two verifies")
    print(f"bound receipt + proof never seen before (a new phone key):     {first:7.1f} µs = {first / (2 * one):.2f} × two verifies"
          f" = {first / bare:.2f} × the bare cryptography")
    print(f"bound receipt + proof seen before (signature remembered):      {again:7.1f} µs = {again / one:.2f} × one verify"
          f" = {again / (2 * one):.2f} × two")
    # Issue 48's lines: the library's CPU per check against the crypto it must do in `cryptography` (a library has no
    # exchange of its own: bare 0).
    for row, us, crypto_us in (("python-new-phone", first, bare), ("python-seen-receipt", again, one)):
        print(f"bench {row}: server {us:.0f} us, crypto {crypto_us:.0f} us, bare 0 us, ratio {us / crypto_us:.2f}")


ROUNDS = 7


if __name__ == "__main__":
    main()
