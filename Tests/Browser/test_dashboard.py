"""An admin's journey through the dashboard, in a real browser against a real server."""
import json
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By

from conftest import Shots

PASSWORD = "correct horse battery staple"


def fill(driver, values):
    for name, value in values.items():
        field = driver.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)


def submit(driver, form_css="main form"):
    driver.find_element(By.CSS_SELECTOR, form_css + " button[type=submit]").click()


def sign_in(driver, server, email, password=PASSWORD):
    driver.get(server.base + "/login")
    fill(driver, {"email": email, "password": password})
    submit(driver)


def test_first_admin_sign_in_and_environment(server, browser):
    shot = Shots(browser, "journey")
    assert server.setup_link, "a fresh install prints a setup link"

    # The one-time setup link creates the first owner.
    browser.get(server.setup_link)
    assert "Welcome to Gatehouse" in browser.page_source
    shot("setup", narrow=True)
    fill(browser, {"email": "owner@example.com", "password": PASSWORD, "confirm": PASSWORD})
    submit(browser)
    assert browser.current_url.endswith("/environments")
    assert "first owner" in browser.page_source
    shot("welcome")

    # The link is gone once used.
    browser.get(server.setup_link)
    assert "Error 404" in browser.page_source

    # Sign out, fail a login, sign in.
    browser.get(server.base + "/environments")
    browser.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
    assert browser.current_url.endswith("/login")
    sign_in(browser, server, "owner@example.com", "not the password")
    assert "do not match" in browser.find_element(By.ID, "login-error").text
    assert browser.find_element(By.NAME, "email").get_attribute("value") == "owner@example.com"
    shot("login-failed", narrow=True)
    sign_in(browser, server, "owner@example.com")
    assert browser.current_url.endswith("/environments")

    # Create an environment; the secret key is shown once.
    fill(browser, {"name": "Production"})
    submit(browser, "form[action='/environments']")
    secret = browser.find_element(By.ID, "secret-value").text
    assert secret.startswith("sk_live_")
    shot("environment-created", narrow=True)
    browser.get(server.base + "/environments")
    assert "Production" in browser.page_source
    assert secret not in browser.page_source
    shot("environments", narrow=True)

    # A form posted without its CSRF token changes nothing.
    cookie = browser.get_cookie("gatehouse_session")["value"]
    request = urllib.request.Request(server.base + "/environments", data=b"name=Forged&kind=production", method="POST",
                                     headers={"Cookie": "gatehouse_session=" + cookie, "Content-Type": "application/x-www-form-urlencoded"})
    try:
        urllib.request.urlopen(request)
        raise AssertionError("a POST without CSRF token was accepted")
    except urllib.error.HTTPError as error:
        assert error.code == 403
    browser.get(server.base + "/environments")
    assert "Forged" not in browser.page_source

    # The API sees the same environment with a token made by the CLI.
    token = server.cli("token", "create", "--name", "browser-test", "--scope", "read").strip()
    with urllib.request.urlopen(urllib.request.Request(server.base + "/api/management/v1/environments",
                                                       headers={"Authorization": "Bearer " + token})) as response:
        names = [e["name"] for e in json.load(response)["environments"]]
    assert names == ["Production"]
