"""The distribution as pip installed it (make test-python-client): one runtime dependency, typed, and the public
names docs/device-api.md "The backend libraries" fixes, with its signatures."""
import inspect
import os
from importlib import metadata

import pytest

import gatehouse_receipts as g
from conftest import INSTALLED


def test_public_names_and_signatures():
    for name in ["verify_session_token", "verify_request_proof", "ReceiptPolicy", "JWKSSource", "consume",
                 "GatehouseMiddleware", "GatehouseWSGIMiddleware", "Verification", "Gatehouse", "GatehouseRefusal",
                 "Judgement"]:
        assert name in g.__all__
    sig = inspect.signature(g.verify_session_token)
    assert list(sig.parameters) == ["token", "jwks", "environment", "method", "path_and_query", "proof", "policy", "now_ms"]
    assert [p.kind for p in sig.parameters.values()][1:] == [inspect.Parameter.KEYWORD_ONLY] * 7
    assert list(inspect.signature(g.verify_request_proof).parameters) == ["proof", "jwk", "method", "path_and_query", "now_ms"]
    assert list(inspect.signature(g.consume).parameters) == ["token", "gatehouse_url", "secret_key", "method",
                                                             "path_and_query", "proof", "policy"]
    assert str(inspect.signature(g.JWKSSource)) == "(url: 'str', *, timeout: 'float' = 2.0) -> 'None'"
    for middleware in (g.GatehouseMiddleware, g.GatehouseWSGIMiddleware):
        params = inspect.signature(middleware).parameters
        assert list(params) == ["app", "gatehouse_url", "environment", "routes", "mode", "secret_key", "report",
                                "on_unavailable"]
        assert (params["routes"].default, params["mode"].default, params["secret_key"].default,
                params["report"].default, params["on_unavailable"].default) == (None, "monitor", None, True, "refuse")
    params = inspect.signature(g.Gatehouse).parameters
    assert list(params)[:6] == ["gatehouse_url", "environment", "secret_key", "routes", "on_unavailable", "report"]
    assert params["environment"].default is params["secret_key"].default is inspect.Parameter.empty
    assert (params["routes"].default, params["on_unavailable"].default, params["report"].default) == (None, "refuse", True)
    assert [p.kind for p in params.values()][1:] == [inspect.Parameter.KEYWORD_ONLY] * (len(params) - 1)
    assert list(inspect.signature(g.Gatehouse.require).parameters) == ["self", "name", "mode"]
    assert g.ReceiptPolicy() == g.ReceiptPolicy(bound=False, attestation=None, debug=False)


@pytest.mark.skipif(not INSTALLED, reason="checks the installed distribution (GATEHOUSE_TEST_INSTALLED=1)")
def test_the_installed_distribution():
    dist = metadata.distribution("gatehouse-receipts")
    requires = [r.split(";")[0].strip() for r in (dist.requires or [])]
    assert [r.split(">")[0].split("=")[0] for r in requires] == ["cryptography"]
    assert dist.metadata["Requires-Python"] == ">=3.9"
    package = os.path.dirname(g.__file__)
    assert os.path.exists(os.path.join(package, "py.typed"))
    assert "site-packages" in package, "the tests ran against the installed package"
