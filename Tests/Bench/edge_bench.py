#!/usr/bin/env python3
"""The edge bench's preparation (Tests/Bench/edge-bench.sh serves and drives it with wrk), Python's standard library
and `openssl` only (no Swift product):

  edge_bench.py setup BASE DIR           an environment (management token in DIR/token.txt) whose enforcement enforces
                                         GET /api/bound/** (require bound) and GET /api/plain/**; a P-256 receipt key
                                         (DIR/key.pem); one bound and one unbound receipt (DIR/bound.txt,
                                         DIR/unbound.txt); the secret key (DIR/secret.txt) and public key (DIR/public.txt)
  edge_bench.py receipts BASE DIR N      N distinct bound receipts, one a line, in DIR/new.txt
  edge_bench.py proofs DIR N URI         N distinct request proofs for GET URI by DIR/key.pem, one a line, in
                                         DIR/proofs.txt (`t=<unix ms>,s=<base64url DER>`: good for 2 minutes)
  edge_bench.py nginx DIR GATEHOUSE UPSTREAM PLAIN CHECKED
                                         DIR/nginx.conf: the nginx block of docs/enforcement.md on port CHECKED in
                                         front of an upstream that nginx serves itself (`return 200`) on UPSTREAM, and
                                         the same upstream without the check on PLAIN
"""
import base64
import concurrent.futures
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "EndToEnd"))
from api_schema import V1, call  # noqa: E402
from edge_proxies import doc_snippet, substitute  # noqa: E402
from signed_request import b64url, ios_assess_body  # noqa: E402

ENFORCEMENT = {"mode": "enforce", "routes": [
    {"name": "bound", "match": "GET /api/bound/**", "require": {"bound": True}},
    {"name": "plain", "match": "GET /api/plain/**"}]}


def read(directory, name):
    with open(os.path.join(directory, name)) as f:
        return f.read().strip()


def write(directory, name, text):
    with open(os.path.join(directory, name), "w") as f:
        f.write(text)


class Assessor:
    """POST /api/v4/assess over one kept-alive connection per thread."""

    def __init__(self, base):
        self.address = urllib.parse.urlsplit(base).netloc
        self.local = threading.local()

    def receipt(self, public, receipt_key=None):
        signed = {"app": {"id": "com.example.yourapp"}, "device": {"id": "edge-bench"}}
        if receipt_key is not None:
            signed["receiptKey"] = receipt_key
        body = json.dumps(ios_assess_body(public, signed))
        for attempt in range(3):
            connection = getattr(self.local, "connection", None)
            if connection is None:
                connection = self.local.connection = http.client.HTTPConnection(self.address, timeout=30)
            try:
                connection.request("POST", "/api/v4/assess", body=body, headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                answer = response.read()
            except (OSError, http.client.HTTPException):
                connection.close()
                self.local.connection = None
                if attempt == 2:
                    raise
                continue
            if response.status != 200:
                raise SystemExit(f"POST /api/v4/assess: {response.status} {answer[:300]!r}")
            decoded = json.loads(answer)
            if receipt_key is not None and decoded.get("receiptBound") is not True:
                raise SystemExit(f"POST /api/v4/assess: the receipt is not bound: {answer[:300]!r}")
            return decoded["sessionToken"]


def receipt_key(directory):
    """DIR/key.pem (made when missing) and its public key as base64 SPKI DER."""
    key = os.path.join(directory, "key.pem")
    if not os.path.exists(key):
        subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key], check=True)
    der = subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER"], check=True, capture_output=True).stdout
    return base64.b64encode(der).decode()


def setup(base, directory):
    token = read(directory, "token.txt")
    _, environment = call(base, "POST", f"{V1}/environments", token, {"name": "Edge bench", "kind": "development"})
    secret = next(k["secret"] for k in environment["keys"] if k["type"] == "secret")
    public = next(k["value"] for k in environment["keys"] if k["type"] == "public")
    _, patched = call(base, "PATCH", f"{V1}/environments/{environment['id']}", token, {"enforcement": ENFORCEMENT})
    if (patched.get("enforcement") or {}).get("mode") != "enforce":
        raise SystemExit(f"PATCH enforcement not applied: {json.dumps(patched.get('enforcement'))}")
    assessor = Assessor(base)
    write(directory, "bound.txt", assessor.receipt(public, receipt_key(directory)) + "\n")
    write(directory, "unbound.txt", assessor.receipt(public) + "\n")
    write(directory, "secret.txt", secret)
    write(directory, "public.txt", public)
    write(directory, "environment.txt", environment["id"])


def receipts(base, directory, count):
    public, key = read(directory, "public.txt"), receipt_key(directory)
    assessor = Assessor(base)
    # Threads waiting on the server, so that group commit shares each sync of the spent nonces among many requests.
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        tokens = list(pool.map(lambda _: assessor.receipt(public, key), range(count), chunksize=64))
    if len(set(tokens)) != count:
        raise SystemExit("receipts: not all distinct")
    write(directory, "new.txt", "\n".join(tokens) + "\n")


def proofs(directory, count, uri):
    """`openssl dgst -sign` signs one message per process, so the messages are signed by as many processes at once
    as there are cores; each `t` is a millisecond apart (at most count ms ahead, well within the 10 s allowed)."""
    key = os.path.join(directory, "key.pem")
    start = int(time.time() * 1000)

    def sign(i):
        t = start + i
        message = f"{t}\nGET\n{uri}".encode()
        der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=message, check=True, capture_output=True).stdout
        return f"t={t},s={b64url(der)}"

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        lines = list(pool.map(sign, range(count)))
    write(directory, "proofs.txt", "\n".join(lines) + "\n")


def nginx(directory, gatehouse, upstream, plain, checked):
    snippet = substitute(doc_snippet("nginx"), [
        ("server 127.0.0.1:8080;", f"server 127.0.0.1:{gatehouse};"),
        ("server 127.0.0.1:3000;", f"server 127.0.0.1:{upstream};"),
        ("listen 80;", f"listen 127.0.0.1:{checked};"),
        ("sk_live_YOUR_SECRET_KEY", read(directory, "secret.txt")),
    ], "nginx")
    temp = os.path.join(directory, "nginx-temp")
    os.makedirs(temp, exist_ok=True)
    paths = "\n".join(f"    {kind}_temp_path {temp}/{kind};" for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    indented = "\n".join("    " + line if line else "" for line in snippet.splitlines())
    write(directory, "nginx.conf", f"""# Written by Tests/Bench/edge_bench.py around the nginx block of docs/enforcement.md.
worker_processes auto;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
{paths}
    # The API: nginx itself.
    server {{
        listen 127.0.0.1:{upstream};
        location / {{ return 200 "ok\\n"; }}
    }}
    # nginx alone in front of it, through the same upstream block as the checked server.
    server {{
        listen 127.0.0.1:{plain};
        location / {{
            proxy_set_header Host $host;
            proxy_pass http://api;
        }}
    }}
{indented}
}}
""")


def main():
    command, arguments = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "setup" and len(arguments) == 2:
        setup(*arguments)
    elif command == "receipts" and len(arguments) == 3:
        receipts(arguments[0], arguments[1], int(arguments[2]))
    elif command == "proofs" and len(arguments) == 3:
        proofs(arguments[0], int(arguments[1]), arguments[2])
    elif command == "nginx" and len(arguments) == 5:
        nginx(*arguments)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
