"""A fake Google over TLS for the HTTPClient and Play Integrity decoder tests.

Usage: python3 fake_google.py CERT.pem KEY.pem  -> serves HTTPS on 127.0.0.1, a free port, printed on stdout.

Endpoints (everything received is recorded and listed by GET /_received):
  POST /token[?status=N][&delay=S][&expires_in=N]   OAuth token endpoint: an access token "fake-access-N"
  POST /v1/{package}:decodeIntegrityToken          needs "Authorization: Bearer <an issued token>" (else 401);
       the integrity token chooses the answer: "status:N[.…]" answers N, "delay:S[/…]" waits S seconds, "payload:B64URL"
       answers that JSON as the payload (each also wrapped as a compact JWE whose header says "fake": true and whose
       second part is the base64url of the instruction, as Gatehouse sends only JWE-shaped tokens), anything else
       decodes to {"tokenPayloadExternal": {...}} echoing the token and the package
  GET  /hello, /bytes?count=N, /stream?count=N (no Content-Length), /slow?delay=S, /hold (until POST /release), /echo (method, headers, body as JSON)
"""
import base64
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

lock = threading.Lock()
received = []
issued = set()
released = threading.Event()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        # The TLS handshake runs here, on the request's thread, not in the accepting loop.
        self.request.do_handshake()
        super().setup()

    def answer(self, status, body, content_type="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Fake", "google")
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        record = {"method": self.command, "path": url.path, "query": url.query,
                  "headers": {k.lower(): v for k, v in self.headers.items()},
                  "body": body.decode("utf-8", "replace")}
        if url.path != "/_received":
            with lock:
                received.append(record)
        if "delay" in query:
            time.sleep(float(query["delay"]))
        if url.path == "/_received":
            with lock:
                return self.answer(200, list(received))
        if url.path == "/token":
            if "status" in query:
                return self.answer(int(query["status"]), {"error": "invalid_grant", "error_description": "fake refusal"})
            with lock:
                token = "fake-access-%d" % (len(issued) + 1)
                issued.add(token)
            return self.answer(200, {"access_token": token, "token_type": "Bearer",
                                     "expires_in": int(query.get("expires_in", "3599"))})
        if url.path.startswith("/v1/") and url.path.endswith(":decodeIntegrityToken"):
            package = url.path[len("/v1/"):-len(":decodeIntegrityToken")]
            bearer = self.headers.get("Authorization", "")
            with lock:
                known = bearer.startswith("Bearer ") and bearer[len("Bearer "):] in issued
            if not known:
                return self.answer(401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}})
            token = json.loads(body or b"{}").get("integrityToken", "")
            parts = token.split(".")
            if len(parts) == 5:
                try:
                    if json.loads(base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4))).get("fake"):
                        token = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)).decode()
                except ValueError:
                    pass
            if token.startswith("status:"):
                # "status:N", or "status:N.anything" (a token shaped like a JWE that Google refuses).
                return self.answer(int(token[len("status:"):].split(".")[0]), {"error": {"message": "fake"}})
            if token.startswith("payload:"):
                # The test chose the whole verdict payload: base64url (no padding) of its JSON.
                encoded = token[len("payload:"):]
                payload = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
                return self.answer(200, {"tokenPayloadExternal": payload})
            if token.startswith("delay:"):
                # "delay:S", or "delay:S/anything" (distinct tokens that wait alike).
                time.sleep(float(token[len("delay:"):].split("/")[0]))
            return self.answer(200, {"tokenPayloadExternal": {
                "requestDetails": {"requestPackageName": package, "requestHash": token, "timestampMillis": "1700000000000"},
                "appIntegrity": {"appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": package},
                "deviceIntegrity": {"deviceRecognitionVerdict": ["MEETS_DEVICE_INTEGRITY"]}}})
        if url.path == "/hello":
            return self.answer(200, b"hello", "text/plain")
        if url.path == "/bytes":
            return self.answer(200, b"x" * int(query.get("count", "0")), "application/octet-stream")
        if url.path == "/stream":
            # No Content-Length: the body ends when the connection closes.
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"y" * int(query.get("count", "0")))
            self.close_connection = True
            return
        if url.path == "/slow":
            return self.answer(200, b"slow", "text/plain")
        if url.path == "/hold":
            released.wait(30)
            return self.answer(200, b"held", "text/plain")
        if url.path == "/release":
            released.set()
            return self.answer(200, b"released", "text/plain")
        if url.path == "/echo":
            return self.answer(200, record)
        return self.answer(404, {"error": "not found"})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # refused handshakes (the client tests' unknown CA, wrong host name) are expected


def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    server = Server(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
