"""A GrapheneOS phone in a real browser against a real server trusting a synthetic key attestation CA (issue 46): an
owner registers com.example.app and turns key attestation on; `gatehouse simulate --provider key-attestation` plays a
Pixel 8 booted self-signed with GrapheneOS's published key, refused `bootKeyUnknown`; the Traffic tab's checklist names
the key and offers it; the owner accepts it through the confirmation page; the next phone is verified and the item
reads "Fixed". Desktop and phone screenshots go to .build/screenshots/boot-key-*.png."""
import json
import subprocess
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import BINARY, Gatehouse, Shots
from test_app_attest import flash
from test_dashboard import click, fill, owner_with_production, submit

PACKAGE = "com.example.app"
DIGEST = "C4" * 32
# GrapheneOS's published verified boot key fingerprint for the Pixel 8 (its attestation compatibility guide).
PIXEL_8 = "cd7479653aa88208f9f03034810ef9b7b0af8a9d41e2000e458ac403a2acb233"
OFFER = "Accept the boot key of GrapheneOS on Pixel 8"


@pytest.fixture
def ka_server(ca):
    s = Gatehouse(["--key-attestation-roots", f"{ca}/key-attestation-roots.pem", "--device-rate-per-address", "0"])
    yield s
    s.stop()


def phone(server, ca, public_key):
    """One simulated GrapheneOS Pixel 8 (`gatehouse simulate --provider key-attestation`) → its registration's verdict."""
    run = subprocess.run([str(BINARY), "simulate", "--endpoint", server.base, "--api-key", public_key, "--platform", "android",
                          "--provider", "key-attestation", "--ca-cert", f"{ca}/key-attestation-ca.pem", "--ca-key", f"{ca}/key-attestation-ca.key",
                          "--app-id", PACKAGE, "--digest", DIGEST, "--boot-state", "self-signed", "--boot-key", PIXEL_8],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode in (0, 1), (run.returncode, run.stdout, run.stderr)
    verdict = json.loads(run.stdout)["registration"]["body"]["verdict"]
    return " ".join([verdict["status"], *verdict.get("reasons", [])])


def item_titles(browser):
    return [t.get_attribute("textContent").strip() for t in browser.find_elements(By.CSS_SELECTOR, ".checklist .item-title")]


def test_a_grapheneos_phone_refused_then_its_key_accepted_from_the_traffic_tab(ka_server, ca, browser):
    server = ka_server
    shot = Shots(browser, "boot-key")
    env = owner_with_production(browser, server)
    browser.get(f"{server.base}/environments/{env}/apps")
    fill(browser, {"packageName": PACKAGE, "certificateDigests": DIGEST})
    submit(browser, "form[action$='/apps/android']")
    assert flash(browser).startswith(f"Registered {PACKAGE}"), flash(browser)
    browser.find_element(By.ID, "keyAttestationEnabled").click()
    submit(browser, "form[action$='/key-attestation/policy']")
    assert flash(browser) == "Key Attestation policy saved.", flash(browser)

    browser.get(f"{server.base}/environments/{env}/keys")
    public_key = next(code.text for code in browser.find_elements(By.CSS_SELECTOR, "code.key-value") if code.text.startswith("pk_"))
    # The checklist speaks once 20 verdicts point to the setup.
    for _ in range(21):
        assert phone(server, ca, public_key) == "rejected bootKeyUnknown"

    traffic = f"{server.base}/environments/{env}/traffic"
    deadline = time.monotonic() + 10
    while True:
        browser.get(traffic)
        if browser.find_elements(By.LINK_TEXT, OFFER) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert "Phones boot an operating system whose key the policy does not accept" in item_titles(browser), item_titles(browser)
    section = browser.find_element(By.ID, "key-attested").get_attribute("textContent")
    assert "GrapheneOS on Pixel 8" in section and "selfSigned" in section, section
    shot("offered", narrow=True, at="#checklist-h")

    click(browser, f"a[href$='add-boot-key?key={PIXEL_8}']")
    assert browser.find_element(By.ID, "confirm-h").text == "Accept the boot key of GrapheneOS on Pixel 8?"
    assert PIXEL_8 in browser.find_element(By.CSS_SELECTOR, ".secret-box").text
    shot("confirm", narrow=True)
    submit(browser, "form[action$='/traffic/add-boot-key']")
    assert flash(browser).startswith("Accepted the boot key of GrapheneOS on Pixel 8."), flash(browser)
    assert "Fixed: the boot keys phones presented are now accepted" in item_titles(browser), item_titles(browser)
    shot("fixed", at="#checklist-h")

    assert phone(server, ca, public_key) == "verified"
