"""Counts reported when the process stops (docs/device-api.md "Failing: unavailable, misconfigured, shutting down"): at
interpreter exit, and on ``SIGTERM`` and ``SIGINT`` (how uvicorn, gunicorn, systemd, Docker and Kubernetes stop a
service, and Ctrl-C), chaining whatever handler was installed before ours, so the server still stops as it would
have. Handlers can only be installed from the main thread; elsewhere only the exit hook applies."""
from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import weakref
from types import FrameType
from typing import Any, Callable, Dict, Optional, Protocol

log = logging.getLogger("gatehouse_receipts")


class Flushable(Protocol):
    """Anything that sends what it counted."""

    def flush_counts(self) -> None:
        """Sends what was counted (bounded by a timeout; never raises)."""


_flushables: "weakref.WeakSet[Any]" = weakref.WeakSet()
_installed: Dict[int, Any] = {}
_lock = threading.Lock()


def register(flushable: Flushable) -> None:
    """Flushes ``flushable`` at exit and on ``SIGTERM``/``SIGINT`` (installing the handlers when called from the
    main thread and not done yet)."""
    _flushables.add(flushable)
    install_signal_handlers()


def flush_all() -> None:
    """Flushes every registered object of this process."""
    for flushable in list(_flushables):
        try:
            flushable.flush_counts()
        except Exception as error:  # noqa: BLE001 - stopping must go on; the report is lost as a crash loses it
            log.warning("gatehouse_receipts: final outcome report failed: %s", type(error).__name__)


def install_signal_handlers() -> bool:
    """Installs the ``SIGTERM`` and ``SIGINT`` handlers (once per process; only from the main thread). True when
    they are installed."""
    if threading.current_thread() is not threading.main_thread():
        return bool(_installed)
    with _lock:
        for signum in (signal.SIGTERM, signal.SIGINT):
            if signum in _installed:
                continue
            try:
                previous = signal.getsignal(signum)
                signal.signal(signum, _handler)
            except (ValueError, OSError) as error:  # not the main interpreter, or a platform without it
                log.debug("gatehouse_receipts: no %s handler: %s", signum, error)
                continue
            _installed[signum] = previous
    return bool(_installed)


def _handler(signum: int, frame: Optional[FrameType]) -> None:
    flush_all()
    previous = _installed.get(signum, signal.SIG_DFL)
    chain(signum, frame, previous)


def chain(signum: int, frame: Optional[FrameType], previous: Any) -> None:
    """Does what ``previous`` (the handler before ours) would have done with the signal."""
    if callable(previous):
        handler: Callable[[int, Optional[FrameType]], Any] = previous
        handler(signum, frame)
    elif previous == signal.SIG_IGN:
        return
    else:
        # SIG_DFL (or None: installed outside Python): the default action, which for SIGTERM ends the process. Our
        # handler stays out of the way from now on, as the default one would have been.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


@atexit.register
def _flush_at_exit() -> None:
    flush_all()
