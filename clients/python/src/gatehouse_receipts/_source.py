"""The receipt signing keys, fetched from Gatehouse and kept (docs/device-api.md "The backend libraries", layer 2)."""
from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
import urllib.parse
from typing import Callable, Dict, Optional, TypeVar

from . import _http
from ._http import GatehouseUnavailable
from ._keys import JWKS, ReceiptError
from ._limits import ReceiptLimits

log = logging.getLogger("gatehouse_receipts")

KEYS_PATH = "/api/v4/receipts/keys"
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d{1,9})\"?\s*(?:,|$)", re.I)


def _max_age(headers: Dict[str, str], default: float) -> float:
    control = headers.get("cache-control", "")
    if re.search(r"(?:^|,)\s*(?:no-cache|no-store)\s*(?:,|$)", control, re.I):
        return 0.0
    match = _MAX_AGE.search(control)
    if match:
        return float(min(int(match.group(1)), 86_400))
    return default


class JWKSSource:
    """Gatehouse's receipt signing keys (``GET /api/v4/receipts/keys``), fetched when first needed and kept while
    the answer's ``Cache-Control: max-age`` allows, then revalidated with its ``ETag`` (``If-None-Match``; a ``304``
    keeps the set). A receipt naming a ``kid`` the set lacks (a new key after ``gatehouse receipts rotate-key``)
    makes it fetch again, at most once in 30 s counted from the last fetch of any kind. While Gatehouse cannot be
    reached the last good set is kept (receipts keep verifying until they expire); a failed fetch is tried again
    after 30 s (1 s while no set was ever had).

    ``url`` is Gatehouse's address (``https://gatehouse.example.com``; the keys' path is added) or the JWKS's own.
    Thread-safe: one fetch at a time, and a stale set is revalidated in a background thread while calls go on with
    it. For asyncio (ASGI), :meth:`get_async` and :meth:`get_for_unknown_kid_async` fetch in a worker thread and
    never block the event loop."""

    #: Seconds between two fetches an unknown ``kid`` may cause (counted from the last fetch of any kind).
    UNKNOWN_KID_INTERVAL = 30.0
    #: Seconds before a failed fetch is tried again while a set is kept.
    RETRY_INTERVAL = 30.0
    #: Seconds before a failed first fetch is tried again.
    FIRST_RETRY_INTERVAL = 1.0
    #: How long a set is kept when the answer has no ``Cache-Control`` (Gatehouse always sends ``max-age=300``).
    DEFAULT_MAX_AGE = 300.0

    def __init__(self, url: str, *, timeout: float = 2.0) -> None:
        _http.base_url(url, "url")
        path = urllib.parse.urlsplit(url).path
        self.url: str = _http.join(url, KEYS_PATH) if path in ("", "/") else url
        self.timeout = float(timeout)
        #: How many times the keys were requested from Gatehouse (200, 304 or failed), for tests and metrics.
        self.fetches = 0
        self._clock: Callable[[], float] = time.monotonic
        self._limits = ReceiptLimits()
        self._keys: Optional[JWKS] = None
        self._etag: Optional[str] = None
        self._fresh_until = 0.0
        self._last_fetch: Optional[float] = None
        self._last_error: Optional[str] = None
        self._fetching = threading.Lock()
        self._state = threading.Lock()
        self._background: Optional[threading.Thread] = None

    # What callers use.

    @property
    def keys(self) -> Optional[JWKS]:
        """The last good set, or None when none was ever fetched (never fetches)."""
        return self._keys

    def current(self) -> Optional[JWKS]:
        """The set to verify with now without waiting: the last good one (revalidated in the background when
        stale), or None when none was ever fetched (then a fetch starts in the background)."""
        keys = self._keys
        if keys is None or self._clock() >= self._fresh_until:
            self._refresh_in_background()
        return keys

    def get(self) -> JWKS:
        """The set to verify with, fetching it first when none was ever had (blocking, at most ``timeout``);
        a stale set is returned at once and revalidated in the background.

        Raises :class:`GatehouseUnavailable` when no set was ever had and Gatehouse cannot give one."""
        keys = self._keys
        if keys is not None:
            if self._clock() >= self._fresh_until:
                self._refresh_in_background()
            return keys
        with self._fetching:
            if self._keys is None and self._due(self.FIRST_RETRY_INTERVAL):
                self._fetch()
        if self._keys is None:
            raise GatehouseUnavailable(f"no receipt keys from {self.url} yet ({self._last_error or 'not fetched'})")
        return self._keys

    def get_for_unknown_kid(self, kid: str) -> Optional[JWKS]:
        """The set after a receipt named ``kid`` that the current set lacks: fetched again (blocking) unless the last
        fetch of any kind was under 30 s ago, or another thread's fetch brought the ``kid`` meanwhile."""
        keys = self._keys
        if keys is not None and kid in keys:
            return keys
        if not self._due(self.UNKNOWN_KID_INTERVAL):
            return keys
        with self._fetching:
            keys = self._keys
            if (keys is None or kid not in keys) and self._due(self.UNKNOWN_KID_INTERVAL):
                self._fetch()
        return self._keys

    async def get_async(self) -> JWKS:
        """:meth:`get` for asyncio: the fetch, when one is needed, runs in a worker thread."""
        keys = self._keys
        if keys is not None:
            if self._clock() >= self._fresh_until:
                self._refresh_in_background()
            return keys
        return await _in_thread(self.get)

    async def get_for_unknown_kid_async(self, kid: str) -> Optional[JWKS]:
        """:meth:`get_for_unknown_kid` for asyncio (the fetch in a worker thread)."""
        keys = self._keys
        if keys is not None and kid in keys:
            return keys
        if not self._due(self.UNKNOWN_KID_INTERVAL):
            return keys
        return await _in_thread(self.get_for_unknown_kid, kid)

    def refresh(self) -> Optional[JWKS]:
        """Fetches now (revalidating with the ``ETag``), whatever the cache says; returns the set kept after it."""
        with self._fetching:
            self._fetch()
        return self._keys

    # Inside.

    def _due(self, interval: float) -> bool:
        last = self._last_fetch
        return last is None or self._clock() - last >= interval

    def _refresh_in_background(self) -> None:
        with self._state:
            running = self._background
            if running is not None and running.is_alive():
                return
            if not self._due(self.FIRST_RETRY_INTERVAL if self._keys is None else 0.0):
                return
            thread = threading.Thread(target=self._refresh_if_stale, name="gatehouse-jwks", daemon=True)
            self._background = thread
        thread.start()

    def _refresh_if_stale(self) -> None:
        with self._fetching:
            if self._keys is None or self._clock() >= self._fresh_until:
                self._fetch()

    def _fetch(self) -> None:
        """One fetch (the caller holds ``_fetching``): the set, its ``ETag`` and freshness kept on 200 or 304; on
        anything else the last good set stays and the next try waits."""
        now = self._clock()
        self._last_fetch = now
        self.fetches += 1
        headers = {"Accept": "application/jwk-set+json, application/json", "User-Agent": "gatehouse-receipts-python"}
        if self._etag is not None and self._keys is not None:
            headers["If-None-Match"] = self._etag
        try:
            status, answer_headers, body = _http.request("GET", self.url, headers=headers, timeout=self.timeout)
        except GatehouseUnavailable as error:
            self._failed(now, str(error))
            return
        if status == 304 and self._keys is not None:
            self._fresh_until = now + _max_age(answer_headers, self.DEFAULT_MAX_AGE)
            self._etag = answer_headers.get("etag", self._etag)
            self._last_error = None
            return
        if status != 200:
            self._failed(now, f"GET {self.url} answered {status}")
            return
        try:
            keys = JWKS.parse(body, self._limits)
        except ReceiptError as error:
            self._failed(now, f"GET {self.url}: {error}")
            return
        if self._keys is not None and keys == self._keys:
            keys = self._keys  # the same keys: keep what the set remembers
        self._keys = keys
        self._etag = answer_headers.get("etag")
        self._fresh_until = now + _max_age(answer_headers, self.DEFAULT_MAX_AGE)
        self._last_error = None

    def _failed(self, now: float, message: str) -> None:
        self._last_error = message
        if self._keys is not None:
            self._fresh_until = now + self.RETRY_INTERVAL
            log.warning("gatehouse_receipts: keeping the last receipt keys: %s", message)
        else:
            log.warning("gatehouse_receipts: no receipt keys yet: %s", message)

    def __repr__(self) -> str:
        return f"JWKSSource({self.url!r}, keys={self._keys!r})"


_T = TypeVar("_T")


async def _in_thread(function: Callable[..., _T], *args: object) -> _T:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, function, *args)
