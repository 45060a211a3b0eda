"""The Webhooks page in a real browser against a real server (issue 47), run with --webhook-allow-http and
--webhook-allow-private so that a receiver on loopback can take the deliveries: an owner finds the page in the main
navigation, a URL that is not https is refused beside its field with what was typed kept, a webhook is created and
its secret shown once (never on the list), a test event is sent and its delivery shows in the deliveries list with the
receiver's answer, and the receiver got a body signed with that secret. Desktop and phone screenshots go to
.build/screenshots/webhooks-*.png."""
import http.server
import json
import threading

import pytest
from selenium.webdriver.common.by import By
from standardwebhooks import Webhook

from conftest import Gatehouse, Shots
from test_app_attest import flash, status
from test_dashboard import click, fill, owner_with_production, submit


class Receiver(http.server.ThreadingHTTPServer):
    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.deliveries = []


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.deliveries.append(({k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver():
    r = Receiver()
    threading.Thread(target=r.serve_forever, daemon=True).start()
    yield r
    r.shutdown()


@pytest.fixture
def hook_server():
    s = Gatehouse(["--webhook-allow-http", "--webhook-allow-private"])
    yield s
    s.stop()


def test_webhooks_page(hook_server, receiver, browser):
    server = hook_server
    shot = Shots(browser, "webhooks")
    owner_with_production(browser, server)
    url = f"http://127.0.0.1:{receiver.server_address[1]}/hooks/T01/B02/private-part"

    browser.get(f"{server.base}/environments")
    click(browser, "nav.nav a[href='/webhooks']")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Webhooks"
    shot("empty", narrow=True)

    # Not https: refused beside the field, what was typed kept, nothing created.
    fill(browser, {"url": "ftp://example.com/hook", "description": "#alerts"})
    submit(browser, "form[action='/webhooks']")
    assert status(browser) == 422
    error = browser.find_element(By.ID, "url-error").text
    assert "https" in error, error
    assert browser.find_element(By.ID, "url").get_attribute("value") == "ftp://example.com/hook"
    assert browser.find_element(By.ID, "description").get_attribute("value") == "#alerts"
    shot("refused", narrow=True, at="#url")

    # Created: the secret shown this once.
    fill(browser, {"url": url})
    submit(browser, "form[action='/webhooks']")
    secret = browser.find_element(By.ID, "secret-value").text
    assert secret.startswith("whsec_"), secret
    shot("secret", narrow=True)
    browser.get(f"{server.base}/webhooks")
    page = browser.page_source
    assert secret not in page and "private-part" not in page
    row = browser.find_element(By.CSS_SELECTOR, "table.webhooks tbody tr").text
    assert "/hooks/…" in row and "#alerts" in row and "every event" in row, row
    shot("list", narrow=True, at="table.webhooks")

    # A test event, delivered, in the deliveries list; the receiver got a body signed with the secret.
    submit(browser, "table.webhooks form[action$='/test']")
    assert flash(browser).startswith("Test event delivered: the receiver answered 204"), flash(browser)
    cells = browser.find_element(By.CSS_SELECTOR, "table.deliveries tbody tr").text
    assert "webhook.test" in cells and "204" in cells, cells
    shot("delivered", narrow=True, at="table.deliveries")
    headers, body = receiver.deliveries[-1]
    event = Webhook(secret).verify(body, headers)
    assert event["type"] == "webhook.test"
    assert json.loads(body)["data"]["requestedBy"] == "owner@example.com"
