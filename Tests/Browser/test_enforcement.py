"""Enforcement in a real browser, behind a real proxy: an owner adds a route in monitor on the Enforcement tab (an
invalid match is refused beside its field), puts Debian's nginx (auth_request, the block of docs/enforcement.md) in
front of a small API, and sees on the Enforcement and Traffic tabs what enforcing would have refused; then enforces
the route (a call without a receipt is refused, one with a receipt passes), and orders and removes routes.
Desktop and phone screenshots go to .build/screenshots/enforcement-*.png."""
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import Shots
from test_dashboard import PASSWORD, click, environment_id, fill, submit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "EndToEnd"))
from api_schema import receipt  # noqa: E402
from edge_proxies import Upstream, get, nginx_binary_path, start_nginx, stop  # noqa: E402

OUTCOMES = ["missing", "invalid", "reused", "challenge", "unmet", "verified"]


class Edge:
    """The small API (edge_proxies.Upstream) and, once started with the environment's secret key, nginx in front of
    it asking Gatehouse's /api/v4/edge/nginx."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="gatehouse-browser-edge-")
        # nginx's workers (nobody, when the master is root) reach their temp directories through this one.
        os.chmod(self.directory, 0o711)
        self.upstream = Upstream()
        threading.Thread(target=self.upstream.serve_forever, daemon=True).start()
        self.nginx = None
        self.port = None

    def start(self, gatehouse_base, secret):
        upstream = f"127.0.0.1:{self.upstream.server_address[1]}"
        self.nginx, self.port = start_nginx(self.directory, gatehouse_base.removeprefix("http://"), upstream, secret)

    def call(self, path, token=None):
        """GET `path` through nginx, with the receipt in `antibot-token` when given → (status, headers, upstream reached)."""
        before = self.upstream.count()
        status, headers, _ = get(self.port, path, {"antibot-token": token} if token else {})
        return status, headers, self.upstream.count() > before

    def stop(self):
        try:
            stop(self.nginx, "nginx", sig=signal.SIGQUIT)
        finally:
            self.upstream.shutdown()
            self.upstream.server_close()
            shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture
def edge():
    if not os.path.exists(nginx_binary_path()):
        pytest.fail("nginx is not installed (make test-deps installs EDGE_PACKAGES)")
    e = Edge()
    yield e
    e.stop()


def absent(browser, css):
    """True when nothing matches `css` now (without the driver's implicit wait)."""
    return browser.execute_script("return document.querySelector(arguments[0]) === null", css)


def route_names(browser):
    return [row.get_attribute("id").removeprefix("route-") for row in browser.find_elements(By.CSS_SELECTOR, "table.routes-table tbody tr")]


def outcomes(container):
    """{outcome: count} of the first `dl.outcomes` in `container` (counts as shown, e.g. "3")."""
    dl = container.find_element(By.CSS_SELECTOR, "dl.outcomes")
    return {div.find_element(By.TAG_NAME, "dt").get_attribute("textContent"): div.find_element(By.TAG_NAME, "dd").get_attribute("textContent")
            for div in dl.find_elements(By.CSS_SELECTOR, "div") if div.find_elements(By.TAG_NAME, "dd")}


def reload_until(browser, url, ready, seconds=10):
    """Loads `url` until `ready(browser)` is truthy (outcomes reach the database within about a second); returns its
    last value."""
    deadline = time.monotonic() + seconds
    while True:
        browser.get(url)
        value = ready(browser)
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.3)


def phone_overflow(browser):
    """How many pixels the current page is wider than a 390 px phone (0 when it fits)."""
    browser.set_window_size(390, 844)
    try:
        return browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    finally:
        browser.set_window_size(1280, 800)


