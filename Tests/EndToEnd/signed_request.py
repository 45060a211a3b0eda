"""Signed device requests as the phone libraries build them (docs/device-api.md "Signed requests"): the one place the
Python tests (the API schema run, the browser tests) make the body of a POST /api/v4/assess."""
import base64
import hashlib
import hmac
import json
import os
import time


def b64url(data):
    """Base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def ios_assess_body(public_key, signed_fields, attestation=None):
    """The JSON body of an iOS assessment: `signed_fields` (a dict) serialized as `signed`, a fresh timestamp and
    nonce, the HMAC of the canonical text under the public key, and `attestation` when given."""
    signed = json.dumps(signed_fields)
    timestamp = int(time.time() * 1000)
    nonce = b64url(os.urandom(16))
    canonical = "\n".join(["gatehouse-v2", "ios", str(timestamp), nonce, "signed:" + hashlib.sha256(signed.encode()).hexdigest()])
    signature = b64url(hmac.new(public_key.encode(), canonical.encode(), hashlib.sha256).digest())
    body = {"apiKey": public_key, "platform": "ios", "request": {"timestamp": timestamp, "nonce": nonce, "signature": signature},
            "signed": signed}
    if attestation is not None:
        body["attestation"] = attestation
    return body
