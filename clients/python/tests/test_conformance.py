"""The shared conformance vectors (Tests/Fixtures/receipts/conformance.json, written from Gatehouse's own signer by
`make receipt-vectors`): every case gives the Swift library's answer, and this library must give the same one."""
import json
import os

import pytest

from gatehouse_receipts import JWKS, ReceiptPolicy, verify_session_token

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VECTORS = os.environ.get("GATEHOUSE_RECEIPT_VECTORS", os.path.join(ROOT, "Tests", "Fixtures", "receipts", "conformance.json"))

with open(VECTORS, encoding="utf-8") as f:
    CASES = json.load(f)["cases"]


def policy_of(case):
    p = case["policy"]
    return None if p is None else ReceiptPolicy(bound=p["bound"], attestation=p["attestation"], debug=p["debug"])


def check(case, jwks):
    request = case["request"]
    return verify_session_token(case["token"], jwks=jwks, environment=case["environment"], method=request["method"],
                                path_and_query=request["pathAndQuery"], proof=request["proof"], policy=policy_of(case),
                                now_ms=case["nowMs"])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_vector(case):
    expected = case["expected"]
    # The JWKS as a dict, as its JSON text and read once: the same answer each way.
    for jwks in (case["jwks"], json.dumps(case["jwks"]), JWKS.parse(json.dumps(case["jwks"]))):
        got = check(case, jwks)
        assert got.valid is expected["valid"]
        assert got.reasons == expected["reasons"]
        assert got.claims == expected["claims"]
        if expected["claims"] is not None:
            assert got.action == expected["claims"]["action"]
            assert got.bound == ("cnf" in expected["claims"])
            assert got.platform == expected["claims"].get("plat")


def test_a_second_check_remembers_the_signature_and_answers_the_same():
    for case in CASES:
        keys = JWKS.parse(json.dumps(case["jwks"]))
        assert check(case, keys) == check(case, keys), case["name"]


def test_the_vectors_cover_what_the_issue_lists():
    reasons = {r for case in CASES for r in case["expected"]["reasons"]}
    assert {"malformed", "signatureInvalid", "expired", "wrongEnvironment", "session:proof", "unbound",
            "unattested"} <= reasons
    names = " ".join(case["name"] for case in CASES)
    for word in ["DER proof", "raw r||s", "challenge", "debug", "HS256", "alg none", "unknown kid"]:
        assert word in names, word
    assert len(CASES) >= 50
