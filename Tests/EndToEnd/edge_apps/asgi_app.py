"""The FastAPI upstream of the edge tests, served by uvicorn (python asgi_app.py PORT, from the project's venv).

Starlette decodes percent-encoded paths before routing (FastAPI answers HEAD with 405). GET /__runs (asked
directly, never through a proxy) tells how often each protected handler ran and the Gatehouse-* headers of the last
call each handler saw."""
import sys

import uvicorn
from fastapi import FastAPI, Request

NAMES = ["gatehouse-outcome", "gatehouse-route", "gatehouse-receipt", "gatehouse-platform", "gatehouse-attestation"]
runs = {"payments": 0, "orders": 0, "echo": 0}
seen = {}
app = FastAPI()


def record(name, request):
    runs[name] += 1
    seen[name] = {h: request.headers[h] for h in NAMES if h in request.headers}


@app.post("/api/payments")
def payments(request: Request):
    record("payments", request)
    return {"handler": "payments"}


@app.get("/api/orders/{order_id}")
def orders(order_id: str, request: Request):
    record("orders", request)
    return {"handler": "orders", "id": order_id}


@app.get("/api/echo")
def echo(request: Request):
    record("echo", request)
    return {"handler": "echo", "headers": seen["echo"]}


@app.get("/__runs")
def runs_so_far():
    return {"runs": runs, "seen": seen}


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