def test_monitor_then_enforce_a_route_behind_nginx(server, browser, edge):
    shot = Shots(browser, "enforcement")
    browser.get(server.setup_link)
    fill(browser, {"email": "owner@example.com", "password": PASSWORD, "confirm": PASSWORD})
    submit(browser)
    base = server.base

    # A new environment: its secret key is shown once (the proxy's), its public key on the Keys tab (the app's).
    fill(browser, {"name": "Shop"})
    submit(browser, "form[action='/environments']")
    secret = browser.find_element(By.ID, "secret-value").text
    assert secret.startswith("sk_"), secret
    env = environment_id(browser, server, "Shop")
    browser.get(f"{base}/environments/{env}/keys")
    public_key = next(code.text for code in browser.find_elements(By.CSS_SELECTOR, "code.key-value") if code.text.startswith("pk_"))

    # The Enforcement tab, reached from the environment's tabs: no route yet.
    browser.get(f"{base}/environments/{env}")
    click(browser, "nav.tabs a[href$='/enforcement']")
    page = f"{base}/environments/{env}/enforcement"
    assert browser.current_url == page
    assert "No route yet" in browser.page_source
    assert absent(browser, "table.routes-table")

    # An invalid match is refused beside the Match field, the form keeps what was typed, and nothing is saved.
    fill(browser, {"name": "orders", "match": "GET /a//b"})
    Select(browser.find_element(By.ID, "route-mode")).select_by_value("monitor")
    submit(browser, "form[action$='/enforcement/routes']")
    match = browser.find_element(By.ID, "route-match")
    assert match.get_attribute("aria-invalid") == "true"
    assert "route-match-error" in match.get_attribute("aria-describedby").split()
    error = browser.find_element(By.ID, "route-match-error").text
    assert error.startswith("Match "), error
    assert match.get_attribute("value") == "GET /a//b"
    assert browser.find_element(By.ID, "route-name").get_attribute("value") == "orders"
    assert browser.find_element(By.ID, "route-name").get_attribute("aria-invalid") is None
    assert Select(browser.find_element(By.ID, "route-mode")).first_selected_option.get_attribute("value") == "monitor"
    assert "Not saved" in browser.find_element(By.CSS_SELECTOR, ".notice.fail").text
    assert absent(browser, "table.routes-table")
    shot("invalid-match", narrow=True, at="#add-route")
    browser.get(page)
    assert "No route yet" in browser.page_source

    # orders in monitor.
    fill(browser, {"name": "orders", "match": "GET /api/orders/**"})
    Select(browser.find_element(By.ID, "route-mode")).select_by_value("monitor")
    submit(browser, "form[action$='/enforcement/routes']")
    assert "Added the route orders" in browser.find_element(By.CSS_SELECTOR, ".flash").text
    assert route_names(browser) == ["orders"]
    row = browser.find_element(By.ID, "route-orders")
    assert "GET /api/orders/**" in row.text
    assert Select(row.find_element(By.ID, "mode-orders")).first_selected_option.get_attribute("value") == "monitor"
    assert "No call of orders was judged" in row.find_element(By.CSS_SELECTOR, ".would-refuse").text

    # nginx in front of the API; under monitor every call reaches it, with a receipt or without.
    edge.start(base, secret)
    token = receipt(base, public_key)
    for i in range(3):
        status, _, reached = edge.call(f"/api/orders/{i}")
        assert (status, reached) == (200, True)
    status, _, reached = edge.call("/api/orders/9?page=2", token)
    assert (status, reached) == (200, True)
    assert [c["headers"]["Gatehouse-Outcome"] for c in edge.upstream.calls] == ["missing"] * 3 + ["verified"]

    # The week's outcomes and what enforcing would have refused.
    want = {o: "0" for o in OUTCOMES} | {"missing": "3", "verified": "1"}
    sentence = ("Enforcing orders now would have refused 75 % of last week's 4 calls: "
                "75 % came without a receipt (app versions without the SDK).")
    got = reload_until(browser, page, lambda b: outcomes(b.find_element(By.ID, "route-orders")) == want)
    assert got, outcomes(browser.find_element(By.ID, "route-orders"))
    assert browser.find_element(By.CSS_SELECTOR, "#route-orders .would-refuse").text == sentence
    shot("monitored", narrow=True, at="#routes-heading")
    assert phone_overflow(browser) <= 0, "the Enforcement tab is wider than a phone"

    # The Traffic tab says the same under "Your API".
    traffic = f"{base}/environments/{env}/traffic"
    assert reload_until(browser, traffic, lambda b: sentence in b.find_element(By.ID, "your-api").text), \
        browser.find_element(By.ID, "your-api").text
    section = browser.find_element(By.ID, "your-api")
    item = next(li for li in section.find_elements(By.CSS_SELECTOR, "ul.api-routes li") if li.find_element(By.TAG_NAME, "strong").text == "orders")
    assert item.find_element(By.CSS_SELECTOR, ".badge").text == "monitor"
    assert item.find_element(By.CSS_SELECTOR, ".would-refuse").text == sentence
    assert outcomes(item) == want
    assert section.find_elements(By.CSS_SELECTOR, "svg.chart")
    shot("traffic-your-api", narrow=True, at="#your-api")
    assert phone_overflow(browser) <= 0, "the Traffic tab is wider than a phone"

    # Enforce orders with its own select: a call without a receipt is refused before the API, one with a receipt passes.
    browser.get(page)
    row = browser.find_element(By.ID, "route-orders")
    Select(row.find_element(By.ID, "mode-orders")).select_by_value("enforce")
    click(browser, "#route-orders form button[type=submit]")
    assert "orders is now judged under enforce" in browser.find_element(By.CSS_SELECTOR, ".flash").text
    assert Select(browser.find_element(By.ID, "mode-orders")).first_selected_option.get_attribute("value") == "enforce"
    # Changes reach the edge check within a second.
    deadline = time.monotonic() + 5
    while True:
        status, headers, reached = edge.call("/api/orders/1")
        if status != 200 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert (status, headers.get("gatehouse-outcome"), headers.get("gatehouse-route"), reached) == (401, "missing", "orders", False), (status, headers)
    status, _, reached = edge.call("/api/orders/1", token)
    assert (status, reached) == (200, True)
    assert edge.upstream.calls[-1]["headers"]["Gatehouse-Outcome"] == "verified"
    shot("enforced")

    # A second route; Down and Up change the order of the table (the first match wins); Remove takes it out.
    fill(browser, {"name": "feed", "match": "GET /api/feed"})
    submit(browser, "form[action$='/enforcement/routes']")
    assert route_names(browser) == ["orders", "feed"]
    assert absent(browser, "button[aria-label='Move orders up']") and absent(browser, "button[aria-label='Move feed down']")
    click(browser, "button[aria-label='Move orders down']")
    assert "Moved orders down" in browser.find_element(By.CSS_SELECTOR, ".flash").text
    assert route_names(browser) == ["feed", "orders"]
    shot("two-routes", narrow=True, at="#routes-heading")
    click(browser, "button[aria-label='Move orders up']")
    assert route_names(browser) == ["orders", "feed"]
    click(browser, "a[aria-label='Remove feed']")
    assert "Remove the route feed?" in browser.find_element(By.CSS_SELECTOR, ".confirm-card h1").text
    click(browser, ".confirm-card button[type='submit']")
    assert "Removed feed" in browser.find_element(By.CSS_SELECTOR, ".flash").text
    assert route_names(browser) == ["orders"]
    # orders kept its mode through the moves.
    assert Select(browser.find_element(By.ID, "mode-orders")).first_selected_option.get_attribute("value") == "enforce"
