"""The README's quickstarts, run as a team would run them: FastAPI, Flask and Django with guards on their handlers,
and the FastAPI and Flask route-table middlewares, under uvicorn and waitress against a real `gatehouse serve`, their
routes from GET /api/v4/edge/routes (the environment's, set through the management API), and stopped with SIGTERM
right after their calls: GET …/enforcement shows exactly the counts of those calls (the tests wait for states: the
app judging, the process exited, the counts arrived; never for a clock)."""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from conftest import INSTALLED, SRC
from gatehouse_server import Gatehouse, backend_counts, claims_of, now_ms, wait_for_backend_counts, gatehouse, require_binary
from helpers import proof, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(os.path.dirname(HERE), "README.md")

require_binary()


def quickstart(name):
    text = open(README).read()
    match = re.search(r"<!-- quickstart: " + re.escape(name) + r" -->\s*```python\n(.*?)\n```", text, re.S)
    assert match, f"README.md has no block marked <!-- quickstart: {name} -->"
    return match.group(1) + "\n"


DJANGO_SETTINGS = """
SECRET_KEY = "test-only-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
ROOT_URLCONF = "urls"
INSTALLED_APPS = []
MIDDLEWARE = []
DATABASES = {}
USE_TZ = True
"""


def uvicorn(port):
    return ["-m", "uvicorn", "app:app", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]


def waitress(application):
    return lambda port: ["-m", "waitress", "--host=127.0.0.1", f"--port={port}", application]


#: name → (the server's arguments for a port, {file: README block}).
QUICKSTARTS = {
    "fastapi": (uvicorn, {"app.py": "fastapi"}),
    "flask": (waitress("app:app"), {"app.py": "flask"}),
    "django": (waitress("wsgi:application"), {"gate.py": "django-gatehouse", "wsgi.py": "django-wsgi",
                                              "views.py": "django-views", "urls.py": "django-urls"}),
    "fastapi-middleware": (uvicorn, {"app.py": "fastapi-middleware"}),
    "flask-middleware": (waitress("app:app"), {"app.py": "flask-middleware"}),
}
QUICKSTART_ROUTES = [
    {"name": "orders", "match": "GET /api/orders/**", "mode": "enforce"},
    {"name": "payments", "match": "POST /api/payments/**", "mode": "enforce", "require": {"bound": True},
     "consume": True},
    {"name": "feed", "match": "GET /api/feed", "mode": "monitor"}]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(name, gatehouse, directory):
    port = free_port()
    arguments, blocks = QUICKSTARTS[name]
    files = {file: quickstart(block) for file, block in blocks.items()}
    files["settings.py"] = DJANGO_SETTINGS
    for file, text in files.items():
        with open(os.path.join(directory, file), "w") as f:
            f.write(text)
    command = [sys.executable] + arguments(port)
    env = dict(os.environ, GATEHOUSE_URL=gatehouse.base, GATEHOUSE_ENVIRONMENT=gatehouse.environment_id,
               GATEHOUSE_SECRET_KEY=gatehouse.secret, DJANGO_SETTINGS_MODULE="settings",
               PYTHONPATH=directory if INSTALLED else os.pathsep.join([directory, SRC]))
    log = open(os.path.join(directory, "server.log"), "w")
    process = subprocess.Popen(command, cwd=directory, env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    return process, port, log.name


def send(port, method, target, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        connection.request(method, target, body=b"" if method == "POST" else None, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, json.loads(answer.read() or b"null")
    finally:
        connection.close()


def ready(process, port, log):
    """The first judged call's answer, once the app listens and has its routes and keys (until then: 503,
    uncounted)."""
    def judged():
        assert process.poll() is None, f"the app exited: {open(log).read()}"
        try:
            answer = send(port, "GET", "/api/orders/1")
        except OSError:
            return None
        return answer if answer[0] != 503 else None

    return wait_for(judged, seconds=60, what="the app judging calls")


@pytest.mark.parametrize("name", list(QUICKSTARTS))
def test_quickstart(gatehouse, name):
    gatehouse.patch({"enforcement": {"mode": "monitor", "routes": QUICKSTART_ROUTES}})
    before = backend_counts(gatehouse)
    with tempfile.TemporaryDirectory() as directory:
        process, port, log = start_app(name, gatehouse, directory)
        try:
            status, headers, body = ready(process, port, log)
            assert status == 401 and headers["content-type"] == "application/problem+json"
            assert (body["outcome"], body["route"], body["type"]) == ("missing", "orders", "/problems/receipt-missing")
            assert (headers["gatehouse-outcome"], headers["gatehouse-route"]) == ("missing", "orders")

            token = gatehouse.receipt()
            status, _, body = send(port, "GET", "/api/orders/1?page=2", {"antibot-token": token})
            assert (status, body) == (200, {"outcome": "verified", "receipt": claims_of(token)["sub"]})
            status, _, body = send(port, "GET", "/api/%6Frders/1", {"antibot-token": token})
            assert (status, body["outcome"]) == (200, "verified"), "the path as the framework routes it"
            status, _, body = send(port, "GET", "/api/feed", {"antibot-token": token})
            assert (status, body["outcome"]) == (200, "verified")
            status, _, body = send(port, "GET", "/api/feed")
            assert (status, body) == (200, {"outcome": "missing", "receipt": None}), "feed is monitored"

            phone = ec.generate_private_key(ec.SECP256R1())
            bound = gatehouse.receipt(phone)
            path = "/api/payments/9?amount=1&note=a%20b"
            pop = proof(phone, "POST", path, t=now_ms())
            status, _, body = send(port, "POST", path, {"antibot-token": bound, "antibot-pop": pop})
            assert (status, body["outcome"]) == (200, "verified")
            status, _, body = send(port, "POST", path, {"antibot-token": bound, "antibot-pop": pop})
            assert (status, body["outcome"], body["reasons"]) == (401, "reused", ["consumed"])
            status, _, body = send(port, "POST", path, {"antibot-token": token})
            assert (status, body["outcome"], body["reasons"]) == (401, "unmet", ["unbound"])
            status, _, body = send(port, "POST", "/api/payments/9?amount=2", {"antibot-token": bound, "antibot-pop": pop})
            assert (status, body["outcome"], body["reasons"]) == (401, "invalid", ["session:proof"])
        finally:
            # SIGTERM, as uvicorn, systemd and Kubernetes stop a service: what was counted is sent before it exits.
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        output = open(log).read()
        assert gatehouse.secret not in output
    added = {"orders": {"missing": 1, "verified": 2}, "feed": {"verified": 1, "missing": 1},
             "payments": {"verified": 1, "reused": 1, "unmet": 1, "invalid": 1}}
    assert wait_for_backend_counts(gatehouse, added, before)
