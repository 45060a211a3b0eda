"""verify_session_token and verify_request_proof beyond the shared vectors: the strictness the Swift library has
(its JSON parser, base64url, sizes, numbers, names compared as Swift compares strings), the JWKS reader, the policy,
and the result's fields."""
import json

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from gatehouse_receipts import JWKS, PublicJWK, ReceiptError, ReceiptPolicy, Verification, verify_request_proof, \
    verify_session_token
from gatehouse_receipts._strict import StrictError, b64url_decode, parse_json
from helpers import ENV, NOW, NOW_MS, Signer, b64, claims, jwks, proof, public_jwk

SIGNER = Signer()
KEYS = jwks(SIGNER)
PHONE = ec.generate_private_key(ec.SECP256R1())


def check(token, *, proof_header=None, policy=None, now_ms=NOW_MS, method="GET", path="/api/orders", keys=KEYS,
          environment=ENV):
    return verify_session_token(token, jwks=keys, environment=environment, method=method, path_and_query=path,
                                proof=proof_header, policy=policy, now_ms=now_ms)


def reasons(token, **kwargs):
    return check(token, **kwargs).reasons


# Numbers: every JSON number is a double, as Swift reads it.

@pytest.mark.parametrize("iat, ok", [
    (f"{NOW - 60}", True), (f"{NOW - 60}.0", True), (f"{(NOW - 60) / 1e9}e9", True), (f"{NOW - 60}.5", False),
    ('"1"', False), ("true", False), ("null", False), ("9007199254740992", False),
])
def test_iat_is_a_whole_number_as_a_double_reads_it(iat, ok):
    text = ('{"iss":"gatehouse","env":"%s","sub":"s","iat":%s,"exp":%d,"action":"allow","att":null}'
            % (ENV, iat, NOW + 540)).encode()
    assert reasons(SIGNER.token(None, payload_text=text)) == ([] if ok else ["malformed"])


def test_exp_must_follow_iat_by_at_most_600_seconds():
    assert reasons(SIGNER.token(claims(ttl=600))) == []
    assert reasons(SIGNER.token(claims(ttl=601))) == ["malformed"]
    assert reasons(SIGNER.token(claims(ttl=0))) == ["malformed"]
    assert reasons(SIGNER.token(claims(ttl=-5))) == ["malformed"]


@pytest.mark.parametrize("text", [
    b'{"iss":"gatehouse","n":NaN}', b'{"iss":"gatehouse","n":Infinity}', b'{"iss":"gatehouse","n":1e400}',
    b'{"iss":"gatehouse","n":' + b"9" * 400 + b"}", b'{"iss":"gatehouse","s":"\\ud800"}',
    b'{"iss":"gatehouse","s":"\\udc00\\ud800"}', b'{"iss":"gatehouse","s":"\xed\xa0\x80"}', b'\xef\xbb\xbf{}',
    b'{"a":1,}', b"{'a':1}", b'{"a":01}', b'{"a":1.}', b'{"a":"\x01"}', b"[]", b'"x"', b"", b" ",
    b'{"x":' + b"[" * 64 + b"]" * 64 + b"}",
])
def test_json_swift_refuses_is_refused(text):
    with pytest.raises(StrictError):
        value = parse_json(text)
        if not isinstance(value, dict):
            raise StrictError("not an object")


@pytest.mark.parametrize("text", [
    b'{"a":1e-400}', b'{"s":"\\ud83d\\ude00"}', b' \t\r\n{"a":[1,2,{"b":null}]} \n', b'{"x":' + b"[" * 63 + b"]" * 63 + b"}",
    b'{"a":-0}', b'{"\xc3\xa9":"\\u00e9"}',
])
def test_json_swift_accepts_is_accepted(text):
    assert isinstance(parse_json(text), dict)


def test_nesting_limit_is_swifts_64():
    assert parse_json(b"[" * 64 + b"]" * 64) == parse_json(b"[" * 64 + b"]" * 64)
    with pytest.raises(StrictError):
        parse_json(b"[" * 65 + b"]" * 65)
    with pytest.raises(StrictError):
        parse_json(b"[" * 64 + b"1" + b"]" * 64)
    with pytest.raises(StrictError):
        parse_json(b"[" * 100_000 + b"]" * 100_000)


