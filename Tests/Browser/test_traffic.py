"""The demo's traffic page names the upload-key mistake, and one confirmed click fixes it."""
from selenium.webdriver.common.by import By

from conftest import Shots
from test_dashboard import PASSWORD, click, environment_id, fill, submit


def test_demo_checklist_names_the_fault_and_the_fix_turns_it_green(demo_server, browser):
    shot = Shots(browser, "traffic")
    browser.get(demo_server.setup_link)
    fill(browser, {"email": "owner@example.com", "password": PASSWORD, "confirm": PASSWORD})
    submit(browser)
    shot("environments-with-demo")

    env = environment_id(browser, demo_server, "Demo")
    browser.get(f"{demo_server.base}/environments/{env}/traffic")
    item = browser.find_element(By.ID, "android.certificateNotRegistered")
    assert "fail" in item.get_attribute("class")
    assert "upload key" in item.text
    assert "demo data" in browser.page_source.lower()
    # Device reasons and App Attest are not setup faults here.
    assert "fail" not in browser.find_element(By.ID, "apple.appIdNotRegistered").get_attribute("class")
    assert browser.find_elements(By.CSS_SELECTOR, "svg.chart")
    shot("checklist-fails", narrow=True)

    # Add the digest phones report, after a confirmation page of its own.
    seen = item.find_element(By.CSS_SELECTOR, ".fix-action code").text
    click(browser, ".fix-action a")
    assert seen in browser.page_source
    shot("confirm-add-digest", narrow=True)
    submit(browser, "form[action$='/traffic/add-digest']")
    item = browser.find_element(By.ID, "android.certificateNotRegistered")
    assert "ok" in item.get_attribute("class")
    assert "Fixed" in item.get_attribute("textContent")
    shot("checklist-fixed", narrow=True)

    # The configuration is right: the app lists the digest phones report.
    browser.get(f"{demo_server.base}/environments/{env}/apps")
    assert seen in browser.find_element(By.CSS_SELECTOR, "#android table").text.replace("\n", "")
