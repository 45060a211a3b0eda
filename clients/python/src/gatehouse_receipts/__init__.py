"""Gatehouse receipts checked in a Python backend.

Three layers, as in docs/device-api.md "The backend libraries":

1. :func:`verify_session_token` and :func:`verify_request_proof`: pure (keys, time and request in, result out), the
   same checks, reasons and policy as the Swift library's ``ReceiptVerifier``; they never raise on what a client
   sends. An offline check cannot spend a receipt: :func:`consume` does, through Gatehouse.
2. :class:`JWKSSource`: Gatehouse's signing keys, fetched, cached and refreshed.
3. Enforcement, the edge check's outcomes and refusals where the API is, with the routes and modes fetched from
   Gatehouse (or given in code) and counts reported to Gatehouse: :class:`Gatehouse`, whose guards sit on the
   handlers themselves (a FastAPI dependency, a Flask, Django or Starlette decorator, :meth:`Gatehouse.judge` for
   anything else), and the route-table middlewares :class:`GatehouseMiddleware` (ASGI) and
   :class:`GatehouseWSGIMiddleware` (WSGI).
"""
from ._consume import consume
from ._guard import Gatehouse, GatehouseRefusal, Guard
from ._http import GatehouseError, GatehouseUnavailable
from ._judgement import Judgement
from ._keys import JWKS, PublicJWK, ReceiptError
from ._limits import ReceiptLimits
from ._source import JWKSSource
from ._verify import ReceiptPolicy, Verification, verify_request_proof, verify_session_token
from .asgi import GatehouseMiddleware
from .wsgi import GatehouseWSGIMiddleware

__version__ = "0.1.0"

__all__ = [
    "Gatehouse",
    "GatehouseError",
    "GatehouseMiddleware",
    "GatehouseRefusal",
    "GatehouseUnavailable",
    "GatehouseWSGIMiddleware",
    "Guard",
    "JWKS",
    "JWKSSource",
    "Judgement",
    "PublicJWK",
    "ReceiptError",
    "ReceiptLimits",
    "ReceiptPolicy",
    "Verification",
    "consume",
    "verify_request_proof",
    "verify_session_token",
]
