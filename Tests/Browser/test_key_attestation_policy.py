"""The Key Attestation policy on the Apps tab, in a real browser against a real server (issue 46): the tab's index
reaches the section; an owner registers com.example.app, turns key attestation on with a GrapheneOS boot key, a
patch level and a version code; a boot key that is not 64 hex digits is refused beside its field and nothing is
saved; the saved policy is what the page shows again and what the Management API answers. Desktop and phone
screenshots go to .build/screenshots/key-attestation-*.png."""
import json
import urllib.request

from selenium.webdriver.common.by import By

from conftest import Shots
from test_app_attest import flash, status
from test_dashboard import fill, owner_with_production, submit

PACKAGE = "com.example.app"
DIGEST = ":".join(["AB"] * 32)
# GrapheneOS's published verified boot key fingerprint for the Pixel 7 Pro (its attestation compatibility guide).
GRAPHENEOS_PIXEL_7_PRO = "bc1c0dd95664604382bb888412026422742eb333071ea0b2d19036217d49182f"
FORM = "form[action$='/key-attestation/policy']"


def test_key_attestation_policy_form(server, browser):
    shot = Shots(browser, "key-attestation")
    env = owner_with_production(browser, server)
    apps = f"{server.base}/environments/{env}/apps"
    browser.get(apps)
    fill(browser, {"packageName": PACKAGE, "certificateDigests": DIGEST})
    submit(browser, "form[action$='/apps/android']")
    assert flash(browser).startswith(f"Registered {PACKAGE}"), flash(browser)

    # The tab's index leads to the section; off by default.
    index = [a.get_attribute("textContent").strip() for a in browser.find_elements(By.CSS_SELECTOR, "nav.section-index a")]
    assert "Key Attestation policy" in index, index
    browser.find_element(By.CSS_SELECTOR, "nav.section-index a[href='#key-attestation']").click()
    assert browser.execute_script("return location.hash") == "#key-attestation"
    assert not browser.find_element(By.ID, "keyAttestationEnabled").is_selected()
    shot("index", narrow=True, at="nav.section-index")

    # A boot key that is not one: refused beside its field, nothing saved.
    browser.find_element(By.ID, "keyAttestationEnabled").click()
    fill(browser, {"bootKeys": "not-a-key", "minimumPatchLevel": "2025-06"})
    submit(browser, FORM)
    assert status(browser) == 422
    error = browser.find_element(By.ID, "bootKeys-error").get_attribute("textContent")
    assert "64 hex digits" in error, error
    assert browser.find_element(By.ID, "bootKeys").get_attribute("value") == "not-a-key"
    assert browser.find_element(By.ID, "minimumPatchLevel").get_attribute("value") == "2025-06"
    shot("refused", narrow=True, at="#key-attestation")
    browser.get(apps)
    assert not browser.find_element(By.ID, "keyAttestationEnabled").is_selected(), "a refused form saved nothing"

    # The policy saved, then shown again.
    browser.find_element(By.ID, "keyAttestationEnabled").click()
    fill(browser, {"bootKeys": GRAPHENEOS_PIXEL_7_PRO.upper(), "minimumPatchLevel": "2025-06", f"keyVersionCode-{PACKAGE}": "42"})
    browser.find_element(By.ID, "securityLevel-strongbox").click()
    submit(browser, FORM)
    assert flash(browser) == "Key Attestation policy saved.", flash(browser)
    assert browser.find_element(By.ID, "keyAttestationEnabled").is_selected()
    assert browser.find_element(By.ID, "bootKeys").get_attribute("value") == GRAPHENEOS_PIXEL_7_PRO
    assert browser.find_element(By.ID, "securityLevel-strongbox").is_selected()
    assert browser.find_element(By.ID, f"keyVersionCode-{PACKAGE}").get_attribute("value") == "42"
    assert browser.find_element(By.ID, "minimumPatchLevel").get_attribute("value") == "2025-06"
    accepted = browser.find_element(By.CSS_SELECTOR, "#key-attestation ul[aria-label='Boot keys accepted now']").get_attribute("textContent")
    assert "GrapheneOS on Pixel 7 Pro" in accepted, accepted
    shot("saved", narrow=True, at="#key-attestation")

    # What the Management API answers is what the form saved.
    token = server.cli("token", "create", "--name", "browser-key-attestation", "--scope", "read").strip()
    request = urllib.request.Request(f"{server.base}/api/management/v1/environments/{env}", headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request) as response:
        policy = json.load(response)["keyAttestation"]
    assert policy == {"enabled": True, "securityLevel": "strongbox", "bootKeys": [GRAPHENEOS_PIXEL_7_PRO], "requireLocked": True,
                      "minimumPatchLevel": "2025-06", "minimumVersionCode": {PACKAGE: 42}, "revocation": "refuse"}, policy
