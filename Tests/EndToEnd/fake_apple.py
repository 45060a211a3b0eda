"""A fake Apple App Attest receipt-refresh service ("attestationData") over TLS, for the end-to-end tests.

Usage: python3 fake_apple.py TLS_CERT.pem TLS_KEY.pem SIGNER_CERT.pem SIGNER_KEY.pem CHAIN.pem
  -> serves HTTPS on 127.0.0.1, a free port, printed on stdout. SIGNER_* sign the new receipts (CMS SignedData) and
  CHAIN.pem holds the intermediate(s) they include. Needs the openssl command-line tool (temporary files in one
  directory per process).

Endpoints (everything received but GET /_received is recorded and listed by GET /_received):
  POST /_configure  {"keyId": "ABC123DEFG", "teamId": "ABCDE12345", "publicKey": "<PEM SPKI of the DeviceCheck key>",
       "now": <unix seconds, optional>}  replaces the configuration; "now", when given, is the clock of the iat check
       and of the new receipts' times (else real time)
  POST /_answers  {"answers": [{"status": 200, "riskMetric": 7, "signedAttributes": false, "delay": 0, "hold": false}, {"status": 304}]}
       appends to a FIFO queue of answers ({"status": 200, "riskMetric": 1} when it is empty); {"reset": true} empties it
  POST /v1/attestationData  Apple's receipt refresh: the body is the base64 of a receipt (white space ignored), header
       "Authorization: <JWT>" (no "Bearer "). 401 "Unauthorized" unless the JWT is three base64url parts, header alg
       "ES256" and kid == keyId, claims iss == teamId and an integer iat within 3600 s of now, its raw R||S signature
       verified with publicKey; then 400 "Bad Payload" unless the body is a CMS whose content (signature checked, chain
       not) is a DER SET OF SEQUENCE {type INTEGER, version INTEGER, value OCTET STRING} with fields 2 (app id) and 3
       (leaf certificate). Only then is the next answer taken (refusals consume none): it waits "delay" seconds; 200
       answers (Content-Type: base64) a new receipt: 2, 3 and 7 (environment, default "production") copied, 4 32
       random bytes, 5 base64 of 64 random bytes, 6 "RECEIPT", 12 now, 17 riskMetric, 19 now + 24 h, 21 now + 90 days
       (RFC 3339 with milliseconds), signed with no signed attributes unless "signedAttributes" is true; 304 answers
       an empty body, 404 "No Data Found", any other status its reason phrase.
  GET  /_held, POST /_release  answers planned with "hold": true wait until /_release; /_held counts those that came
  GET  /_received  the records, oldest first: {"method", "path", "headers" (lower-case names), "body", "status" (what was
       answered), "appId" (field 2 of the posted receipt), "keyIdHex" (hex SHA-256 of the X9.62 point of field 3's
       public key: the App Attest key id), "receiptType" (field 6)}, the last three null when not read
"""
import base64
import hashlib
import json
import os
import re
import secrets
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

lock = threading.Lock()
received = []
answers = []
config = {}
signer = {}
workdir = tempfile.mkdtemp(prefix="gatehouse-fake-apple-")
TEXTS = {400: "Bad Payload", 401: "Unauthorized", 404: "No Data Found"}
PHRASES = {s.value: s.phrase for s in HTTPStatus}


def der(tag, content):
    """One DER element (single-byte tag, definite length)."""
    n = len(content)
    size = (n.bit_length() + 7) // 8
    length = bytes([n]) if n < 0x80 else bytes([0x80 | size]) + n.to_bytes(size, "big")
    return bytes([tag]) + length + content


