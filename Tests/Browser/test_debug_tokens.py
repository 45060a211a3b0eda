"""Debug tokens in a real browser: an owner creates one on the Keys page, sees its value once (with how to pass it),
a CI build uses it, the production warnings show on the Overview and the Traffic checklist, and the owner revokes it
behind a confirmation. Desktop and phone screenshots go to .build/screenshots/debug-*.png."""
import json
import os
import sys
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import Shots

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "EndToEnd"))
from signed_request import ios_assess_body  # noqa: E402
from test_dashboard import PASSWORD, environment_id, fill, navigating, submit
from test_pages import look


def assess_with_debug_token(base, public_key, token):
    """POST /api/v4/assess as an iOS CI build would: a signed request whose attestation is the debug token."""
    body = ios_assess_body(public_key, {"app": {"id": "com.example.app"}, "device": {"id": "ci-simulator"}},
                           attestation={"provider": "debug", "token": token})
    request = urllib.request.Request(base + "/api/v4/assess", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def debug_row(browser, name):
    for row in browser.find_elements(By.CSS_SELECTOR, "#debug-tokens tbody tr"):
        if row.find_element(By.CSS_SELECTOR, "td[data-label=Name]").text == name:
            return row
    raise AssertionError(f"no debug token row {name}")


def test_create_see_once_use_and_revoke_a_debug_token(demo_server, browser):
    shot = Shots(browser, "debug")
    browser.get(demo_server.setup_link)
    fill(browser, {"email": "owner@example.com", "password": PASSWORD, "confirm": PASSWORD})
    submit(browser)
    base = demo_server.base
    env = environment_id(browser, demo_server, "Demo")
    keys = f"{base}/environments/{env}/keys"

    # The Keys page has the section, empty; a blank name is refused beside the field and nothing is made.
    browser.get(keys)
    section = browser.find_element(By.ID, "debug-tokens")
    assert "No debug token yet" in section.text
    navigating(browser, lambda: browser.find_element(By.CSS_SELECTOR, "#debug-tokens button[type=submit]").click())
    assert browser.find_element(By.ID, "debug-name-error").text.startswith("Name must not be empty")
    assert "No debug token yet" in browser.find_element(By.ID, "debug-tokens").text
    shot("name-error")

    fill(browser, {"debugName": "CI simulator"})
    Select(browser.find_element(By.ID, "debug-lifetime")).select_by_visible_text("7 days")
    browser.execute_script("document.getElementById('debug-tokens').scrollIntoView()")
    look(browser, "debug-keys")
    navigating(browser, lambda: browser.find_element(By.CSS_SELECTOR, "#debug-tokens button[type=submit]").click())

    # Shown once, with how a build passes it.
    value = browser.find_element(By.ID, "secret-value").text
    assert value.startswith("dt_") and len(value) == 46, value
    page = browser.page_source
    assert "gatehouse simulate" in page and "--debug-token " + value in page
    assert "production environment" in page
    look(browser, "debug-shown-once")
    browser.execute_script("document.querySelector('pre.command').scrollIntoView()")
    look(browser, "debug-shown-once-usage")

    # Back on the Keys page the value is gone for good; the token is listed with its expiry and no use yet.
    browser.get(keys)
    assert value not in browser.page_source
    row = debug_row(browser, "CI simulator")
    assert "active" in row.text and "never" in row.find_element(By.CSS_SELECTOR, "td[data-label='Last used']").text

    # A CI build uses it: verified, and the Keys page shows the use.
    public_key = next(code.text for code in browser.find_elements(By.CSS_SELECTOR, "code.key-value") if code.text.startswith("pk_"))
    answer = assess_with_debug_token(base, public_key, value)
    assert answer["attestation"] == {"provider": "debug", "status": "verified", "reasons": []}, answer
    browser.get(keys)
    assert "never" not in debug_row(browser, "CI simulator").find_element(By.CSS_SELECTOR, "td[data-label='Last used']").text
    browser.execute_script("document.getElementById('debug-tokens').scrollIntoView()")
    look(browser, "debug-keys-listed")

    # Production: the Overview and the Traffic checklist warn, naming the token.
    browser.get(f"{base}/environments/{env}")
    assert "CI simulator" in browser.find_element(By.ID, "debug-in-production").text
    look(browser, "debug-overview")
    # Today's debug verdict counts under its own provider (the server records verdicts within a second).
    deadline = time.time() + 10
    while True:
        browser.get(f"{base}/environments/{env}/traffic")
        table = browser.find_element(By.CSS_SELECTOR, "table.provider-table")
        header = [th.get_attribute("textContent") for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        today = [td.text for td in table.find_elements(By.CSS_SELECTOR, "tbody tr:last-child td")]
        if today[-1] == "1" or time.time() > deadline:
            break
        time.sleep(0.2)
    assert header[-1] == "Debug tokens" and today[-1] == "1", (header, today)
    assert "Debug tokens are active in production" in browser.page_source
    look(browser, "debug-traffic")

    # Revoked behind a confirmation; the warnings go.
    browser.get(keys)
    browser.get(debug_row(browser, "CI simulator").find_element(By.LINK_TEXT, "Revoke…").get_attribute("href"))
    look(browser, "debug-revoke")
    submit(browser)
    assert "Revoked the debug token CI simulator" in browser.find_element(By.CSS_SELECTOR, ".flash").text
    assert "revoked" in debug_row(browser, "CI simulator").text
    shot("revoked", narrow=True)
    answer = assess_with_debug_token(base, public_key, value)
    assert answer["attestation"]["reasons"] == ["debugTokenInvalid"], answer
    browser.get(f"{base}/environments/{env}")
    assert not browser.find_elements(By.ID, "debug-in-production")
