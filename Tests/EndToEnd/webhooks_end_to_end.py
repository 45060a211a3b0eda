"""Alerts as webhooks end to end (issue 47; docs/device-api.md "Alerts"): a real `gatehouse serve` on a temporary
SQLite file, run with --webhook-allow-http --webhook-allow-private (the receiver is on loopback), --webhook-hold 2 and
--webhook-retry-scale 0.001 (a whole cycle in seconds), and a receiver on a free loopback port. Every delivery's
signature is verified with the `standardwebhooks` package from PyPI, an implementation no one here wrote:
the test event; a security event written by the command line and delivered by the running server; a checklist item
turned red by ingested verdicts and green again (announced when the hold ends); a receiver answering 500, the same
event id retried until it answers 200; a rotated secret (both signatures verify during the overlap); a receiver that
answers after 6 seconds, which delays neither another endpoint nor the API; `/metrics`; and the server
killed with SIGKILL while events wait, then restarted: every event delivered once.

Usage: webhooks_end_to_end.py GATEHOUSE_BINARY"""
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from standardwebhooks import Webhook, WebhookVerificationError

from api_schema import ROOT, V1, call, start
from edge_support import Checks, wait_until

PACKAGE = "com.example.shop"
UPLOAD_DIGEST = ":".join(["11"] * 32)
PLAY_DIGEST = ":".join(["AB"] * 32)