def der_int(value):
    return der(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big", signed=True))


def tlv(data, pos):
    """The (tag, content, next position) of the DER element at pos."""
    tag, n = data[pos], data[pos + 1]
    pos += 2
    if tag & 0x1F == 0x1F:
        raise ValueError("high tag number")
    if n & 0x80:
        if not 0 < n & 0x7F <= 4:
            raise ValueError("length")
        n, pos = int.from_bytes(data[pos:pos + (n & 0x7F)], "big"), pos + (n & 0x7F)
    if pos + n > len(data):
        raise ValueError("truncated")
    return tag, data[pos:pos + n], pos + n


def children(data):
    out, pos = [], 0
    while pos < len(data):
        tag, content, pos = tlv(data, pos)
        out.append((tag, content))
    return out


def only(data, tag):
    """The content of data, which must be exactly one element with this tag."""
    found, content, end = tlv(data, 0)
    if found != tag or end != len(data):
        raise ValueError("unexpected element")
    return content


def receipt_fields(content):
    """{type: value bytes} of a receipt's content, a SET OF SEQUENCE {type INTEGER, version INTEGER, value OCTET STRING}."""
    fields = {}
    for tag, entry in children(only(content, 0x31)):
        parts = children(entry)
        if tag != 0x30 or [t for t, _ in parts] != [0x02, 0x02, 0x04]:
            raise ValueError("not a receipt attribute")
        fields[int.from_bytes(parts[0][1], "big", signed=True)] = parts[2][1]
    return fields


def receipt_content(fields):
    # DER sorts a SET OF by the elements' encodings.
    return der(0x31, b"".join(sorted(der(0x30, der_int(t) + der_int(1) + der(0x04, v)) for t, v in fields.items())))


def key_id_hex(certificate):
    """Hex SHA-256 of the certificate's 65-byte X9.62 EC point (the App Attest key id), or None."""
    try:
        tbs = children(children(only(certificate, 0x30))[0][1])
        spki = tbs[6 if tbs[0][0] == 0xA0 else 5][1]
        point = children(spki)[1][1][1:]
        return hashlib.sha256(point).hexdigest() if len(point) == 65 and point[0] == 4 else None
    except (ValueError, IndexError):
        return None


def rfc3339(t):
    ms = int(round(t * 1000))
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def openssl(*args):
    """Runs openssl; the failure's text, or None on success."""
    done = subprocess.run(["openssl", *args], stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    return None if done.returncode == 0 else (done.stderr.decode("utf-8", "replace").strip() or "openssl failed")


def write(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "wb") as file:
        file.write(data)
    return path


def read(path):
    with open(path, "rb") as file:
        return file.read()


def jwt_accepted(authorization, cfg, now, folder):
    if not authorization or authorization.startswith("Bearer ") or "keyId" not in cfg:
        return False
    parts = authorization.split(".")
    if len(parts) != 3 or not all(re.fullmatch(r"[A-Za-z0-9_-]+", p) for p in parts):
        return False
    header, claims, signature = (base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)) for p in parts)
    header, claims = json.loads(header), json.loads(claims)
    iat = claims.get("iat")
    if header.get("alg") != "ES256" or header.get("kid") != cfg["keyId"] or claims.get("iss") != cfg["teamId"]:
        return False
    if type(iat) is not int or abs(iat - now) > 3600 or len(signature) != 64:
        return False
    # JOSE's raw R||S becomes DER ECDSA-Sig-Value for openssl.
    sig = der(0x30, der_int(int.from_bytes(signature[:32], "big")) + der_int(int.from_bytes(signature[32:], "big")))
    return openssl("dgst", "-sha256", "-verify", write(folder, "jwt.pub", cfg["publicKey"].encode()),
                   "-signature", write(folder, "jwt.sig", sig), write(folder, "jwt.data", (parts[0] + "." + parts[1]).encode())) is None


def posted_receipt(body, folder):
    """The fields of the posted receipt (base64 of a CMS), or None."""
    try:
        text = re.sub(rb"\s", b"", body)
        receipt = base64.b64decode(text + b"=" * (-len(text) % 4), validate=True)
        out = os.path.join(folder, "old.content")
        if not receipt or openssl("cms", "-verify", "-noverify", "-inform", "DER", "-binary",
                                  "-in", write(folder, "old.der", receipt), "-out", out):
            return None
        fields = receipt_fields(read(out))
        return fields if 2 in fields and 3 in fields else None
    except Exception:
        return None


def new_receipt(old, plan, now, folder):
    """The DER of a signed RECEIPT refreshing old's fields; raises RuntimeError when openssl fails."""
    content = receipt_content({
        2: old[2], 3: old[3], 4: secrets.token_bytes(32), 5: base64.b64encode(secrets.token_bytes(64)),
        6: b"RECEIPT", 7: old.get(7, b"production"), 12: rfc3339(now).encode(),
        17: str(plan.get("riskMetric", 1)).encode(), 19: rfc3339(now + 86400).encode(), 21: rfc3339(now + 90 * 86400).encode()})
    out = os.path.join(folder, "new.der")
    failure = openssl("cms", "-sign", "-binary", "-nodetach", "-outform", "DER", "-md", "sha256",
                      "-signer", signer["cert"], "-inkey", signer["key"], "-certfile", signer["chain"],
                      *([] if plan.get("signedAttributes") else ["-noattr"]),
                      "-in", write(folder, "new.content", content), "-out", out)
    if failure:
        raise RuntimeError(failure)
    return read(out)


