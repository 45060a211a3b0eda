"""Gatehouse receipts checked in a Python backend.

Three layers, as in DEVICE-API.md "The backend libraries":

1. :func:`verify_session_token` and :func:`verify_request_proof`: pure (keys, time and request in, result out), the
   same checks, reasons and policy as the Swift library's ``ReceiptVerifier``; they never raise on what a client
   sends. An offline check cannot spend a receipt: :func:`consume` does, through Gatehouse.
2. :class:`JWKSSource`: Gatehouse's signing keys, fetched, cached and refreshed.
3. :class:`GatehouseMiddleware` (ASGI) and :class:`GatehouseWSGIMiddleware` (WSGI): routes, ``monitor`` and
   ``enforce``, the edge check's outcomes and refusals, and counts reported to Gatehouse.
"""
from ._consume import consume
from ._http import GatehouseError, GatehouseUnavailable
from ._keys import JWKS, PublicJWK, ReceiptError
from ._limits import ReceiptLimits
from ._source import JWKSSource
from ._verify import ReceiptPolicy, Verification, verify_request_proof, verify_session_token
from .asgi import GatehouseMiddleware
from .wsgi import GatehouseWSGIMiddleware

__version__ = "0.1.0"

__all__ = [
    "GatehouseError",
    "GatehouseMiddleware",
    "GatehouseUnavailable",
    "GatehouseWSGIMiddleware",
    "JWKS",
    "JWKSSource",
    "PublicJWK",
    "ReceiptError",
    "ReceiptLimits",
    "ReceiptPolicy",
    "Verification",
    "consume",
    "verify_request_proof",
    "verify_session_token",
]
