"""An Android phone for the edge tests: receipts that meet `require: {bound: true, attestation: "verified"}`.

Gatehouse decodes Play Integrity tokens with an environment's local keys (`playIntegrity.local`); this module makes
such keys, mints tokens as Google does (a JWE A256KW/A256GCM around an ES256 JWS, the verdict payload of
Sources/Simulator/PlayIntegrityPayloadTemplate.swift: Play-recognized, device integrity, licensed) bound to the
signed request, and keeps the receipt key, so that it can sign a proof (`antibot-pop`) for any method and path as a
phone (or an attacker holding the phone's key) would. Needs the `cryptography` package (the project's venv)."""
import base64
import hashlib
import hmac
import json
import os
import time
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.keywrap import aes_key_wrap

PACKAGE = "com.example.edge"
CERTIFICATE_DIGEST = hashlib.sha256(b"the edge test's signing certificate").digest()


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_signature(key, data):
    """ECDSA P-256/SHA-256 as raw R||S (JOSE's form)."""
    r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


class AndroidPhone:
    """Local Play Integrity keys (the app's, as Play Console shows them; the signing half is what Google holds)."""

    def __init__(self):
        self.decryption_key = os.urandom(32)
        self.signing_key = ec.generate_private_key(ec.SECP256R1())

    def environment_patch(self):
        """What to PATCH into the environment so that its tokens decode and its app is registered."""
        spki = self.signing_key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        return {"androidApps": [{"packageName": PACKAGE, "certificateDigests": [CERTIFICATE_DIGEST.hex().upper()]}],
                "playIntegrity": {"local": {"decryptionKey": base64.b64encode(self.decryption_key).decode(),
                                            "verificationKey": base64.b64encode(spki).decode()}}}

    def token(self, request_hash):
        now = int(time.time() * 1000)
        payload = {
            "requestDetails": {"requestPackageName": PACKAGE, "requestHash": request_hash, "timestampMillis": str(now)},
            "appIntegrity": {"appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": PACKAGE,
                             "certificateSha256Digest": [b64url(CERTIFICATE_DIGEST)], "versionCode": "42"},
            "deviceIntegrity": {"deviceRecognitionVerdict": ["MEETS_DEVICE_INTEGRITY"],
                                "recentDeviceActivity": {"deviceActivityLevel": "LEVEL_1"}, "deviceAttributes": {"sdkVersion": 34}},
            "accountDetails": {"appLicensingVerdict": "LICENSED"},
            "environmentDetails": {"playProtectVerdict": "NO_ISSUES", "appAccessRiskVerdict": {"appsDetected": ["KNOWN_INSTALLED"]}},
        }
        signing_input = b64url(b'{"alg":"ES256"}') + "." + b64url(json.dumps(payload).encode())
        jws = signing_input + "." + b64url(raw_signature(self.signing_key, signing_input.encode()))
        protected = b64url(b'{"alg":"A256KW","enc":"A256GCM"}')
        content_key, iv = os.urandom(32), os.urandom(12)
        sealed = AESGCM(content_key).encrypt(iv, jws.encode(), protected.encode())
        return ".".join([protected, b64url(aes_key_wrap(self.decryption_key, content_key)), b64url(iv),
                         b64url(sealed[:-16]), b64url(sealed[-16:])])

    def assess(self, base, public_key, bind=True, attest=True):
        """POST /api/v4/assess as the phone: → (the answer's JSON, the receipt key or None)."""
        receipt_key = ec.generate_private_key(ec.SECP256R1()) if bind else None
        signed_fields = {"app": {"id": PACKAGE, "signatureDigest": CERTIFICATE_DIGEST.hex()}, "device": {"id": "edge-phone"}}
        if receipt_key is not None:
            spki = receipt_key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
            signed_fields["receiptKey"] = base64.b64encode(spki).decode()
        signed = json.dumps(signed_fields)
        timestamp = int(time.time() * 1000)
        nonce = b64url(os.urandom(16))
        canonical = "\n".join(["gatehouse-v2", "android", str(timestamp), nonce, "signed:" + hashlib.sha256(signed.encode()).hexdigest()])
        body = {"apiKey": public_key, "platform": "android", "signed": signed,
                "request": {"timestamp": timestamp, "nonce": nonce,
                            "signature": b64url(hmac.new(public_key.encode(), canonical.encode(), hashlib.sha256).digest())}}
        if attest:
            body["attestation"] = {"provider": "play-integrity", "token": self.token(hashlib.sha256(canonical.encode()).hexdigest())}
        request = urllib.request.Request(base + "/api/v4/assess", data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read()), receipt_key


def proof(receipt_key, method, path_and_query):
    """The `antibot-pop` header: `t=<unix ms>,s=<base64url raw R||S>` over `<t>\\n<METHOD>\\n<pathAndQuery>`."""
    t = int(time.time() * 1000)
    message = f"{t}\n{method}\n{path_and_query}".encode("latin-1")
    return f"t={t},s={b64url(raw_signature(receipt_key, message))}"
