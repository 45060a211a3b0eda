"""What the edge tests (edge_proxies.py and its modules) share: the checks' tally, free ports, waiting for a state
with a bound, stopping processes, raw HTTP requests over a socket (http.client normalizes what it sends), and the
blocks of docs/enforcement.md the proxies are configured with."""
import http.client
import os
import re
import signal
import socket
import subprocess
import time

from api_schema import ROOT

DOC = os.path.join(ROOT, "docs", "enforcement.md")
# EDGE_VERBOSE=1 prints every check that passed too (each walk-around label carries the status the client got).
VERBOSE = bool(os.environ.get("EDGE_VERBOSE"))
GATEHOUSE_HEADERS = ["Gatehouse-Outcome", "Gatehouse-Route", "Gatehouse-Receipt", "Gatehouse-Platform", "Gatehouse-Attestation"]


class Checks:
    """Collects the outcome of every check; a failure is printed at once and the run goes on."""

    def __init__(self):
        self.passed = 0
        self.failed = []

    def expect(self, condition, label, detail=""):
        if condition:
            self.passed += 1
            if VERBOSE:
                print(f"ok   {label}", flush=True)
        else:
            self.failed.append(label)
            print(f"FAIL {label}" + (f": {detail}" if detail else ""), flush=True)
        return condition

    def equal(self, got, expected, label):
        return self.expect(got == expected, label, f"expected {expected!r}, got {got!r}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-4000:]
    except OSError:
        return ""


def wait_for_port(port, process, name, log, seconds=15):
    """Bounded polling until `port` accepts a connection; fails early when the process has exited."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{name} exited with {process.returncode}:\n{read(log)}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{name} did not listen on 127.0.0.1:{port} within {seconds} s:\n{read(log)}")


def wait_until(predicate, seconds=10, step=0.05):
    """Polls `predicate` until it returns something true or `seconds` pass; returns its last value."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(step)


def stop(process, name, sig=signal.SIGTERM, seconds=10):
    """Signals `process` and waits for it; kills it past `seconds`. Returns its exit status (None if killed)."""
    if process is None or process.poll() is not None:
        return None if process is None else process.returncode
    process.send_signal(sig)
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        print(f"{name} did not stop within {seconds} s: killed", flush=True)
        process.kill()
        process.wait()
        return None


def get(port, path, headers=None):
    """GET `path` exactly as given (no re-encoding) → (status, {lower-case name: value}, body bytes)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def raw(port, method, target, headers=(), body=b"", host=None):
    """One request written byte for byte on a new connection (`method` and `target` as given: lower case, `#`, `\\`,
    `;` and absolute form untouched; `headers` a list of (name, value) pairs, str or bytes), then its answer read to
    the end: (status or None when the connection closed without one, {lower-case name: value}, body bytes)."""
    def b(x):
        return x if isinstance(x, bytes) else x.encode("latin-1")
    lines = [b(method) + b" " + b(target) + b" HTTP/1.1", b"Host: " + b(host or f"127.0.0.1:{port}")]
    lines += [b(name) + b": " + b(value) for name, value in headers]
    if body or method.upper() in ("POST", "PUT", "PATCH"):
        lines.append(b"Content-Length: " + str(len(body)).encode())
    lines.append(b"Connection: close")
    request = b"\r\n".join(lines) + b"\r\n\r\n" + body
    with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
        s.sendall(request)
        chunks = []
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except ConnectionResetError:
            pass
    answer = b"".join(chunks)
    head, _, rest = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.split(b"\r\n")
    parts = status_line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
        return None, {}, answer
    response_headers = {}
    for line in header_lines:
        name, _, value = line.partition(b":")
        response_headers[name.decode("latin-1").strip().lower()] = value.decode("latin-1").strip()
    return int(parts[1]), response_headers, rest


def doc_snippet(name):
    """The fenced block that follows `<!-- edge_proxies.py: NAME -->` in docs/enforcement.md."""
    text = open(DOC).read()
    match = re.search(r"<!-- edge_proxies\.py: " + re.escape(name) + r" -->\s*```[a-z]*\n(.*?)\n```", text, re.S)
    if not match:
        raise SystemExit(f"{DOC}: no block marked <!-- edge_proxies.py: {name} -->")
    return match.group(1)


def substitute(text, replacements, name):
    for old, new in replacements:
        if old not in text:
            raise SystemExit(f"the {name} block of {DOC} no longer contains {old!r}: update edge_proxies.py with it")
        text = text.replace(old, new)
    return text