class Receiver(http.server.ThreadingHTTPServer):
    """Records every delivery (headers, body, the status it answered) and answers the status set."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), ReceiverHandler)
        self.deliveries = []
        self.status = 200
        self.delay = 0
        self.lock = threading.Lock()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/hooks/T0123/B0456/credential"

    def of(self, type_=None):
        with self.lock:
            return [d for d in self.deliveries if type_ is None or d["json"].get("type") == type_]


class ReceiverHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.server.delay:
            time.sleep(self.server.delay)
        with self.server.lock:
            status = self.server.status
            self.server.deliveries.append({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body,
                                           "json": json.loads(body), "status": status})
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


SERVE = ["--webhook-allow-http", "--webhook-allow-private", "--webhook-hold", "2", "--webhook-retry-scale", "0.001",
         "--public-url", "https://gatehouse.example.com"]


def verifies(secret, delivery):
    try:
        Webhook(secret).verify(delivery["body"], delivery["headers"])
        return True
    except WebhookVerificationError:
        return False


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    checks = Checks()
    directory = tempfile.mkdtemp(prefix="gatehouse-webhooks-")
    database = os.path.join(directory, "g.sqlite")
    log = open(os.path.join(directory, "serve.log"), "w")
    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    server = None
    started = time.monotonic()

    def cli(*args):
        return subprocess.run([binary, *args, "--database", database, "--resources", ROOT], check=True, capture_output=True,
                              text=True, timeout=60).stdout.strip()

    try:
        token = cli("token", "create", "--name", "webhooks", "--scope", "write")
        server, base = start(binary, database, log, SERVE)
        _, created = call(base, "POST", f"{V1}/webhooks", token, {"url": receiver.url, "description": "ops", "events": ["*"]})
        hook, secret = created["id"], created["secret"]
        checks.expect(secret.startswith("whsec_"), "create: the secret is shown once", secret[:6])
        checks.equal(created["url"], receiver.url.split("/hooks/")[0] + "/hooks/…", "create: the URL is shown without its credential")

        # 1. The test event, answered with its delivery.
        _, tested = call(base, "POST", f"{V1}/webhooks/{hook}/test", token)
        checks.equal((tested.get("delivered"), tested.get("status")), (True, 200), "test: answered with its delivery")
        test = receiver.of("webhook.test")
        checks.expect(len(test) == 1 and verifies(secret, test[0]), "test: standardwebhooks verifies the signature")
        if test:
            tampered = dict(test[0], body=test[0]["body"].replace(b"test", b"tost"))
            checks.expect(not verifies(secret, tampered), "test: a changed body does not verify")
            checks.expect(test[0]["json"]["text"].endswith("https://gatehouse.example.com/webhooks"), "test: the text links to the dashboard",
                          test[0]["json"]["text"])

        # 2. A security event written by the command line, delivered by the running server.
        cli("token", "create", "--name", "cli-bot", "--scope", "read")
        created_token = wait_until(lambda: [d for d in receiver.of("security.tokenCreated") if "cli-bot" in d["json"]["text"]], seconds=30)
        checks.expect(bool(created_token), "security: a token made on the command line is announced within 30 s")
        if created_token:
            checks.equal(created_token[0]["json"]["data"]["via"], "cli", "security: via the command line")
            checks.expect(verifies(secret, created_token[0]), "security: standardwebhooks verifies the signature")

        # 3. A checklist item turned red by ingested verdicts, then green: failing at once, passing when the hold ends.
        _, environment = call(base, "POST", f"{V1}/environments", token, {"name": "Shop", "kind": "production"})
        env = environment["id"]
        secret_key = next(k["secret"] for k in environment["keys"] if k["type"] == "secret")
        call(base, "PATCH", f"{V1}/environments/{env}", token, {"androidApps": [{"packageName": PACKAGE, "certificateDigests": [UPLOAD_DIGEST]}]})
        time.sleep(3)  # the alerts job sees the new environment once (its baseline) before the verdicts come
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        verdicts = [{"at": now, "platform": "android", "provider": "play-integrity", "status": "rejected", "reasons": ["certificateMismatch"],
                     "observed": {"packageName": PACKAGE, "certificateDigest": PLAY_DIGEST, "appRecognitionVerdict": "PLAY_RECOGNIZED"}}] * 30
        request = urllib.request.Request(base + "/api/ingest/v1/verdicts", data=json.dumps({"verdicts": verdicts}).encode(), method="POST",
                                         headers={"Content-Type": "application/json", "Authorization": "Bearer " + secret_key})
        with urllib.request.urlopen(request, timeout=10) as response:
            checks.equal(response.status, 202, "checklist: 30 verdicts ingested")

        def item_event(type_):
            return [d for d in receiver.of(type_) if d["json"]["data"]["item"]["id"] == "android.certificateNotRegistered"]
        failing = wait_until(lambda: item_event("checklist.failing"), seconds=15)
        checks.expect(bool(failing), "checklist: android.certificateNotRegistered announced failing")
        if failing:
            data = failing[0]["json"]["data"]
            checks.equal((data["environment"]["id"], data["previous"]), (env, "ok"), "checklist: the environment and the status before")
            checks.expect(PLAY_DIGEST in data["item"]["detail"], "checklist: the detail names the digest phones report")
            checks.expect(verifies(secret, failing[0]), "checklist: standardwebhooks verifies the signature")
        call(base, "PATCH", f"{V1}/environments/{env}", token,
             {"androidApps": [{"packageName": PACKAGE, "certificateDigests": [UPLOAD_DIGEST, PLAY_DIGEST]}]})
        passing = wait_until(lambda: item_event("checklist.passing"), seconds=15)
        checks.expect(bool(passing), "checklist: announced passing once the digest is registered and the hold ended")
        checks.equal(len(item_event("checklist.failing")), 1, "checklist: failing announced once")

        # 4. A receiver answering 500: the same event retried (about 5 s x 0.001 → 1 s) until it answers 200.
        receiver.status = 500
        cli("token", "create", "--name", "retried", "--scope", "read")
        wait_until(lambda: [d for d in receiver.of("security.tokenCreated") if "retried" in d["json"]["text"]], seconds=30)
        time.sleep(1.5)
        receiver.status = 200
        tries = wait_until(lambda: [d for d in receiver.of("security.tokenCreated") if "retried" in d["json"]["text"] and d["status"] == 200] and
                           [d for d in receiver.of("security.tokenCreated") if "retried" in d["json"]["text"]], seconds=15)
        ids = {d["headers"]["webhook-id"] for d in tries or []}
        checks.expect(len(tries or []) >= 2 and len(ids) == 1, "retries: the same webhook-id until answered",
                      f"{len(tries or [])} tries, ids {ids}")
        checks.expect(all(verifies(secret, d) for d in tries or []), "retries: each try verifies")

        # 5. A rotated secret: the next deliveries carry both signatures for a day.
        _, rotated = call(base, "POST", f"{V1}/webhooks/{hook}/rotate-secret", token)
        new_secret = rotated["secret"]
        call(base, "POST", f"{V1}/webhooks/{hook}/test", token)
        last = receiver.of("webhook.test")[-1]
        checks.expect(verifies(new_secret, last) and verifies(secret, last), "rotation: the old and the new secret both verify")
        checks.equal(len(last["headers"]["webhook-signature"].split(" ")), 2, "rotation: two signatures")
        secret = new_secret

        # 6. A receiver that answers after 6 seconds delays no other endpoint's delivery and no request.
        slow = Receiver()
        slow.delay = 6
        threading.Thread(target=slow.serve_forever, daemon=True).start()
        _, slow_hook = call(base, "POST", f"{V1}/webhooks", token, {"url": slow.url, "events": ["security.tokenCreated"]})
        cli("token", "create", "--name", "both", "--scope", "read")
        began = time.monotonic()
        fast_got = wait_until(lambda: [d for d in receiver.of("security.tokenCreated") if "both" in d["json"]["text"]], seconds=30)
        checks.expect(bool(fast_got) and time.monotonic() - began < 5, "a slow receiver: the other endpoint gets the event at once",
                      f"{time.monotonic() - began:.1f} s")
        ask = time.monotonic()
        call(base, "GET", f"{V1}/webhooks", token)
        checks.expect(time.monotonic() - ask < 1, "a slow receiver: the API answers meanwhile")
        checks.expect(bool(wait_until(lambda: slow.of("security.tokenCreated"), seconds=15)), "a slow receiver: gets it in the end")
        request = urllib.request.Request(f"{base}{V1}/webhooks/{slow_hook['id']}", method="DELETE", headers={"Authorization": "Bearer " + token})
        urllib.request.urlopen(request, timeout=10).close()
        slow.shutdown()
        with urllib.request.urlopen(base + "/metrics", timeout=10) as response:
            metrics = response.read().decode()
        checks.expect('gatehouse_webhook_deliveries_total{result="delivered"}' in metrics and "gatehouse_webhook_queue " in metrics,
                      "/metrics: deliveries by result and the queue")

        # 7. Killed with SIGKILL while events wait, then restarted: every event delivered once.
        receiver.status = 503
        names = [f"killed-{i}" for i in range(5)]
        for name in names:
            cli("token", "create", "--name", name, "--scope", "read")
        wait_until(lambda: [d for d in receiver.of("security.tokenCreated") if "killed-" in d["json"]["text"]], seconds=30)
        server.send_signal(signal.SIGKILL)
        server.wait()
        receiver.status = 200
        server, base = start(binary, database, log, SERVE)

        def delivered():
            answered = [d for d in receiver.of("security.tokenCreated") if "killed-" in d["json"]["text"] and d["status"] == 200]
            return answered if len({d["headers"]["webhook-id"] for d in answered}) == len(names) else None
        answered = wait_until(delivered, seconds=30)
        per_id = {}
        for d in answered or []:
            per_id[d["headers"]["webhook-id"]] = per_id.get(d["headers"]["webhook-id"], 0) + 1
        checks.equal(sorted(per_id.values()), [1] * len(names), "SIGKILL: every event delivered once after the restart")
        checks.expect(all(verifies(secret, d) for d in answered or []), "SIGKILL: each verifies")
        _, deliveries = call(base, "GET", f"{V1}/webhooks/{hook}/deliveries", token)
        checks.expect(any(item["status"] == 503 for item in deliveries["items"]), "deliveries: the failed attempts are listed")
    finally:
        if server and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=15)
        receiver.shutdown()
        log.close()
        errors = [line for line in open(os.path.join(directory, "serve.log")) if '"level":"error"' in line]
        checks.expect(not errors, "gatehouse serve: no errors logged", "".join(errors[:5]))
        leaked = [line for line in open(os.path.join(directory, "serve.log")) if "credential" in line or "whsec_" in line]
        checks.expect(not leaked, "gatehouse serve: no secret or URL credential in the log", "".join(leaked[:3]))
        shutil.rmtree(directory, ignore_errors=True)
    print(f"webhooks: {checks.passed} passed, {len(checks.failed)} failed in {time.monotonic() - started:.0f} s", flush=True)
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
