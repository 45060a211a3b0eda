"""Browser tests: a real `gatehouse serve` on a temporary SQLite file, driven by Debian's chromium through selenium.

Each step saves a screenshot under .build/screenshots/ (1280x800, and 390x844 for the narrow ones).
"""
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("GATEHOUSE_BIN") or ROOT / ".build" / "debug" / "gatehouse")
SHOTS = ROOT / ".build" / "screenshots"


class Gatehouse:
    """A running `gatehouse serve` process with its first lines of output parsed."""

    def __init__(self, extra_args=()):
        self.directory = tempfile.mkdtemp(prefix="gatehouse-browser-")
        self.database = os.path.join(self.directory, "gatehouse.sqlite")
        self.process = subprocess.Popen(
            [str(BINARY), "serve", "--port", "0", "--database", self.database, "--resources", str(ROOT), *extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        self.base = None
        self.setup_link = None
        deadline = time.time() + 30
        while time.time() < deadline and (self.base is None or self.setup_link is None):
            line = self.process.stdout.readline()
            if not line:
                break
            if m := re.search(r"listening on (http://\S+)", line):
                self.base = m.group(1)
            if m := re.search(r"(http://\S+/setup/\S+)", line):
                self.setup_link = m.group(1)
        assert self.base, "gatehouse serve did not start"

    def cli(self, *args, stdin=None):
        return subprocess.run([str(BINARY), *args, "--database", self.database], input=stdin, capture_output=True, text=True, check=True).stdout

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            assert self.process.wait(timeout=15) == 0
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture
def server():
    s = Gatehouse()
    yield s
    s.stop()


@pytest.fixture
def ca():
    """`gatehouse simulate make-ca`'s directory: the synthetic App Attest CA (roots.pem, receipt-roots.pem, ca.pem, ca.key,
    a receipt signer) and key attestation CA (key-attestation-roots.pem, key-attestation-ca.pem and .key)."""
    directory = tempfile.mkdtemp(prefix="gatehouse-browser-ca-")
    subprocess.run([str(BINARY), "simulate", "make-ca", directory], capture_output=True, text=True, check=True)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def demo_server():
    s = Gatehouse(["--demo"])
    yield s
    s.stop()


@pytest.fixture
def browser():
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_window_size(1280, 800)
    driver.implicitly_wait(5)
    yield driver
    driver.quit()


class Shots:
    """Numbered screenshots of each step."""

    def __init__(self, driver, prefix):
        self.driver = driver
        self.prefix = prefix
        self.count = 0
        SHOTS.mkdir(parents=True, exist_ok=True)

    def __call__(self, name, narrow=False, at=None):
        """Saves the window (and, `narrow`, the window at phone size); `at`, a CSS selector, is scrolled into view
        first at each size (a resize moves what the window shows)."""
        self.count += 1
        path = SHOTS / f"{self.prefix}-{self.count:02d}-{name}.png"
        self.scroll(at)
        self.driver.save_screenshot(str(path))
        if narrow:
            self.driver.set_window_size(390, 844)
            self.scroll(at)
            self.driver.save_screenshot(str(SHOTS / f"{self.prefix}-{self.count:02d}-{name}-phone.png"))
            self.driver.set_window_size(1280, 800)
        return path

    def scroll(self, css):
        if css:
            self.driver.execute_script("document.querySelector(arguments[0]).scrollIntoView()", css)
