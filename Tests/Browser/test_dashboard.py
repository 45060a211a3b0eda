"""An admin's journey through the dashboard, in a real browser against a real server."""
import base64
import json
import pathlib
import subprocess
import tempfile
import urllib.error
import urllib.request

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import Shots

PASSWORD = "correct horse battery staple"


def fill(driver, values):
    for name, value in values.items():
        field = driver.find_element(By.NAME, name)
        field.clear()
        field.send_keys(value)


def navigating(driver, action):
    """Runs an action that loads a new page and waits until the new page has replaced the old one and loaded."""
    old = driver.find_element(By.TAG_NAME, "html")
    action()

    def replaced(_):
        try:
            old.is_enabled()
            return False
        except WebDriverException:
            # Stale, or (chromedriver, mid-navigation) "node does not belong to the document": the page went away.
            return True

    WebDriverWait(driver, 15).until(replaced)
    WebDriverWait(driver, 15).until(lambda d: d.execute_script("return document.readyState") == "complete")


def submit(driver, form_css="main form"):
    navigating(driver, lambda: driver.find_element(By.CSS_SELECTOR, form_css + " button[type=submit]").click())


def click(driver, css):
    navigating(driver, lambda: driver.find_element(By.CSS_SELECTOR, css).click())


def flash_in_view(driver):
    """The text of the page's flash message if the window shows it whole without scrolling, else None."""
    return driver.execute_script("""
        const flash = document.querySelector('.flash');
        if (!flash) return null;
        const box = flash.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight ? flash.textContent : null;""")


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
    click(browser, "form[action='/logout'] button")
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

    register_apps_and_keys(server, browser, shot)
    management_token_and_viewer(server, browser, shot)


def owner_with_production(browser, server):
    """Creates the first owner from the setup link and, on the page that follows, a production environment named
    Production; returns its id."""
    browser.get(server.setup_link)
    fill(browser, {"email": "owner@example.com", "password": PASSWORD, "confirm": PASSWORD})
    submit(browser)
    fill(browser, {"name": "Production"})
    submit(browser, "form[action='/environments']")
    assert browser.find_element(By.ID, "secret-value").text.startswith("sk_live_")
    return environment_id(browser, server, "Production")


def environment_id(browser, server, name):
    browser.get(server.base + "/environments")
    href = browser.find_element(By.LINK_TEXT, name).get_attribute("href")
    return href.rstrip("/").split("/")[-1]


