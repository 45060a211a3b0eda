"""One environment head and tab bar on every page of an environment: each tab, and every page of the environment a
tab links to (an Android app's page, the Traffic tab's one-click fixes), shows all five tabs in order, the attack-mode
badge when it is on, and marks the page's own tab. A page that drops a tab (the Traffic tab once rendered a copy of
the head without Enforcement) fails here."""
from urllib.parse import urlparse

from selenium.webdriver.common.by import By

from conftest import Shots
from test_dashboard import PASSWORD, environment_id, fill, submit

TABS = ["Overview", "Apps", "Keys", "Traffic", "Enforcement"]
PATHS = {"Overview": "", "Apps": "/apps", "Keys": "/keys", "Traffic": "/traffic", "Enforcement": "/enforcement"}


def tab_bar(browser):
    """The tab bar's labels and the label marked as the current page."""
    links = browser.find_elements(By.CSS_SELECTOR, "nav.tabs a")
    current = [a.text for a in links if a.get_attribute("aria-current") == "page"]
    return [a.text for a in links], current


def test_every_page_of_an_environment_shows_every_tab(demo_server, browser):
    shot = Shots(browser, "environment-tabs")
    browser.get(demo_server.setup_link)
    fill(browser, {"email": "owner@example.com", "password": PASSWORD, "confirm": PASSWORD})
    submit(browser)
    demo = environment_id(browser, demo_server, "Demo")
    base = f"{demo_server.base}/environments/{demo}"
    # Attack mode on, so that the badge's presence is checked on every page too.
    browser.get(base)
    submit(browser, "form:has(input[name=attackMode][value=on])")
    linked = set()
    for tab in TABS:
        browser.get(base + PATHS[tab])
        labels, current = tab_bar(browser)
        assert labels == TABS, f"{tab}: the tab bar shows {labels}"
        assert current == [tab], f"{tab}: the current tab is {current}"
        assert browser.find_elements(By.CSS_SELECTOR, ".env-title .badge.warn"), f"{tab}: no attack-mode badge"
        shot(tab.lower())
        for a in browser.find_elements(By.CSS_SELECTOR, "main a[href]"):
            path = urlparse(a.get_attribute("href")).path
            # Pages of this environment that tabs link to (not the tabs themselves, not confirmations of a removal).
            if path.startswith(f"/environments/{demo}/") and path.rstrip("/") not in {f"/environments/{demo}{p}" for p in PATHS.values()} \
                    and not any(word in path for word in ("/delete", "/remove", "/revoke")):
                linked.add(path)
    assert linked, "no page of the environment is linked from its tabs"
    for path in sorted(linked):
        browser.get(demo_server.base + path)
        if not browser.find_elements(By.CSS_SELECTOR, ".page-head .env-title"):
            continue  # not a page of its own (a download, a JSON document)
        labels, _ = tab_bar(browser)
        assert labels == TABS, f"{path}: the tab bar shows {labels}"
        assert browser.find_elements(By.CSS_SELECTOR, ".env-title .badge.warn"), f"{path}: no attack-mode badge"
