"""A real `gatehouse serve` for the end-to-end tests: the built binary (GATEHOUSE_BINARY, else .build/debug/gatehouse)
on a temporary SQLite file and a free port, logging every request (--log-level info), with an environment made
through the management API, and receipts from POST /api/v4/assess signed as the phone SDKs sign requests
(Tests/EndToEnd/signed_request.py)."""
from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any, Dict, Iterator, Optional

import pytest

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "EndToEnd"))
from signed_request import ios_assess_body  # noqa: E402
from helpers import wait_for  # noqa: E402

V1 = "/api/management/v1"
APP_ID = "com.example.yourapp"
TEAM_APP_ID = "ABCDE12345." + APP_ID


def binary() -> Optional[str]:
    path = os.environ.get("GATEHOUSE_BINARY") or os.path.join(ROOT, ".build", "debug", "gatehouse")
    return path if os.access(path, os.X_OK) else None


def require_binary() -> None:
    """Skips the calling test module when no binary was built (make test-python-client builds one); an error when
    GATEHOUSE_BINARY names a file that is not an executable."""
    if binary() is None:
        if os.environ.get("GATEHOUSE_BINARY"):
            raise RuntimeError(f"GATEHOUSE_BINARY={os.environ['GATEHOUSE_BINARY']} is not an executable")
        pytest.skip("no gatehouse binary (make test-python-client builds one)", allow_module_level=True)


@pytest.fixture(scope="module")
def gatehouse() -> Iterator["Gatehouse"]:
    """One served Gatehouse for a test module (import it into the module to use it)."""
    server = Gatehouse()
    yield server
    server.close()


