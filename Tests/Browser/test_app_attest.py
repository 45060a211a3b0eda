"""App Attest in depth, in a real browser against a real server trusting a synthetic App Attest CA: an owner registers
an Apple app id, sets the App Attest policy on the Apps tab (a bad bundle version is refused beside its field, the
ticks kept), saves a DeviceCheck key (a bad one refused without echoing it, a real P-256 key never shown again) and
asks for a refresh pass; then `gatehouse simulate` registers App Store and development builds, and the Traffic tab's
iPhones section and setup checklist show them. Desktop and phone screenshots go to .build/screenshots/app-attest-*.png."""
import json
import subprocess
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import BINARY, Gatehouse, Shots
from test_dashboard import click, fill, owner_with_production, submit

APP_ID = "ABCDE12345.com.example.app"
BAD_VERSION = "4.2 beta"
BAD_KEY = "-----BEGIN PRIVATE KEY-----\nSECRETMARKER\n-----END PRIVATE KEY-----"
UNEXPECTED = "Builds launch with an unexpected signature in production"


@pytest.fixture
def attest_server(ca):
    s = Gatehouse(["--app-attest-roots", f"{ca}/roots.pem", "--app-attest-receipt-roots", f"{ca}/receipt-roots.pem",
                   "--device-rate-per-address", "0"])
    yield s
    s.stop()


def flash(browser):
    return browser.find_element(By.CSS_SELECTOR, ".flash").get_attribute("textContent").strip()


def status(browser):
    """The HTTP status of the page now shown (Chromium's PerformanceNavigationTiming.responseStatus)."""
    return browser.execute_script("return performance.getEntriesByType('navigation')[0].responseStatus")


def checked(browser, name):
    return browser.find_element(By.NAME, name).is_selected()