def test_members_named_twice_are_refused_where_swift_reads_strictly_and_allowed_elsewhere():
    base = claims()
    text = json.dumps(base)[:-1] + ',"env":"%s"}' % ENV
    assert reasons(SIGNER.token(None, payload_text=text.encode())) == ["malformed"]
    # Names compare as Swift's strings do: by canonical equivalence ("é" precomposed and decomposed are one name).
    text = json.dumps(base)[:-1] + ', "\u00e9": 1, "e\u0301": 2}'
    assert reasons(SIGNER.token(None, payload_text=text.encode())) == ["malformed"]
    # A member named twice in an object nothing reads strictly is fine, as in Swift.
    text = json.dumps(base)[:-1] + ', "extra": {"a": 1, "a": 2}}'
    assert reasons(SIGNER.token(None, payload_text=text.encode())) == []
    text = json.dumps(dict(base, att={"provider": "app-attest", "status": "verified"}))[:-2] + ',"status":"x"}}'
    assert reasons(SIGNER.token(None, payload_text=text.encode())) == ["malformed"]


def test_environment_and_kid_compare_as_swift_strings():
    decomposed, precomposed = "env_caf\u0065\u0301", "env_caf\u00e9"
    assert reasons(SIGNER.token(claims(env=decomposed)), environment=precomposed) == []
    signer = Signer(kid="k\u00e9y")
    token = Signer.token(signer, claims(), header={"alg": "ES256", "kid": "ke\u0301y", "typ": "gatehouse-receipt+jwt"})
    assert reasons(token, keys=jwks(signer)) == []
    with pytest.raises(ReceiptError):
        JWKS.parse({"keys": [Signer("k\u00e9y").jwk(), Signer("ke\u0301y").jwk()]})


@pytest.mark.parametrize("change, expected", [
    (dict(plat=None), []), (dict(plat="android-tv-1234567"), ["malformed"]), (dict(iss="other"), ["malformed"]),
    (dict(sub=""), ["malformed"]), (dict(sub="x" * 256), []), (dict(sub="x" * 257), ["malformed"]),
    (dict(env="\u00e9" * 128), ["wrongEnvironment"]), (dict(env="\u00e9" * 129), ["malformed"]),
    (dict(action="deny"), ["malformed"]), (dict(action=["allow"]), ["malformed"]), (dict(att=[]), ["malformed"]),
    (dict(att={"provider": "p"}), ["malformed"]), (dict(att={"provider": "p" * 65, "status": "verified"}), ["malformed"]),
    (dict(att={"provider": "p", "status": "verified", "extra": 1}), []), (dict(cnf=None), ["malformed"]),
    (dict(cnf={}), ["malformed"]), (dict(cnf={"jwk": None}), ["malformed"]),
])
def test_claims_read_as_swift_reads_them(change, expected):
    c = claims(plat="ios")
    for name, value in change.items():
        if name == "plat" and value is None:
            c.pop("plat")
        else:
            c[name] = value
    assert reasons(SIGNER.token(c)) == expected


def test_plat_null_is_not_plat_absent():
    text = json.dumps(dict(claims(), plat=None)).encode()
    assert reasons(SIGNER.token(None, payload_text=text)) == ["malformed"]


def test_cnf_jwk_is_read_as_a_jwk():
    jwk = public_jwk(PHONE)
    for bad in [dict(jwk, d="AAAA"), dict(jwk, kty="RSA"), dict(jwk, crv="P-384"), dict(jwk, use="enc"),
                dict(jwk, alg="ES384"), dict(jwk, kid=""), dict(jwk, x=jwk["x"] + "A"), dict(jwk, y=jwk["x"])]:
        assert reasons(SIGNER.token(dict(claims(), cnf={"jwk": bad}))) == ["malformed"], bad
    ok = dict(jwk, kid="phone", use="sig", alg="ES256", other=[1])
    token = SIGNER.token(dict(claims(), cnf={"jwk": ok}))
    assert reasons(token, proof_header=proof(PHONE, "GET", "/api/orders")) == []


@pytest.mark.parametrize("header, expected", [
    ({"alg": "ES256", "kid": "kid-test", "typ": "gatehouse-receipt+jwt"}, []),
    ({"alg": "ES256", "kid": "kid-test", "typ": "JWT"}, ["malformed"]),
    ({"alg": "ES256", "kid": "kid-test"}, ["malformed"]),
    ({"alg": "ES256", "kid": "kid-test", "typ": "gatehouse-receipt+jwt", "crit": []}, ["malformed"]),
    ({"alg": "ES256", "kid": "", "typ": "gatehouse-receipt+jwt"}, ["malformed"]),
    ({"alg": "ES256", "kid": 7, "typ": "gatehouse-receipt+jwt"}, ["malformed"]),
    ({"alg": "ES256", "kid": "k" * 129, "typ": "gatehouse-receipt+jwt"}, ["malformed"]),
    ({"alg": "ES384", "kid": "kid-test", "typ": "gatehouse-receipt+jwt"}, ["signatureInvalid"]),
    ({"alg": "ES256 ", "kid": "kid-test", "typ": "JWT"}, ["signatureInvalid"]),
    ({"kid": "kid-test", "typ": "gatehouse-receipt+jwt"}, ["signatureInvalid"]),
    ({"alg": "ES256", "kid": "other", "typ": "gatehouse-receipt+jwt"}, ["signatureInvalid"]),
    ({"alg": "ES256", "kid": "kid-test", "typ": "gatehouse-receipt+jwt", "x": {"a": 1, "a": 2}}, []),
])
def test_header(header, expected):
    assert reasons(SIGNER.token(claims(), header)) == expected


