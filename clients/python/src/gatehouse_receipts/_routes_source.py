"""One source of truth for modes (docs/device-api.md "One source of truth for modes"): the environment's routes and modes
fetched from ``GET /api/v4/edge/routes`` when the library starts (in a background thread, so the application's start
never waits) and again every 30 s, revalidated with the ``ETag``; the last good set kept while Gatehouse cannot be
reached; and a secret key Gatehouse refuses, or one of another environment, a misconfiguration."""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from typing import Callable, Optional, Tuple

from . import _http
from ._http import GatehouseUnavailable
from ._judgement import MISCONFIGURED, UNAVAILABLE
from ._routes import Settings

log = logging.getLogger("gatehouse_receipts")

ROUTES_PATH = "/api/v4/edge/routes"


class Alarm:
    """A misconfiguration logged at error level, at most once a minute (a refused secret key would otherwise log
    once per call)."""

    INTERVAL = 60.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last: Optional[float] = None
        self._lock = threading.Lock()
        #: How many misconfigurations were raised (logged or not), for tests and metrics.
        self.raised = 0

    def misconfigured(self, message: str) -> None:
        """Logs ``message`` (which never holds the secret key) unless another was logged in the last minute."""
        with self._lock:
            self.raised += 1
            now = self._clock()
            if self._last is not None and now - self._last < self.INTERVAL:
                return
            self._last = now
        log.error("gatehouse_receipts: misconfigured (the operator must fix the configuration): %s", message)


class FixedRoutes:
    """Routes given in code: always known."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def current(self) -> Tuple[Optional[Settings], Optional[str]]:
        """(the routes, None)."""
        return self.settings, None

    def close(self) -> None:
        """Nothing to stop."""


class RoutesSource:
    """The environment's ``{"environment", "mode", "routes"}`` from Gatehouse, fetched with the secret key.

    :meth:`current` never waits: (the routes, None) once an answer came, (None, ``"unavailable"``) until then, and
    (None, ``"misconfigured"``) while Gatehouse refuses the key (401, 403) or names another environment than
    ``environment``. ``interval`` (30 s) is read before each wait, and :meth:`wake` fetches at once; a failed first
    fetch is tried again after a second. A forked child starts its own thread."""

    #: Seconds between two fetches (Gatehouse answers ``Cache-Control: max-age=30``).
    INTERVAL = 30.0
    #: Seconds before a failed fetch is tried again while no routes were ever had.
    FIRST_RETRY_INTERVAL = 1.0

    def __init__(self, gatehouse_url: str, secret_key: str, environment: str, *, alarm: Alarm,
                 timeout: float = 5.0) -> None:
        self.url = _http.join(gatehouse_url, ROUTES_PATH)
        self.environment = environment
        self.interval = self.INTERVAL
        self.timeout = timeout
        self._secret_key = secret_key
        self._alarm = alarm
        self._settings: Optional[Settings] = None
        self._etag: Optional[str] = None
        #: "key" (refused) or "environment" (another one's) while misconfigured, else None.
        self.misconfiguration: Optional[str] = None
        #: Fetches made (answered or not), for tests and metrics.
        self.fetches = 0
        self._fetching = threading.Lock()
        self._state = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._pid = 0
        self._start()

    def current(self) -> Tuple[Optional[Settings], Optional[str]]:
        """(routes, None), or (None, why they cannot be used): see the class."""
        if self._pid != os.getpid():
            self._start()
        if self.misconfiguration is not None:
            return None, MISCONFIGURED
        settings = self._settings
        if settings is None:
            return None, UNAVAILABLE
        return settings, None

    def wake(self) -> None:
        """Makes the background thread fetch now."""
        self._wake.set()

    def refresh(self) -> None:
        """Fetches now, in the calling thread."""
        with self._fetching:
            self._fetch()

    def close(self) -> None:
        """Stops the background thread."""
        self._stop.set()
        self._wake.set()

    def _start(self) -> None:
        with self._state:
            if self._pid == os.getpid() or self._stop.is_set():
                return
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, name="gatehouse-routes", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.refresh()
            pending = self._settings is None and self.misconfiguration is None
            self._wake.wait(min(self.interval, self.FIRST_RETRY_INTERVAL) if pending else self.interval)
            self._wake.clear()

    def _fetch(self) -> None:
        self.fetches += 1
        headers = {"Authorization": "Bearer " + self._secret_key, "Accept": "application/json",
                   "User-Agent": "gatehouse-receipts-python"}
        if self._etag is not None and self._settings is not None:
            headers["If-None-Match"] = self._etag
        try:
            status, answer_headers, body = _http.request("GET", self.url, headers=headers, timeout=self.timeout)
        except GatehouseUnavailable as error:
            self._unreachable(str(error))
            return
        if status == 304 and self._settings is not None:
            if self.misconfiguration == "key":
                self.misconfiguration = None
            return
        if status in (401, 403):
            self.misconfiguration = "key"
            self._alarm.misconfigured(f"Gatehouse refused the secret key (GET {ROUTES_PATH} answered {status}); "
                                      "judged calls are answered 503 gatehouse-misconfigured")
            return
        if status != 200:
            if status >= 500 or status == 429:
                self._unreachable(f"GET {ROUTES_PATH} answered {status}")
            else:
                log.error("gatehouse_receipts: GET %s answered %s (a Gatehouse older than this library?): %s",
                          ROUTES_PATH, status, self._keeping())
            return
        try:
            answer = json.loads(body)
            environment, mode, routes = answer["environment"], answer["mode"], answer["routes"]
            settings = Settings(routes, mode)
        except (ValueError, KeyError, TypeError) as error:
            log.error("gatehouse_receipts: GET %s answered routes this library cannot read (%s): %s", ROUTES_PATH,
                      error, self._keeping())
            return
        if environment != self.environment:
            self.misconfiguration = "environment"
            self._etag = None
            self._alarm.misconfigured(f"the secret key belongs to environment {environment!s:.64}, not to the "
                                      f"configured {self.environment}; judged calls are answered 503 "
                                      "gatehouse-misconfigured")
            return
        self._settings = settings
        self._etag = answer_headers.get("etag")
        self.misconfiguration = None

    def _keeping(self) -> str:
        return "keeping the last routes" if self._settings is not None else "no routes yet: calls are not judged"

    def _unreachable(self, message: str) -> None:
        log.warning("gatehouse_receipts: routes not fetched (%s): %s", message, self._keeping())

    def __repr__(self) -> str:
        return f"RoutesSource({self.url!r}, secret_key=<hidden>)"