def register_apps_and_keys(server, browser, shot):
    env = environment_id(browser, server, "Production")
    apps = f"{server.base}/environments/{env}/apps"

    # An Android app with its digest typed in base64 is shown as uppercase colon hex.
    digest = bytes(range(100, 132))
    browser.get(apps)
    fill(browser, {"packageName": "com.example.app", "certificateDigests": base64.b64encode(digest).decode()})
    submit(browser, "form[action$='/apps/android']")
    colon_hex = ":".join(f"{b:02X}" for b in digest)
    assert colon_hex in browser.find_element(By.CSS_SELECTOR, "#android table").text.replace("\n", "")
    shot("android-registered", narrow=True)

    # An invalid package name: the message beside the field, the input kept.
    for closed in browser.find_elements(By.CSS_SELECTOR, "#android details:not([open]) summary"):
        closed.click()
    fill(browser, {"packageName": "not a package", "certificateDigests": "AB:CD"})
    submit(browser, "form[action$='/apps/android']")
    assert "Android application id" in browser.find_element(By.ID, "packageName-error").text
    assert browser.find_element(By.ID, "packageName").get_attribute("value") == "not a package"
    assert browser.find_element(By.ID, "packageName").get_attribute("aria-invalid") == "true"
    shot("android-invalid", narrow=True)

    # An Apple app id, with its rpId hash.
    browser.get(apps)
    fill(browser, {"appId": "ABCDE12345.com.example.app"})
    submit(browser, "form[action$='/apps/apple']")
    assert "ABCDE12345.com.example.app" in browser.page_source
    # What was done is said where the admin looks: the page opens at its flash, not scrolled to the section.
    assert "Registered ABCDE12345.com.example.app" in (flash_in_view(browser) or "")
    shot("apple-registered")

    # Upload a service-account JSON file (a real RSA key): shown as set, never echoed.
    key = subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], capture_output=True, text=True, check=True).stdout
    account = {"type": "service_account", "project_id": "browser-project", "private_key_id": "abc", "private_key": key,
               "client_email": "integrity@browser-project.iam.gserviceaccount.com", "client_id": "1",
               "token_uri": "https://oauth2.googleapis.com/token"}
    path = pathlib.Path(tempfile.mkdtemp()) / "service-account.json"
    path.write_text(json.dumps(account))
    browser.get(apps)
    browser.find_element(By.ID, "serviceAccountFile").send_keys(str(path))
    submit(browser, "form[action$='/play-integrity/service-account']")
    page = browser.page_source
    assert "integrity@browser-project.iam.gserviceaccount.com" in page
    assert key.splitlines()[1] not in page
    assert "Service account set" in (flash_in_view(browser) or "")
    browser.get(apps)
    assert browser.find_element(By.ID, "play-integrity").text.count("Set") >= 1
    shot("service-account-set", narrow=True)

    # Create a secret key (shown once), then roll it with a grace period.
    browser.get(f"{server.base}/environments/{env}/keys")
    fill(browser, {"name": "Backend"})
    browser.find_element(By.CSS_SELECTOR, "#key-type option[value=secret]").click()
    submit(browser, f"form[action='/environments/{env}/keys']")
    first = browser.find_element(By.ID, "secret-value").text
    assert first.startswith("sk_live_")
    shot("key-created")
    browser.get(f"{server.base}/environments/{env}/keys")
    assert first not in browser.page_source
    row = [r for r in browser.find_elements(By.CSS_SELECTOR, "tbody tr") if "Backend" in r.text][0]
    navigating(browser, lambda: row.find_element(By.CSS_SELECTOR, "form.roll-form button").click())
    second = browser.find_element(By.ID, "secret-value").text
    assert second.startswith("sk_live_") and second != first
    browser.get(f"{server.base}/environments/{env}/keys")
    assert "expiring" in browser.page_source
    shot("key-rolled", narrow=True)


def management_token_and_viewer(server, browser, shot):
    # A management token made in the browser works against the API.
    browser.get(server.base + "/tokens")
    fill(browser, {"name": "Terraform"})
    browser.find_element(By.ID, "scope-write").click()
    submit(browser, "form[action='/tokens']")
    token = browser.find_element(By.ID, "secret-value").text
    assert token.startswith("gtm_")
    shot("token-created", narrow=True)
    request = urllib.request.Request(server.base + "/api/management/v1/environments", data=json.dumps({"name": "Staging", "kind": "development"}).encode(),
                                     method="POST", headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 201

    # A viewer sees no forms, and its forged POST is refused.
    server.cli("admin", "create", "--email", "viewer@example.com", "--role", "viewer", stdin=PASSWORD + "\n")
    browser.get(server.base + "/environments")
    click(browser, "form[action='/logout'] button")
    sign_in(browser, server, "viewer@example.com")
    env = environment_id(browser, server, "Production")
    for page in ("/environments", f"/environments/{env}/apps", f"/environments/{env}/keys", "/tokens"):
        browser.get(server.base + page)
        forms = [f.get_attribute("action") for f in browser.find_elements(By.CSS_SELECTOR, "form[method=post]")]
        assert all(a.endswith("/logout") for a in forms), (page, forms)
    shot("viewer-apps", narrow=True)
    cookie = browser.get_cookie("gatehouse_session")["value"]
    csrf = browser.find_element(By.CSS_SELECTOR, "form[action='/logout'] input[name=csrf]").get_attribute("value")
    forged = urllib.request.Request(f"{server.base}/environments/{env}/apps/apple", data=f"csrf={csrf}&appId=ZZZZZ99999.com.forged".encode(), method="POST",
                                    headers={"Cookie": "gatehouse_session=" + cookie, "Content-Type": "application/x-www-form-urlencoded"})
    try:
        urllib.request.urlopen(forged)
        raise AssertionError("a viewer's POST was accepted")
    except urllib.error.HTTPError as error:
        assert error.code == 403
    browser.get(f"{server.base}/environments/{env}/apps")
    assert "ZZZZZ99999" not in browser.page_source