class Gatehouse:
    """One server, its database folder, its environment and its keys."""

    def __init__(self, directory: Optional[str] = None) -> None:
        self.binary = binary()
        if self.binary is None:
            raise RuntimeError("no gatehouse binary: set GATEHOUSE_BINARY (make test-python-client builds it)")
        self.directory = directory or tempfile.mkdtemp(prefix="gatehouse-python-")
        self.database = os.path.join(self.directory, "gatehouse.sqlite")
        self.log_path = os.path.join(self.directory, "serve.log")
        self.process: Optional[subprocess.Popen] = None
        self.base = ""
        self.token = subprocess.run(
            [self.binary, "token", "create", "--name", "python-client", "--scope", "write", "--database", self.database,
             "--resources", ROOT], check=True, capture_output=True, text=True, timeout=60).stdout.strip()
        self.start()
        _, environment = self.call("POST", f"{V1}/environments", {"name": "Python client", "kind": "development"})
        self.environment_id: str = environment["id"]
        self.secret: str = next(k["secret"] for k in environment["keys"] if k["type"] == "secret")
        self.public: str = next(k["value"] for k in environment["keys"] if k["type"] == "public")
        _, debug = self.call("POST", f"{V1}/environments/{self.environment_id}/debug-tokens", {"name": "CI"})
        self.debug_token: str = debug["token"]

    def start(self) -> None:
        """Starts (or restarts) the server on a free port of 127.0.0.1."""
        log = open(self.log_path, "a")
        self.process = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", "0", "--database", self.database, "--resources", ROOT,
             "--log-level", "info", "--device-rate-per-address", "0", "--device-rate-per-key", "0"],
            stdout=subprocess.PIPE, stderr=log, text=True)
        log.close()
        line = self.process.stdout.readline().strip()
        prefix = "gatehouse listening on "
        if not line.startswith(prefix):
            self.process.kill()
            raise RuntimeError(f"gatehouse serve did not start: {line!r}")
        self.base = line[len(prefix):]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def close(self) -> None:
        self.stop()
        if not os.environ.get("KEEP_GATEHOUSE_DIR"):
            shutil.rmtree(self.directory, ignore_errors=True)

    def call(self, method: str, path: str, body: Any = None, token: Optional[str] = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", "Bearer " + (token or self.token))
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{method} {path}: {error.code} {error.read().decode(errors='replace')}") from None

    def patch(self, fields: Dict[str, Any]) -> Dict[str, Any]:
        return self.call("PATCH", f"{V1}/environments/{self.environment_id}", fields)[1]

    def assess(self, phone: Optional[ec.EllipticCurvePrivateKey] = None, debug: bool = False,
               device: str = "device-1") -> Dict[str, Any]:
        """POST /api/v4/assess for an iOS app: bound to `phone` when given, with the debug token when `debug`."""
        signed: Dict[str, Any] = {"app": {"id": APP_ID}, "device": {"id": device}}
        if phone is not None:
            spki = phone.public_key().public_bytes(serialization.Encoding.DER,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo)
            signed["receiptKey"] = base64.b64encode(spki).decode()
        attestation = {"provider": "debug", "token": self.debug_token} if debug else None
        body = ios_assess_body(self.public, signed, attestation)
        request = urllib.request.Request(self.base + "/api/v4/assess", data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def receipt(self, phone: Optional[ec.EllipticCurvePrivateKey] = None, debug: bool = False) -> str:
        return self.assess(phone, debug)["sessionToken"]

    def simulate(self, *arguments: str) -> Dict[str, Any]:
        """`gatehouse simulate` against this server (iOS): its printed JSON."""
        run = subprocess.run([self.binary, "simulate", "--endpoint", self.base, "--api-key", self.public,
                              "--platform", "ios", *arguments], capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            raise AssertionError(f"gatehouse simulate exited {run.returncode}: {run.stdout} {run.stderr}")
        return json.loads(run.stdout)

    def rotate(self, revoke_now: bool = False) -> str:
        """`gatehouse receipts rotate-key` on the server's database; the server signs with the new key within 5 s."""
        run = subprocess.run([self.binary, "receipts", "rotate-key", "--database", self.database, "--resources", ROOT]
                             + (["--revoke-now"] if revoke_now else []), capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            raise AssertionError(f"rotate-key exited {run.returncode}: {run.stdout} {run.stderr}")
        return run.stdout

    def requests_logged(self, path: str, method: str = "GET") -> int:
        """How many requests for `path` the server's access log shows (one JSON line each at level info)."""
        count = 0
        with open(self.log_path) as f:
            for line in f:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("msg") == "request" and entry.get("path") == path and entry.get("method") == method:
                    count += 1
        return count

    def wait_logged(self, path: str, count: int, method: str = "GET", seconds: float = 5.0) -> int:
        """The logged count once it reaches `count` (the log line may follow the answer by a moment)."""
        deadline = time.monotonic() + seconds
        while True:
            found = self.requests_logged(path, method)
            if found >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.05)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def claims_of(token: str) -> Dict[str, Any]:
    """A receipt's claims, unverified."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def backend_counts(gatehouse: Gatehouse) -> Dict[str, Dict[str, int]]:
    _, report = gatehouse.call("GET", f"{V1}/environments/{gatehouse.environment_id}/enforcement")
    return {route["name"]: {k: v for k, v in route["outcomes"]["backend"].items() if v}
            for route in report["routes"]}


def wait_for_backend_counts(gatehouse, added, before, seconds=60.0):
    """Waits until the backend counts are exactly `before` plus `added` (Gatehouse commits reported counts within a
    second; the bound only ends a test that would hang)."""
    expected = {route: dict(outcomes) for route, outcomes in before.items()}
    for route, outcomes in added.items():
        for outcome, n in outcomes.items():
            expected.setdefault(route, {})[outcome] = expected.get(route, {}).get(outcome, 0) + n
    last = {}

    def reached():
        last.update(counts=backend_counts(gatehouse))
        return last["counts"] == expected

    try:
        return wait_for(reached, seconds=seconds, what="the backend counts")
    except AssertionError:
        raise AssertionError(f"backend counts {last['counts']}, expected {expected}") from None
