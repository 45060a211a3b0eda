"""Nothing counted is lost on an ordinary stop: an application served by uvicorn (guards, and the route-table
middleware) or waitress (Flask guards, Django guards) and stopped with SIGTERM right after N judged calls has
reported exactly N counts when its process has exited (the report interval is a minute, so only the shutdown flush
can have sent them); the tests wait for the process to exit, never for a clock. And the signal handlers chain the
handler installed before them."""
import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import INSTALLED, SRC
from gatehouse_receipts import _shutdown
from helpers import ENV, FakeGatehouse, Signer, claims, wait_for

SECRET = "sk_test_secret"
ROUTES = [{"name": "orders", "match": "GET /api/orders/*", "mode": "enforce"}]
SETUP = """
import os
from gatehouse_receipts import Gatehouse, GatehouseMiddleware, GatehouseWSGIMiddleware
CONFIG = dict(environment=os.environ["GATEHOUSE_ENVIRONMENT"], secret_key=os.environ["GATEHOUSE_SECRET_KEY"])
"""
APPS = {
    "fastapi-guards": ("app:app", SETUP + """
from fastapi import Depends, FastAPI
gatehouse = Gatehouse(os.environ["GATEHOUSE_URL"], **CONFIG)
app = FastAPI()
gatehouse.init_app(app)

@app.get("/api/orders/{order}")
def order(order: str, judgement=Depends(gatehouse.require("orders"))):
    return {"outcome": judgement["outcome"]}
"""),
    "asgi-table": ("app:app", SETUP + """
async def inner(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})

app = GatehouseMiddleware(inner, gatehouse_url=os.environ["GATEHOUSE_URL"], **CONFIG)
"""),
    "flask-guards": ("app:app", SETUP + """
from flask import Flask, g
gatehouse = Gatehouse(os.environ["GATEHOUSE_URL"], **CONFIG)
app = Flask(__name__)
gatehouse.init_app(app)

@app.get("/api/orders/<order>")
@gatehouse.require("orders")
def order(order):
    return {"outcome": g.gatehouse["outcome"]}
"""),
    "django-guards": ("app:application", SETUP + """
from django.conf import settings
settings.configure(SECRET_KEY="test-only", ALLOWED_HOSTS=["*"], ROOT_URLCONF=__name__, INSTALLED_APPS=[],
                   MIDDLEWARE=[], DATABASES={})
from django.core.wsgi import get_wsgi_application
from django.http import JsonResponse
from django.urls import path
gatehouse = Gatehouse(os.environ["GATEHOUSE_URL"], **CONFIG)

@gatehouse.require("orders")
def order(request, order):
    return JsonResponse({"outcome": request.gatehouse["outcome"]})

urlpatterns = [path("api/orders/<str:order>", order)]
application = get_wsgi_application()
"""),
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, target, token=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        connection.request("GET", target, headers={"antibot-token": token} if token else {})
        answer = connection.getresponse()
        answer.read()
        return answer.status
    except OSError:
        return 0
    finally:
        connection.close()


@pytest.mark.parametrize("name", list(APPS))
def test_sigterm_right_after_n_judged_calls_reports_n(name):
    server = FakeGatehouse([Signer("kid-a")], secret=SECRET)
    server.set_routes(ROUTES, mode="monitor")
    target, source = APPS[name]
    port = free_port()
    if name.startswith(("fastapi", "asgi")):
        command = [sys.executable, "-m", "uvicorn", target, "--host", "127.0.0.1", "--port", str(port),
                   "--log-level", "warning"]
    else:
        command = [sys.executable, "-m", "waitress", "--host=127.0.0.1", f"--port={port}", target]
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "app.py"), "w") as f:
            f.write(source)
        env = dict(os.environ, GATEHOUSE_URL=server.url, GATEHOUSE_ENVIRONMENT=ENV, GATEHOUSE_SECRET_KEY=SECRET,
                   PYTHONPATH=directory if INSTALLED else os.pathsep.join([directory, SRC]))
        log = open(os.path.join(directory, "server.log"), "w")
        process = subprocess.Popen(command, cwd=directory, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            # Ready: routes and keys fetched (until then a call is 503 and uncounted); the 401 is the first count.
            wait_for(lambda: process.poll() is not None or get(port, "/api/orders/0") == 401, seconds=60,
                     what=f"{name} judging")
            assert process.poll() is None, open(log.name).read()
            token = server.signers[0].token(claims(iat=int(time.time()) - 5, sub="req_shutdown"))
            statuses = [get(port, f"/api/orders/{i}", token) for i in range(5)] + [get(port, "/api/orders/9") for _ in range(3)]
            assert statuses == [200] * 5 + [401] * 3
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            log.close()
        output = open(log.name).read()
    try:
        assert server.ingested_counts() == {("orders", "missing"): 4, ("orders", "verified"): 5}, output
        assert SECRET not in output
    finally:
        server.close()


class Flushable:
    def __init__(self):
        self.flushed = 0

    def flush_counts(self):
        self.flushed += 1


def test_the_signal_handlers_flush_then_chain_the_handler_installed_before():
    original = signal.getsignal(signal.SIGTERM)
    installed = dict(_shutdown._installed)
    received = []
    try:
        signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))
        _shutdown._installed.pop(signal.SIGTERM, None)
        flushable = Flushable()
        _shutdown.register(flushable)
        assert signal.getsignal(signal.SIGTERM) is _shutdown._handler
        signal.raise_signal(signal.SIGTERM)
        assert flushable.flushed == 1 and received == [signal.SIGTERM], "flushed, then the previous handler ran"
        _shutdown._installed[signal.SIGTERM] = signal.SIG_IGN
        signal.raise_signal(signal.SIGTERM)
        assert flushable.flushed == 2 and received == [signal.SIGTERM], "an ignored signal stays ignored"
    finally:
        signal.signal(signal.SIGTERM, original)
        _shutdown._installed.clear()
        _shutdown._installed.update(installed)


def test_no_handler_is_installed_outside_the_main_thread():
    import threading

    results = []
    saved = dict(_shutdown._installed)
    _shutdown._installed.clear()
    try:
        thread = threading.Thread(target=lambda: results.append(_shutdown.install_signal_handlers()))
        thread.start()
        thread.join()
        assert results == [False] and not _shutdown._installed
    finally:
        _shutdown._installed.update(saved)
