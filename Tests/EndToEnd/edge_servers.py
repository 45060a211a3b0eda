"""The processes of the edge tests: Debian's nginx and Caddy configured with the blocks of docs/enforcement.md (only
addresses, ports and the secret key replaced), the small echo API the first checks use, and a fake check that answers
what it is told (a status, or a reset connection) for the fail-open variant's checks."""
import http.server
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import threading

from edge_support import GATEHOUSE_HEADERS, doc_snippet, free_port, stop, substitute, wait_for_port


class Upstream(http.server.ThreadingHTTPServer):
    """The API behind the proxies: records the Gatehouse-* headers of every call and answers them as JSON."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), UpstreamHandler)
        self.calls = []
        self.lock = threading.Lock()

    def count(self):
        with self.lock:
            return len(self.calls)


class UpstreamHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        received = {name: self.headers.get(name) for name in GATEHOUSE_HEADERS}
        with self.server.lock:
            self.server.calls.append({"path": self.path, "headers": received})
        body = json.dumps({"upstream": True, "path": self.path, "headers": received}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class FakeCheck:
    """A stand-in for Gatehouse's check endpoint on a free port: the original call's target (X-Original-URI, or
    X-Forwarded-Uri) names the answer: `/status/NNN…` answers NNN with a problem body, `/reset…` resets the
    connection after reading the request. Anything else answers 204."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port = self.socket.getsockname()[1]
        self.closed = False
        threading.Thread(target=self.accept, daemon=True).start()

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def accept(self):
        while not self.closed:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            threading.Thread(target=self.answer, args=(connection,), daemon=True).start()

    def answer(self, connection):
        with connection:
            connection.settimeout(10)
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    data += chunk
            except OSError:
                return
            target = b""
            for line in data.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() in (b"x-original-uri", b"x-forwarded-uri"):
                    target = value.strip()
            if target.startswith(b"/reset"):
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                return
            status = int(target[8:11]) if target.startswith(b"/status/") and target[8:11].isdigit() else 204
            body = b"" if status == 204 else b'{"title":"fake","status":%d}' % status
            connection.sendall(b"HTTP/1.1 %d Fake\r\nContent-Type: application/problem+json\r\nContent-Length: %d\r\n"
                               b"Connection: close\r\n\r\n%s" % (status, len(body), body))

    def close(self):
        self.closed = True
        self.socket.close()


def nginx_config(directory, port, gatehouse, upstream, secret, block="nginx"):
    snippet = substitute(doc_snippet(block), [
        ("server 127.0.0.1:8080;", f"server {gatehouse};"),
        ("server 127.0.0.1:3000;", f"server {upstream};"),
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("sk_live_YOUR_SECRET_KEY", secret),
    ], block)
    temp = os.path.join(directory, "nginx-temp")
    paths = "\n".join(f"    {kind}_temp_path {temp}/{kind};" for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    indented = "\n".join("    " + line if line else "" for line in snippet.splitlines())
    return (f"# Written by Tests/EndToEnd/edge_servers.py around the {block} block of docs/enforcement.md.\n"
            f"worker_processes 1;\npid {directory}/nginx.pid;\nerror_log {directory}/nginx-error.log warn;\n"
            f"events {{ worker_connections 256; }}\nhttp {{\n    access_log off;\n{paths}\n{indented}\n}}\n")


def nginx_binary_path():
    return shutil.which("nginx") or "/usr/sbin/nginx"


def start_nginx(directory, gatehouse, upstream, secret, block="nginx"):
    """Debian's nginx on a free port of 127.0.0.1, configured with the `block` of docs/enforcement.md (see
    nginx_config) in front of `upstream` and asking `gatehouse` (both host:port) with `secret`; its files (nginx.conf,
    nginx-error.log, nginx.stderr, nginx-temp/) go to `directory`, which nginx's workers (nobody, when the master is
    root) must be able to traverse (mode 0711, and so must its parents). Returns (process, port) once it listens;
    stops it if it does not."""
    port = free_port()
    os.makedirs(os.path.join(directory, "nginx-temp"), exist_ok=True)
    conf = os.path.join(directory, "nginx.conf")
    with open(os.open(conf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(nginx_config(directory, port, gatehouse, upstream, secret, block))
    log = os.path.join(directory, "nginx-error.log")
    process = subprocess.Popen([nginx_binary_path(), "-p", directory, "-c", conf, "-e", log, "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, "nginx.stderr"), "w"))
    try:
        wait_for_port(port, process, "nginx", log)
    except BaseException:
        stop(process, "nginx", sig=signal.SIGQUIT)
        raise
    return process, port


def caddy_config(port, gatehouse, upstream, block="caddy"):
    snippet = substitute(doc_snippet(block), [
        ("api.example.com {", f"http://127.0.0.1:{port} {{"),
        ("forward_auth 127.0.0.1:8080 {", f"forward_auth {gatehouse} {{"),
        ("reverse_proxy 127.0.0.1:3000", f"reverse_proxy {upstream}"),
    ], block)
    return (f"# Written by Tests/EndToEnd/edge_servers.py around the {block} block of docs/enforcement.md.\n"
            "{\n\tadmin off\n\tauto_https off\n\tdefault_bind 127.0.0.1\n}\n" + snippet + "\n")


def start_caddy(directory, gatehouse, upstream, secret, block="caddy"):
    """Debian's Caddy on a free port of 127.0.0.1 with the `block` of docs/enforcement.md; its Caddyfile, caddy.log
    and state go to `directory`. Returns (process, port) once it listens."""
    os.makedirs(directory, exist_ok=True)
    port = free_port()
    caddyfile = os.path.join(directory, "Caddyfile")
    with open(caddyfile, "w") as f:
        f.write(caddy_config(port, gatehouse, upstream, block))
    log = os.path.join(directory, "caddy.log")
    env = dict(os.environ, HOME=directory, XDG_CONFIG_HOME=directory, XDG_DATA_HOME=directory, GATEHOUSE_EDGE_SECRET_KEY=secret)
    process = subprocess.Popen(["caddy", "run", "--config", caddyfile, "--adapter", "caddyfile"],
                               stdout=subprocess.DEVNULL, stderr=open(log, "w"), env=env)
    try:
        wait_for_port(port, process, "caddy", log)
    except BaseException:
        stop(process, "caddy")
        raise
    return process, port


class Proxy:
    """One proxy process in front of one API: its name (e.g. `nginx+express`), kind (`nginx`, `caddy`), whether it is a
    fail-open variant, its port and its process."""

    def __init__(self, name, kind, fail_open, process, port):
        self.name, self.kind, self.fail_open, self.process, self.port = name, kind, fail_open, process, port

    def stop(self):
        stop(self.process, self.name, sig=signal.SIGQUIT if self.kind == "nginx" else signal.SIGTERM)


def start_proxy(directory, kind, block, gatehouse, upstream, secret, name):
    """`kind` (nginx or caddy) with the `block` of the docs, in `directory`/`name`."""
    folder = os.path.join(directory, name)
    os.makedirs(folder, exist_ok=True)
    os.chmod(folder, 0o711)
    starter = start_nginx if kind == "nginx" else start_caddy
    process, port = starter(folder, gatehouse, upstream, secret, block=block)
    return Proxy(name, kind, block.endswith("fail-open"), process, port)
