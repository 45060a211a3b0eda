"""The Flask upstream of the edge tests, served by waitress (python wsgi_app.py PORT, from the project's venv).

Werkzeug decodes percent-encoded paths before routing, upper-cases the method and answers HEAD with the GET handler.
GET /__runs (asked directly, never through a proxy) tells how often each protected handler ran and the Gatehouse-*
headers of the last call each handler saw."""
import sys
import threading

import waitress
from flask import Flask, request

NAMES = ["gatehouse-outcome", "gatehouse-route", "gatehouse-receipt", "gatehouse-platform", "gatehouse-attestation"]
runs = {"payments": 0, "orders": 0, "echo": 0}
seen = {}
lock = threading.Lock()
app = Flask(__name__)


def record(name):
    with lock:
        runs[name] += 1
        seen[name] = {h: request.headers[h] for h in NAMES if h in request.headers}


@app.post("/api/payments")
def payments():
    record("payments")
    return {"handler": "payments"}


@app.get("/api/orders/<order_id>")
def orders(order_id):
    record("orders")
    return {"handler": "orders", "id": order_id}


@app.get("/api/echo")
def echo():
    record("echo")
    return {"handler": "echo", "headers": seen["echo"]}


@app.get("/__runs")
def runs_so_far():
    with lock:
        return {"runs": dict(runs), "seen": dict(seen)}


if __name__ == "__main__":
    waitress.serve(app, host="127.0.0.1", port=int(sys.argv[1]), threads=4, _quiet=True)