def simulate(server, ca, public_key, category, version="4.10"):
    """One simulated iPhone (`gatehouse simulate --platform ios`) → its JSON output."""
    run = subprocess.run([str(BINARY), "simulate", "--endpoint", server.base, "--api-key", public_key, "--platform", "ios",
                          "--ca-cert", f"{ca}/ca.pem", "--ca-key", f"{ca}/ca.key", "--app-id", APP_ID,
                          "--validation-category", category, "--bundle-version", version],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, (run.returncode, run.stdout, run.stderr)
    return json.loads(run.stdout)


def iphones_ready(browser):
    """The #iphones section's text once it shows the app id, both categories and the version (else None)."""
    text = browser.execute_script("const s = document.getElementById('iphones'); return s ? s.textContent : null")
    if text and all(s in text for s in (APP_ID, "appStore", "development", "4.10")):
        return text
    return None


def test_app_attest_policy_device_check_key_and_iphones(attest_server, ca, browser):
    server = attest_server
    shot = Shots(browser, "app-attest")
    base = server.base
    env = owner_with_production(browser, server)
    apps = f"{base}/environments/{env}/apps"

    # 1. The Apple app id, then the new App Attest policy section.
    browser.get(apps)
    fill(browser, {"appId": APP_ID})
    submit(browser, "form[action$='/apps/apple']")
    assert f"Registered {APP_ID}" in flash(browser)
    section = browser.find_element(By.ID, "app-attest")
    assert browser.find_element(By.ID, "app-attest-heading").text == "App Attest policy"
    assert not checked(browser, "category-appStore") and not checked(browser, "category-testFlight")
    shot("policy", narrow=True, at="#app-attest")

    # 2. A bad bundle version: re-rendered (422) with the message beside the field, the ticks and the typed value kept.
    policy_form = f"form[action='/environments/{env}/apps/app-attest-policy']"
    section.find_element(By.NAME, "category-appStore").click()
    section.find_element(By.NAME, "category-testFlight").click()
    fill(browser, {"minimumBundleVersion": BAD_VERSION})
    submit(browser, policy_form)
    accepted = browser.execute_script("const f = document.querySelector('.flash'); return f && f.textContent")
    assert not accepted, f"{BAD_VERSION!r} was accepted: {accepted}"
    error = browser.find_element(By.ID, "version-error").text
    assert error.startswith("Bundle version must be a bundle version"), error
    assert status(browser) == 422
    field = browser.find_element(By.ID, "minimumBundleVersion")
    assert field.get_attribute("aria-invalid") == "true"
    assert "version-error" in field.get_attribute("aria-describedby").split()
    assert field.get_attribute("value") == BAD_VERSION
    assert checked(browser, "category-appStore") and checked(browser, "category-testFlight")
    assert not checked(browser, "category-development")
    shot("policy-invalid", narrow=True, at="#app-attest .checks")

    fill(browser, {"minimumBundleVersion": "4.10"})
    submit(browser, policy_form)
    assert flash(browser) == "App Attest policy saved."
    browser.get(apps)
    assert checked(browser, "category-appStore") and checked(browser, "category-testFlight")
    assert not checked(browser, "category-development")
    assert browser.find_element(By.ID, "minimumBundleVersion").get_attribute("value") == "4.10"

    # 3. The DeviceCheck key: a bad one is refused beside its fields and never echoed…
    key_form = f"form[action='/environments/{env}/app-attest/device-check-key']"
    fill(browser, {"keyId": "ABC123DEFG", "teamId": "short", "privateKey": BAD_KEY})
    submit(browser, key_form)
    assert status(browser) == 422
    assert browser.find_element(By.ID, "teamId-error").text.startswith("Team id "), browser.find_element(By.ID, "teamId-error").text
    assert browser.find_element(By.ID, "privateKey-error").text.startswith("Private key "), browser.find_element(By.ID, "privateKey-error").text
    assert browser.find_element(By.ID, "teamId").get_attribute("aria-invalid") == "true"
    assert browser.find_element(By.ID, "privateKey").get_attribute("aria-invalid") == "true"
    assert "SECRETMARKER" not in browser.page_source
    shot("device-check-invalid", narrow=True, at="#device-check")

    # … a real P-256 key (PKCS#8) is saved, shown by its ids only.
    pem = subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
                         capture_output=True, text=True, check=True).stdout
    assert pem.startswith("-----BEGIN PRIVATE KEY-----"), pem.splitlines()[0]
    body = "".join(pem.strip().splitlines()[1:-1])
    browser.get(apps)
    fill(browser, {"keyId": "ABC123DEFG", "teamId": "ABCDE12345", "privateKey": pem})
    submit(browser, key_form)
    assert flash(browser).startswith("DeviceCheck key ABC123DEFG of team ABCDE12345 saved"), flash(browser)
    facts = browser.find_element(By.CSS_SELECTOR, "#device-check dl.facts").text
    assert "ABC123DEFG" in facts and "ABCDE12345" in facts, facts
    page = browser.page_source
    assert all(line not in page for line in pem.strip().splitlines()[1:-1]) and body not in page
    click(browser, "#device-check form.refresh-now button[type=submit]")
    assert flash(browser).startswith("No receipt to refresh"), flash(browser)
    shot("device-check-set", narrow=True, at="#device-check")

    # 4. Traffic from simulated iPhones: two App Store launches of 4.10, then a development build (outside the policy).
    browser.get(f"{base}/environments/{env}/keys")
    public_key = next(code.text for code in browser.find_elements(By.CSS_SELECTOR, "code.key-value") if code.text.startswith("pk_"))
    for _ in range(2):
        out = simulate(server, ca, public_key, "appStore")
        verdict = out["registration"]["body"]["verdict"]
        assert verdict["status"] == "verified", out["registration"]
        assert verdict["observed"]["receipt"] == "valid", out["registration"]
    out = simulate(server, ca, public_key, "development")
    assert out["registration"]["body"]["verdict"]["reasons"] == ["validationCategory:development"], out["registration"]

    traffic = f"{base}/environments/{env}/traffic"
    deadline = time.monotonic() + 10
    while True:
        browser.get(traffic)
        if iphones_ready(browser) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    text = iphones_ready(browser)
    assert text, browser.execute_script("const s = document.getElementById('iphones'); return s ? s.textContent : 'no #iphones'")
    iphones = browser.find_element(By.ID, "iphones")
    warned = [b.get_attribute("textContent").strip() for b in iphones.find_elements(By.CSS_SELECTOR, ".badge.warn")]
    assert "development" in warned, warned
    versions = [c.get_attribute("textContent") for c in iphones.find_elements(By.CSS_SELECTOR, "table.launches code")]
    assert "4.10" in versions, versions
    titles = [t.get_attribute("textContent").strip() for t in browser.find_elements(By.CSS_SELECTOR, ".checklist .item-title")]
    assert UNEXPECTED in titles, titles
    shot("checklist", at="#checklist-h")
    shot("iphones", narrow=True, at="#iphones")
