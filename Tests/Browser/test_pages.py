"""Every dashboard page, as an owner on the demo: it renders (no error page) and fits a phone's width without
sideways scrolling. Each page is saved at 1280x800 and 390x844 under .build/screenshots/pages-*.png."""
import re

from selenium.webdriver.common.by import By

from conftest import SHOTS
from test_dashboard import PASSWORD, environment_id, fill, navigating, submit

ERROR_TITLES = ("Not found", "Forbidden", "Bad request", "Internal", "Method not allowed", "Conflict")


def links(browser, pattern):
    """The first link on the page whose href matches `pattern`."""
    for a in browser.find_elements(By.CSS_SELECTOR, "a[href]"):
        href = a.get_attribute("href")
        if re.search(pattern, href):
            return href
    raise AssertionError(f"no link matching {pattern} on {browser.current_url}")


# The media rules that hold another media rule: an @media block left unclosed swallows every rule after it (and the
# next @media), which then apply on phones only.
NESTED_MEDIA = """
const nested = [];
for (const sheet of document.styleSheets) {
  for (const rule of sheet.cssRules) {
    if (!(rule instanceof CSSMediaRule)) continue;
    for (const inner of rule.cssRules) {
      if (inner instanceof CSSMediaRule) nested.push(rule.conditionText + " > " + inner.conditionText);
    }
  }
}
return nested;
"""


def desktop_style(browser, selector, prop):
    """The computed `prop` of the first element matching `selector`, in the 1280-pixel-wide window."""
    return browser.execute_script(
        "return getComputedStyle(document.querySelector(arguments[0])).getPropertyValue(arguments[1])", selector, prop)


def look(browser, name, counter=[0]):
    """Both sizes of the current page: saved, titled without error, and as wide as the window on a phone."""
    counter[0] += 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    title = browser.title
    assert not any(t.lower() in title.lower() for t in ERROR_TITLES), f"{browser.current_url}: {title}"
    browser.save_screenshot(str(SHOTS / f"pages-{counter[0]:02d}-{name}.png"))
    browser.set_window_size(390, 844)
    try:
        browser.save_screenshot(str(SHOTS / f"pages-{counter[0]:02d}-{name}-phone.png"))
        overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{browser.current_url} is {overflow}px wider than a phone"
    finally:
        browser.set_window_size(1280, 800)


def test_every_page_renders_and_fits_a_phone(demo_server, browser):
    browser.get(demo_server.setup_link)
    look(browser, "setup")
    # Every page links the same stylesheet: checked once.
    assert browser.execute_script(NESTED_MEDIA) == [], "an @media block of the stylesheet is left unclosed"
    fill(browser, {"email": "owner@example.com", "password": PASSWORD, "confirm": PASSWORD})
    submit(browser)
    demo_server.cli("admin", "create", "--email", "viewer@example.com", "--role", "viewer", stdin=PASSWORD + "\n")
    demo_server.cli("token", "create", "--name", "Terraform", "--scope", "write")

    base = demo_server.base
    env = environment_id(browser, demo_server, "Demo")
    look(browser, "environments")
    for path, name in [(f"/environments/{env}", "overview"), (f"/environments/{env}/apps", "apps")]:
        browser.get(base + path)
        look(browser, name)
    # The environment pages' own rules hold on a desktop, not only on a phone: each credential is a bordered box.
    assert desktop_style(browser, ".credential", "border-top-width") == "1px"
    apps = browser.current_url
    for pattern, name in [(r"/apps/android/[^/]+$", "android-edit"), (r"/apps/android/[^/]+/remove$", "android-remove"),
                          (r"/apps/apple/[^/]+/remove$", "apple-remove")]:
        browser.get(apps)
        browser.get(links(browser, pattern))
        look(browser, name)
    browser.get(f"{base}/environments/{env}/keys")
    look(browser, "keys")
    browser.get(links(browser, r"/keys/[^/]+/revoke$"))
    look(browser, "key-revoke")
    browser.get(f"{base}/environments/{env}/traffic")
    look(browser, "traffic")
    assert desktop_style(browser, ".traffic-table th[scope=row]", "text-transform") == "none"
    browser.get(links(browser, r"/traffic/add-digest"))
    look(browser, "add-digest")
    browser.get(f"{base}/environments/{env}/delete")
    look(browser, "environment-delete")
    for path, name, confirm in [("/tokens", "tokens", r"/tokens/[^/]+/revoke$"), ("/admins", "admins", r"/admins/[^/]+/disable$")]:
        browser.get(base + path)
        look(browser, name)
        browser.get(links(browser, confirm))
        look(browser, name + "-confirm")
    for path, name in [("/audit", "audit"), ("/account", "account")]:
        browser.get(base + path)
        look(browser, name)

    navigating(browser, lambda: browser.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click())
    browser.get(base + "/login")
    look(browser, "login")
