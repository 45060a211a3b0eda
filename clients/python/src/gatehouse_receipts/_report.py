"""Reporting a middleware's outcome counts to Gatehouse (docs/device-api.md "Outcomes reported by a backend"): counted in
memory by route, outcome and hour, sent once a minute from a background thread to
``POST /api/ingest/v1/enforcement`` with an ``Idempotency-Key`` per report, and a report that did not arrive sent
again with the same key (so it counts once)."""
from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from typing import Callable, Dict, List, Optional, Tuple

from . import _http, _shutdown
from ._http import GatehouseError, GatehouseUnavailable

log = logging.getLogger("gatehouse_receipts")

INGEST_PATH = "/api/ingest/v1/enforcement"
MAX_ENTRIES = 1000
MAX_COUNT = 1_000_000
#: Counts older than this are not sent (Gatehouse keeps traffic 8 days and refuses older hours).
RETENTION_SECONDS = 8 * 86_400 - 3600


def hour_text(hour: int) -> str:
    """RFC 3339 of the start of an hour (unix seconds), UTC."""
    return time.strftime("%Y-%m-%dT%H:00:00Z", time.gmtime(hour))


class Reporter:
    """Counts by (route, outcome, hour) and their reports. Thread-safe; the thread starts at the first count (in the
    process that counts: a server that forks workers starts one per worker). What is left is sent at interpreter
    exit and on ``SIGTERM``/``SIGINT`` (see ``_shutdown``). ``on_refused_key`` is told when Gatehouse refuses the
    secret key (401, 403): a misconfiguration, not an outage."""

    def __init__(self, gatehouse_url: str, secret_key: str, *, interval: float = 60.0, timeout: float = 5.0,
                 clock: Callable[[], float] = time.time,
                 on_refused_key: Optional[Callable[[str], None]] = None) -> None:
        self._url = _http.join(gatehouse_url, INGEST_PATH)
        self._secret_key = secret_key
        self.interval = interval
        self.timeout = timeout
        self._clock = clock
        self._on_refused_key = on_refused_key
        # Re-entrant: a signal handler flushing in the main thread may interrupt the main thread's own count or flush.
        self._lock = threading.RLock()
        self._counts: Dict[Tuple[str, str, int], int] = {}
        #: Reports made and not yet accepted, oldest first: (Idempotency-Key, entries).
        self._pending: List[Tuple[str, List[Dict[str, object]]]] = []
        self._thread: Optional[threading.Thread] = None
        self._pid = 0
        self._stop = threading.Event()
        self._sending = threading.RLock()
        #: Reports Gatehouse accepted (202), for tests and metrics.
        self.sent = 0
        _shutdown.register(self)

    def count(self, route: str, outcome: str) -> None:
        """Counts one judged call."""
        hour = int(self._clock()) // 3600 * 3600
        key = (route, outcome, hour)
        with self._lock:
            counts = self._counts
            counts[key] = counts.get(key, 0) + 1
            if self._pid != os.getpid():
                self._start()

    def snapshot(self) -> Dict[Tuple[str, str, int], int]:
        """The counts not yet put in a report."""
        with self._lock:
            return dict(self._counts)

    def _start(self) -> None:
        # Called with _lock held: a forked child has no thread of its parent's, so each process starts its own.
        self._pid = os.getpid()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gatehouse-report", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        stop = self._stop
        while not stop.wait(self.interval):
            self.flush()

    def flush(self) -> bool:
        """Puts the counts so far in reports and sends every report not yet accepted, in order; True when none is
        left. A report that could not be delivered (Gatehouse unreachable, 5xx, 429) stays for the next flush with
        its key; one Gatehouse refuses (4xx) is dropped with a warning (a refused secret key: an error, at most
        once a minute)."""
        with self._sending:
            with self._lock:
                counts, self._counts = self._counts, {}
            self._pending += self._reports(counts)
            oldest = int(self._clock()) - RETENTION_SECONDS
            while self._pending:
                key, entries = self._pending[0]
                entries = [entry for entry in entries if int(entry["_at"]) >= oldest]  # type: ignore[call-overload]
                if entries:
                    try:
                        self._send(key, entries)
                    except GatehouseUnavailable as error:
                        log.warning("gatehouse_receipts: outcome report not delivered, will retry: %s", error)
                        return False
                    except GatehouseError as error:
                        if error.status in (401, 403) and self._on_refused_key is not None:
                            self._on_refused_key(f"Gatehouse refused the secret key (POST {INGEST_PATH} answered "
                                                 f"{error.status}); the outcome report was dropped")
                        else:
                            log.warning("gatehouse_receipts: outcome report refused, dropped: %s", error)
                # By its key: a signal's flush may have sent and removed it meanwhile.
                self._pending = [report for report in self._pending if report[0] != key]
            return True

    def _reports(self, counts: Dict[Tuple[str, str, int], int]) -> List[Tuple[str, List[Dict[str, object]]]]:
        entries: List[Dict[str, object]] = []
        for (route, outcome, hour), count in sorted(counts.items(), key=lambda item: item[0][2]):
            while count > 0:
                part = min(count, MAX_COUNT)
                entries.append({"route": route, "outcome": outcome, "hour": hour_text(hour), "count": part, "_at": hour})
                count -= part
        return [(str(uuid.uuid4()), entries[i:i + MAX_ENTRIES]) for i in range(0, len(entries), MAX_ENTRIES)]

    def _send(self, key: str, entries: List[Dict[str, object]]) -> None:
        body = json.dumps({"counts": [{k: v for k, v in entry.items() if k != "_at"} for entry in entries]}).encode()
        status, _, answer = _http.request(
            "POST", self._url, body=body, timeout=self.timeout,
            headers={"Authorization": "Bearer " + self._secret_key, "Content-Type": "application/json",
                     "Idempotency-Key": key, "User-Agent": "gatehouse-receipts-python"})
        if status != 202:
            raise _http.refusal("POST", self._url, status, answer)
        self.sent += 1

    def close(self, flush: bool = True) -> None:
        """Stops the thread and, with ``flush``, sends what is left (once, bounded by the timeout)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=self.timeout + 1)
        if flush:
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - at exit nothing may raise; the report is lost, as a crash loses it
                log.warning("gatehouse_receipts: final outcome report failed")

    def flush_counts(self) -> None:
        """Sends what this process counted and has not reported (at exit, on a signal, at shutdown)."""
        if self._pid == os.getpid() and (self._counts or self._pending):
            self.flush()

    def __repr__(self) -> str:
        return "Reporter(secret_key=<hidden>)"
