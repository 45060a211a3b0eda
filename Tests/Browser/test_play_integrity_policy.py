"""The Play Integrity policy, in a real browser against a real server (issue 38: "raise deviceIntegrity to strong, see
the next device-integrity phone refused and the checklist say why"): an owner registers com.example.app and sets
throwaway local keys (`gatehouse simulate make-keys`) on the Apps tab; a simulated phone with device integrity is
verified; the policy form refuses a bad SDK level beside its field and saves nothing, then raises device integrity to
strong; the same phone is then refused strongIntegrityNotMet with GET_STRONG_INTEGRITY offered, a strong phone still
passes, and the Traffic tab's checklist, chart and Android phones say so. Desktop and phone screenshots go to
.build/screenshots/play-policy-*.png."""
import json
import shutil
import subprocess
import tempfile
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import BINARY, Shots
from test_app_attest import flash, status
from test_dashboard import fill, owner_with_production, submit

PACKAGE = "com.example.app"
DIGEST = bytes([0xAB] * 32)
STRONG_TITLE = "Most devices lack the strong integrity the policy asks"
REFUSED = {"provider": "play-integrity", "status": "rejected", "reasons": ["strongIntegrityNotMet"],
           "remediation": {"dialog": "GET_STRONG_INTEGRITY", "code": 5}}


@pytest.fixture
def keys():
    """Throwaway Play Integrity response keys (make-keys): DIR/decryption.key, DIR/verification.pem and the printed JSON."""
    directory = tempfile.mkdtemp(prefix="gatehouse-browser-pi-")
    run = subprocess.run([str(BINARY), "simulate", "make-keys", directory], capture_output=True, text=True, check=True)
    local = json.loads(run.stdout)["playIntegrity"]["local"]
    yield directory, local
    shutil.rmtree(directory, ignore_errors=True)