def test_base64url_is_read_in_its_one_spelling():
    assert b64url_decode("") == b""
    assert b64url_decode("AA") == b"\x00"
    assert b64url_decode("AB") is None  # unused bits set
    assert b64url_decode("AAA") == b"\x00\x00"
    assert b64url_decode("AAB") is None
    assert b64url_decode("A") is None
    assert b64url_decode("AA==") is None
    assert b64url_decode("+/") is None
    assert b64url_decode("-_") is None  # unused bits
    assert b64url_decode("-w") == b"\xfb"
    assert b64url_decode("A A") is None
    assert b64url_decode("\u00e9") is None
    token = SIGNER.token(claims())
    head, body, sig = token.split(".")
    assert reasons(f"{head}.{body}.{sig}=") == ["malformed"]
    assert reasons(f" {token}") == ["malformed"]
    assert reasons(f"{token}\n") == ["malformed"]
    assert reasons(f"{head}.{body}.") == ["signatureInvalid"]
    assert reasons(f"{head}..{sig}") == ["signatureInvalid"]  # the signature is checked before the claims are read


def test_token_size_limit_is_8192_bytes():
    def token(length):
        for extra in range(4):  # a header member to reach every length (base64url has no 4n+1 lengths)
            header = {"alg": "ES256", "kid": SIGNER.kid, "typ": "gatehouse-receipt+jwt", "x": "x" * extra}
            bare = len(SIGNER.token(dict(claims(), p=""), header))
            for pad in range((length - bare) * 3 // 4 - 3, (length - bare) * 3 // 4 + 3):
                found = SIGNER.token(dict(claims(), p="x" * pad), header)
                if len(found) == length:
                    return found
        raise AssertionError(length)

    assert reasons(token(8192)) == []
    assert reasons(token(8193)) == ["malformed"]


def test_signatures_openssl_refuses_are_refused():
    token = SIGNER.token(claims())
    head, body, _ = token.split(".")
    zero = b64(b"\x00" * 64)
    assert reasons(f"{head}.{body}.{zero}") == ["signatureInvalid"]
    n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
    over = b64(n.to_bytes(32, "big") + (1).to_bytes(32, "big"))
    assert reasons(f"{head}.{body}.{over}") == ["signatureInvalid"]
    # A high-s signature verifies (OpenSSL does not demand low s, nor does Swift's library).
    raw = b64url_decode(token.split(".")[2])
    r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
    high = b64(r.to_bytes(32, "big") + (n - s).to_bytes(32, "big"))
    assert reasons(f"{head}.{body}.{high}") == []


def test_not_a_string_is_malformed_and_bytes_are_read():
    token = SIGNER.token(claims())
    assert reasons(token.encode()) == []
    for bad in [None, 7, ["x"], "\u00e9.a.b", "a.b.c\ud800", b"\xff.\xfe.\xfd"]:
        assert reasons(bad) == ["malformed"]


def test_expiry_uses_whole_seconds_rounded_toward_zero():
    token = SIGNER.token(claims(iat=-100, ttl=100))  # exp 0
    # Swift's -1 / 1000 is 0 (toward zero), so at -1 ms `now >= exp` (0 >= 0) holds; floor division would say -1.
    assert reasons(token, now_ms=-1) == ["expired"]
    assert reasons(token, now_ms=-1000) == []


def test_expiry_boundaries():
    token = SIGNER.token(claims(iat=NOW - 600))  # exp == NOW
    assert reasons(token, now_ms=NOW_MS - 1) == []
    assert reasons(token, now_ms=NOW_MS) == ["expired"]
    token = SIGNER.token(claims(iat=NOW + 60))
    assert reasons(token, now_ms=NOW_MS) == []
    token = SIGNER.token(claims(iat=NOW + 61))
    assert reasons(token, now_ms=NOW_MS) == ["expired"]
    assert reasons(token, now_ms=NOW_MS + 999) == ["expired"]
    assert reasons(token, now_ms=NOW_MS + 1000) == []


class TestProof:
    token = SIGNER.token(claims(phone=PHONE))

    def test_raw_and_der(self):
        assert reasons(self.token, proof_header=proof(PHONE, "GET", "/api/orders")) == []
        assert reasons(self.token, proof_header=proof(PHONE, "GET", "/api/orders", der=True)) == []

    @pytest.mark.parametrize("t, ok", [(NOW_MS - 120_000, True), (NOW_MS - 120_001, False), (NOW_MS + 10_000, True),
                                       (NOW_MS + 10_001, False)])
    def test_window(self, t, ok):
        got = reasons(self.token, proof_header=proof(PHONE, "GET", "/api/orders", t=t))
        assert got == ([] if ok else ["session:proof"])

    @pytest.mark.parametrize("header", [
        None, "", "t=,s=", "s=AA,t=1", "t=01,s=AA", "t=1,s=AA,", "t=1,s=AA,x", " t=1,s=AA", "t=1 ,s=AA", "T=1,s=AA",
        "t=1234567890123456,s=AA", "t=-1,s=AA", "t=1.5,s=AA", "t=\u0661,s=AA", "t=1,s=", "t=1,s=A", "t=1,S=AA",
    ])
    def test_unreadable_headers(self, header):
        assert reasons(self.token, proof_header=header) == ["session:proof"]

    def test_signature_shape(self):
        good = proof(PHONE, "GET", "/api/orders")
        t, s = good.split(",")
        sig = b64url_decode(s[2:])
        assert reasons(self.token, proof_header=f"{t},s={b64(sig[:63])}") == ["session:proof"]
        assert reasons(self.token, proof_header=f"{t},s={b64(sig + b'x')}") == ["session:proof"]
        assert reasons(self.token, proof_header=f"{t},s={b64(b'0' * 72)}") == ["session:proof"]
        # A DER signature with trailing bytes, or over 72 bytes, is refused (OpenSSL checks the DER is exact).
        der = proof(PHONE, "GET", "/api/orders", der=True).split(",s=")[1]
        assert reasons(self.token, proof_header=f"{t},s={b64(b64url_decode(der) + b'00')}") == ["session:proof"]
        assert reasons(self.token, proof_header=good + "=") == ["session:proof"]
        assert reasons(self.token, proof_header=good.encode()) == []
        assert reasons(self.token, proof_header="t=1,s=" + "A" * 600) == ["session:proof"]

    def test_the_proof_covers_method_and_path_as_sent(self):
        header = proof(PHONE, "POST", "/api/pay%6Dents?a=1&b=%20")
        assert reasons(self.token, proof_header=header, method="POST", path="/api/pay%6Dents?a=1&b=%20") == []
        assert reasons(self.token, proof_header=header, method="POST", path="/api/payments?a=1&b=%20") == ["session:proof"]
        assert reasons(self.token, proof_header=header, method="post", path="/api/pay%6Dents?a=1&b=%20") == ["session:proof"]
        header = proof(PHONE, "GET", "/caf\u00e9")
        assert reasons(self.token, proof_header=header, path="/caf\u00e9") == []
        assert reasons(self.token, proof_header=header, path="/caf\u00e9".encode()) == []

    def test_an_unbound_receipt_ignores_the_proof(self):
        assert reasons(SIGNER.token(claims()), proof_header="garbage") == []

    def test_verify_request_proof(self):
        jwk = public_jwk(PHONE)
        header = proof(PHONE, "GET", "/x")
        assert verify_request_proof(header, jwk=jwk, method="GET", path_and_query="/x", now_ms=NOW_MS)
        assert verify_request_proof(header, jwk=PublicJWK.from_json(jwk), method="GET", path_and_query="/x", now_ms=NOW_MS)
        assert not verify_request_proof(header, jwk=jwk, method="GET", path_and_query="/y", now_ms=NOW_MS)
        assert not verify_request_proof(header, jwk=jwk, method="GET", path_and_query="/x", now_ms=NOW_MS + 120_001)
        assert not verify_request_proof(None, jwk=jwk, method="GET", path_and_query="/x", now_ms=NOW_MS)
        assert not verify_request_proof(12, jwk=jwk, method="GET", path_and_query="/x", now_ms=NOW_MS)
        with pytest.raises(ReceiptError):
            verify_request_proof(header, jwk={"kty": "EC"}, method="GET", path_and_query="/x")


class TestPolicy:
    def test_order_and_debug(self):
        debug = SIGNER.token(claims(att={"provider": "debug", "status": "verified"}))
        attested = SIGNER.token(claims(att={"provider": "app-attest", "status": "verified"}, phone=PHONE))
        p = proof(PHONE, "GET", "/api/orders")
        strict = ReceiptPolicy(bound=True, attestation="verified")
        assert reasons(debug, policy=strict) == ["unbound", "unattested"]
        assert reasons(debug, policy=ReceiptPolicy(attestation="verified", debug=True)) == []
        assert reasons(debug, policy=ReceiptPolicy(debug=True)) == []
        assert reasons(attested, policy=strict, proof_header=p) == []
        assert reasons(attested, policy=strict) == ["session:proof"]
        rejected = SIGNER.token(claims(att={"provider": "app-attest", "status": "rejected"}))
        assert reasons(rejected, policy=ReceiptPolicy(attestation="verified")) == ["unattested"]

    def test_values_checked(self):
        with pytest.raises(ValueError):
            ReceiptPolicy(attestation="yes")
        with pytest.raises(ValueError):
            ReceiptPolicy(bound=1)
        assert ReceiptPolicy.from_json({"bound": True, "attestation": None}) == ReceiptPolicy(bound=True)
        assert ReceiptPolicy.from_json(None) == ReceiptPolicy()
        for bad, pointer in [({"bound": 1}, "/require/bound"), ({"attestation": "x"}, "/require/attestation"),
                             ({"debug": "y"}, "/require/debug"), ({"other": 1}, "/require/other"), ([], "/require")]:
            with pytest.raises(ValueError, match=pointer):
                ReceiptPolicy.from_json(bad)
        assert ReceiptPolicy(bound=True, attestation="verified", debug=True).to_json() == {
            "bound": True, "attestation": "verified", "debug": True}
        assert ReceiptPolicy().to_json() == {}


def test_verification_fields():
    att = {"provider": "play-integrity", "status": "verified"}
    v = check(SIGNER.token(claims(att=att, plat="android", action="challenge", sub="req_1")))
    assert v.valid and v.reasons == [] and v.action == "challenge" and v.platform == "android" and not v.bound
    assert v.subject == "req_1" and v.environment == ENV and v.attestation == att and v.expires_at == NOW + 540
    assert v.to_json()["valid"] is True
    v.claims["sub"] = "changed"  # the caller's copy: the remembered claims stay
    assert check(SIGNER.token(claims(att=att, plat="android", action="challenge", sub="req_1"))).subject == "req_1"
    bad = check("x.y.z")
    assert not bad.valid and bad.claims is None and bad.action is None and bad.bound is False and bad.platform is None
    assert isinstance(bad, Verification) and "valid=False" in repr(bad)


class TestJWKS:
    def test_reader(self):
        good = SIGNER.jwk()
        JWKS.parse({"keys": []})
        JWKS.parse(json.dumps({"keys": [good], "other": 1}))
        for bad in [{"keys": {}}, {}, {"keys": [dict(good, kid=None)]}, {"keys": [{k: v for k, v in good.items() if k != "kid"}]},
                    {"keys": [good, good]}, {"keys": [dict(good, d="AA")]}, {"keys": [dict(good, use="enc")]},
                    {"keys": [Signer(f"k{i}").jwk() for i in range(33)]}, {"keys": [dict(good, x="AA")]}, []]:
            with pytest.raises(ReceiptError):
                JWKS.parse(bad)
        JWKS.parse({"keys": [Signer(f"k{i}").jwk() for i in range(32)]})
        with pytest.raises(ReceiptError):
            JWKS.parse('{"keys": [], "keys": []}')
        with pytest.raises(ReceiptError):
            JWKS.parse('{"keys": []' + " " * 65_536 + "}")
        with pytest.raises(TypeError):
            check(SIGNER.token(claims()), keys=12)

    def test_a_point_off_the_curve_is_refused(self):
        jwk = dict(SIGNER.jwk(), y=b64((int.from_bytes(b64url_decode(SIGNER.jwk()["y"]), "big") ^ 1).to_bytes(32, "big")))
        with pytest.raises(ReceiptError, match="not on P-256"):
            JWKS.parse({"keys": [jwk]})
        p = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
        with pytest.raises(ReceiptError):
            JWKS.parse({"keys": [dict(SIGNER.jwk(), x=b64(p.to_bytes(32, "big")))]})

    def test_a_receipt_signed_by_a_key_that_left_the_set_is_refused(self):
        token = SIGNER.token(claims())
        keys = JWKS.parse(KEYS)
        assert check(token, keys=keys).valid
        other = Signer(kid=SIGNER.kid)
        assert check(token, keys=jwks(other)).reasons == ["signatureInvalid"]
        assert check(token, keys=keys).valid