# Answers planned with "hold": true wait until POST /_release (GET /_held counts them): a test holds Apple's answers
# until every call it expects is in flight.
holding = [0]
released = threading.Event()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    record = None

    def log_message(self, *args):
        pass

    def setup(self):
        # The TLS handshake runs here, on the request's thread, not in the accepting loop.
        self.request.do_handshake()
        super().setup()

    def answer(self, status, body, content_type="text/plain"):
        data = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body)).encode()
        if self.record is not None:
            self.record["status"] = status
            with lock:
                received.append(self.record)
        bodyless = status < 200 or status in (204, 304)
        self.send_response(status)
        if not bodyless:
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Fake", "apple")
        self.end_headers()
        if not bodyless:
            self.wfile.write(data)

    def read_body(self):
        # Gatehouse's libcurl client always sends a Content-Length: a chunked body is refused (400), not read.
        if self.headers.get("Transfer-Encoding"):
            raise ValueError("Transfer-Encoding")
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError("negative Content-Length")
        return self.rfile.read(length)

    def handle_any(self):
        path = urlsplit(self.path).path
        self.record = None  # the handler serves every request of a kept-alive connection
        try:
            body = self.read_body()
        except ValueError:
            self.close_connection = True
            return self.answer(400, TEXTS[400])
        if path != "/_received":
            self.record = {"method": self.command, "path": path,
                           "headers": {k.lower(): v for k, v in self.headers.items()},
                           "body": body.decode("utf-8", "replace"), "status": None,
                           "appId": None, "keyIdHex": None, "receiptType": None}
        if path == "/_received" and self.command == "GET":
            with lock:
                records = list(received)
            return self.answer(200, records, "application/json")
        if path == "/_configure" and self.command == "POST":
            try:
                given = json.loads(body)
                new = {k: given[k] for k in ("keyId", "teamId", "publicKey")}
                if not all(isinstance(v, str) for v in new.values()):
                    raise ValueError("keyId, teamId and publicKey are strings")
                if given.get("now") is not None:
                    new["now"] = float(given["now"])
            except Exception as error:
                return self.answer(400, "bad configuration: %r" % error)
            with lock:
                config.clear()
                config.update(new)
            return self.answer(200, {"configured": True}, "application/json")
        if path == "/_answers" and self.command == "POST":
            try:
                given = json.loads(body)
                more = given.get("answers", [])
                if not isinstance(more, list) or not all(isinstance(a, dict) for a in more):
                    raise ValueError("answers is a list of objects")
                more = [dict(a, status=int(a.get("status", 200)), delay=float(a.get("delay", 0))) for a in more]
                if not all(200 <= a["status"] <= 599 and a["delay"] >= 0 for a in more):
                    raise ValueError("status is 200…599 and delay at least 0")
            except Exception as error:
                return self.answer(400, "bad answers: %r" % error)
            with lock:
                if given.get("reset"):
                    answers.clear()
                answers.extend(more)
                queued = len(answers)
            return self.answer(200, {"queued": queued}, "application/json")
        if path == "/_held" and self.command == "GET":
            with lock:
                count = holding[0]
            return self.answer(200, {"held": count}, "application/json")
        if path == "/_release" and self.command == "POST":
            released.set()
            return self.answer(200, {"released": True}, "application/json")
        if path == "/v1/attestationData" and self.command == "POST":
            return self.refresh(body)
        return self.answer(404, "not found")

    def refresh(self, body):
        folder = tempfile.mkdtemp(dir=workdir)
        with lock:
            cfg = dict(config)
        now = cfg["now"] if "now" in cfg else time.time()
        fields = posted_receipt(body, folder)
        if fields:
            self.record.update(appId=fields[2].decode("utf-8", "replace"), keyIdHex=key_id_hex(fields[3]),
                               receiptType=fields[6].decode("utf-8", "replace") if 6 in fields else None)
        try:
            accepted = jwt_accepted(self.headers.get("Authorization", ""), cfg, now, folder)
        except Exception:
            accepted = False
        if not accepted:
            return self.answer(401, TEXTS[401])
        if not fields:
            return self.answer(400, TEXTS[400])
        with lock:
            plan = answers.pop(0) if answers else {"status": 200, "riskMetric": 1}
            if plan.get("hold"):
                holding[0] += 1
        if plan.get("hold"):
            released.wait(60)
        if plan.get("delay"):
            time.sleep(plan["delay"])
        status = plan["status"]
        if status == 200:
            try:
                receipt = new_receipt(fields, plan, cfg["now"] if "now" in cfg else time.time(), folder)
            except Exception as error:
                return self.answer(500, "fake_apple could not sign: %s" % error)
            return self.answer(200, base64.b64encode(receipt), "base64")
        return self.answer(status, TEXTS.get(status) or PHRASES.get(status, "status %d" % status))

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # refused handshakes and dropped connections are expected in the tests


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: python3 fake_apple.py TLS_CERT.pem TLS_KEY.pem SIGNER_CERT.pem SIGNER_KEY.pem CHAIN.pem")
    signer.update(cert=sys.argv[3], key=sys.argv[4], chain=sys.argv[5])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    server = Server(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