def phone(server, directory, public_key, verdict):
    """One simulated Android phone (`gatehouse simulate --platform android`) → its JSON output."""
    with open(f"{directory}/decryption.key") as f:
        decryption_key = f.read().strip()
    run = subprocess.run([str(BINARY), "simulate", "--endpoint", server.base, "--api-key", public_key, "--platform", "android",
                          "--decryption-key", decryption_key, "--verification-private-key", f"{directory}/verification.pem",
                          "--digest", DIGEST.hex(), "--verdict", verdict],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, (verdict, run.returncode, run.stdout, run.stderr)
    return json.loads(run.stdout)


def checklist_titles(browser):
    return [t.get_attribute("textContent").strip() for t in browser.find_elements(By.CSS_SELECTOR, ".checklist .item-title")]


def traffic_ready(browser):
    """True once the checklist names the strong-integrity item and #androids shows version code 42 and SDK 34."""
    text = browser.execute_script("const s = document.getElementById('androids'); return s ? s.textContent : ''")
    return STRONG_TITLE in checklist_titles(browser) and "42" in text and "34" in text


def test_strong_integrity_policy_refuses_device_integrity_phones(server, keys, browser):
    directory, local = keys
    shot = Shots(browser, "play-policy")
    base = server.base
    env = owner_with_production(browser, server)
    apps = f"{base}/environments/{env}/apps"

    # 1. The Android app with its signing certificate, then the local keys, through the Apps tab's forms.
    browser.get(apps)
    fill(browser, {"packageName": PACKAGE, "certificateDigests": ":".join(f"{b:02X}" for b in DIGEST)})
    submit(browser, "form[action$='/apps/android']")
    assert flash(browser).startswith(f"Registered {PACKAGE}"), flash(browser)
    fill(browser, {"decryptionKey": local["decryptionKey"], "verificationKey": local["verificationKey"]})
    submit(browser, f"form[action='/environments/{env}/play-integrity/local']")
    assert flash(browser).startswith("Local keys set"), flash(browser)
    assert local["decryptionKey"] not in browser.page_source

    # 2. A phone with device integrity passes the default policy.
    browser.get(f"{base}/environments/{env}/keys")
    public_key = next(code.text for code in browser.find_elements(By.CSS_SELECTOR, "code.key-value") if code.text.startswith("pk_"))
    out = phone(server, directory, public_key, "genuine")
    assert out["assess"]["body"]["attestation"]["status"] == "verified", out["assess"]

    # 3. The policy section: the default is device integrity.
    browser.get(apps)
    assert browser.find_element(By.ID, "play-policy-heading").text == "Play Integrity policy"
    assert browser.find_element(By.ID, "deviceIntegrity-device").is_selected()
    shot("policy", narrow=True, at="#play-policy")

    # A bad SDK level (with strong ticked too): re-rendered (422) with the message beside the field, the choices kept…
    policy_form = f"form[action='/environments/{env}/play-integrity/policy']"
    browser.find_element(By.ID, "deviceIntegrity-strong").click()
    fill(browser, {"minimumSdkVersion": "lots"})
    submit(browser, policy_form)
    accepted = browser.execute_script("const f = document.querySelector('.flash'); return f && f.textContent")
    assert not accepted, f"'lots' was accepted: {accepted}"
    assert status(browser) == 422
    error = browser.find_element(By.ID, "sdk-error").text
    assert error.startswith("SDK level "), error
    field = browser.find_element(By.ID, "minimumSdkVersion")
    assert field.get_attribute("aria-invalid") == "true"
    assert "sdk-error" in field.get_attribute("aria-describedby").split()
    assert field.get_attribute("value") == "lots"
    assert browser.find_element(By.ID, "deviceIntegrity-strong").is_selected()
    assert browser.find_elements(By.CSS_SELECTOR, ".notice.fail a[href='#play-policy']"), "no notice pointing at the policy"
    shot("policy-invalid-notice", narrow=True)
    shot("policy-invalid", narrow=True, at="label[for=minimumSdkVersion]")
    shot("policy-invalid-end", narrow=True, at="#play-policy fieldset:last-of-type")

    # … and nothing saved.
    browser.get(apps)
    assert browser.find_element(By.ID, "deviceIntegrity-device").is_selected()
    assert browser.find_element(By.ID, "minimumSdkVersion").get_attribute("value") == ""

    # Strong integrity, saved.
    browser.find_element(By.ID, "deviceIntegrity-strong").click()
    submit(browser, policy_form)
    assert flash(browser) == "Play Integrity policy saved."
    shot("policy-saved", narrow=True)
    browser.get(apps)
    assert browser.find_element(By.ID, "deviceIntegrity-strong").is_selected()
    assert not browser.find_element(By.ID, "deviceIntegrity-device").is_selected()

    # 4. The same phone is now refused, offered the dialog that would fix it; a strong phone passes.
    for _ in range(3):
        out = phone(server, directory, public_key, "genuine")
        assert out["assess"]["body"]["attestation"] == REFUSED, out["assess"]
    out = phone(server, directory, public_key, "strong")
    assert out["assess"]["body"]["attestation"]["status"] == "verified", out["assess"]

    # 5. The Traffic tab: the checklist says why, the chart marks the change, the Android phones are counted.
    traffic = f"{base}/environments/{env}/traffic"
    deadline = time.monotonic() + 10
    while True:
        browser.get(traffic)
        if traffic_ready(browser) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    titles = checklist_titles(browser)
    assert STRONG_TITLE in titles, titles
    item = browser.find_element(By.ID, "android.strongIntegrity")
    assert "warn" in item.get_attribute("class").split()
    detail = item.find_element(By.CSS_SELECTOR, ".item-detail").get_attribute("textContent")
    assert "strongIntegrityNotMet" in detail and "chart marks when the policy changed" in detail, detail

    marks = [t.get_attribute("textContent") for t in browser.find_elements(By.CSS_SELECTOR, "svg.chart line.change title")]
    assert any("playIntegrity.policy" in m for m in marks), marks
    listed = [li.get_attribute("textContent") for li in browser.find_elements(By.CSS_SELECTOR, ".traffic-changes li")]
    assert any("playIntegrity.policy" in m for m in listed), listed

    androids = browser.find_element(By.ID, "androids")
    columns = {h.get_attribute("textContent"): h.find_element(By.XPATH, "..").get_attribute("textContent")
               for h in androids.find_elements(By.TAG_NAME, "h3")}
    assert "42" in [c.get_attribute("textContent") for c in androids.find_elements(By.XPATH, ".//h3[.='Version codes']/../ul//code")], columns
    assert "34" in [c.get_attribute("textContent") for c in androids.find_elements(By.XPATH, ".//h3[.='Android SDK levels']/../ul//code")], columns
    shot("checklist", narrow=True, at="#android\\.strongIntegrity")
    shot("chart", narrow=True, at="#chart-h")
    shot("androids", narrow=True, at="#androids")
