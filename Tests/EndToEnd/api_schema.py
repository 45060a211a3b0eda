#!/usr/bin/env python3
"""Runs Schemathesis against a live `gatehouse serve` (make test-api-schema).

Starts the built binary on a fresh SQLite file and a free port, makes a write token with the CLI, creates the
fixtures the configuration (schemathesis.toml beside this file) points path parameters at, runs
`schemathesis run` on /api/management/v1/openapi.json with a hard time bound, then stops the server with SIGTERM
and expects a clean exit. Exits non-zero when Schemathesis finds anything or the server misbehaves.

Usage: api_schema.py GATEHOUSE_BINARY SCHEMATHESIS_BINARY [extra schemathesis arguments...]
"""
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

from signed_request import ios_assess_body

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
V1 = "/api/management/v1"
# A hard bound on the Schemathesis run; API_SCHEMA_CONFIG names another configuration (e.g. for a longer search).
SCHEMATHESIS_SECONDS = int(os.environ.get("API_SCHEMA_SECONDS", "600"))


def call(base, method, path, token, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + token)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{method} {path}: {error.code} {error.read().decode(errors='replace')}")


def receipt(base, public_key):
    """A receipt from POST /api/v4/assess for a signed iOS request without attestation (docs/device-api.md "Assessment")."""
    body = ios_assess_body(public_key, {"app": {"id": "com.example.yourapp"}})
    request = urllib.request.Request(base + "/api/v4/assess", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["sessionToken"]


def start(binary, database, log, extra=()):
    server = subprocess.Popen(
        [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--database", database, "--resources", ROOT,
         "--log-level", "warning", "--device-rate-per-address", "0", "--device-rate-per-key", "0", *extra],
        stdout=subprocess.PIPE, stderr=log, text=True)
    line = server.stdout.readline().strip()
    prefix = "gatehouse listening on "
    if not line.startswith(prefix):
        server.kill()
        raise SystemExit(f"gatehouse serve did not start: {line!r}")
    return server, line[len(prefix):]


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    binary, schemathesis, extra = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]
    directory = tempfile.mkdtemp(prefix="gatehouse-schema-")
    database = os.path.join(directory, "gatehouse.sqlite")
    log = open(os.path.join(directory, "serve.log"), "w")
    server = None
    try:
        token = subprocess.run(
            [binary, "token", "create", "--name", "schemathesis", "--scope", "write", "--database", database,
             "--resources", ROOT], check=True, capture_output=True, text=True, timeout=60).stdout.strip()
        server, base = start(binary, database, log)
        print(f"gatehouse serving on {base} (database {database})", flush=True)

        status, environment = call(base, "POST", f"{V1}/environments", token, {"name": "Schemathesis", "kind": "production"})
        environment_id = environment["id"]
        secret = next(k["secret"] for k in environment["keys"] if k["type"] == "secret")
        public = next(k["value"] for k in environment["keys"] if k["type"] == "public")
        _, disposable = call(base, "POST", f"{V1}/environments", token, {"name": "To delete", "kind": "development"})
        _, roll = call(base, "POST", f"{V1}/environments/{environment_id}/keys", token, {"type": "public", "name": "To roll"})
        _, revoke = call(base, "POST", f"{V1}/environments/{environment_id}/keys", token, {"type": "secret", "name": "To revoke"})
        _, debug_token = call(base, "POST", f"{V1}/environments/{environment_id}/debug-tokens", token, {"name": "To revoke"})
        # A webhook to a public address literal (no name to resolve): deliveries to it fail here, which is all they need to do.
        _, webhook = call(base, "POST", f"{V1}/webhooks", token, {"url": "https://93.184.216.34/hooks/schemathesis", "events": ["webhook.test"]})
        _, disposable_webhook = call(base, "POST", f"{V1}/webhooks", token, {"url": "https://93.184.216.34/hooks/delete", "events": ["*"]})
        call(base, "PATCH", f"{V1}/environments/{environment_id}", token, {
            "androidApps": [{"packageName": "com.example.app", "certificateDigests": ["AB" * 32]}],
            "appleAppIds": ["ABCDE12345.com.example.yourapp"],
            # Throwaway local keys, so generated Play Integrity requests reach the local decoder.
            "playIntegrity": {"local": {"decryptionKey": "ONFIslR+FQYjY6wOaxNXV16cV4kcVBSOTt1NvXlqsQI=",
                                        "verificationKey": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEf/l2rl5W3YhM7eCcWch7vx6H/3dsguaqihEg7D3DUtjg785sklhgQkVSjxo27eza/k2VfyVRnL32tgD71GNoHw=="}},
        })

        env = dict(os.environ,
                   GATEHOUSE_TOKEN=token, GATEHOUSE_SECRET_KEY=secret, GATEHOUSE_PUBLIC_KEY=public, GATEHOUSE_ENVIRONMENT_ID=environment_id,
                   GATEHOUSE_DISPOSABLE_ENVIRONMENT_ID=disposable["id"], GATEHOUSE_ROLL_KEY_ID=roll["id"],
                   GATEHOUSE_REVOKE_KEY_ID=revoke["id"], GATEHOUSE_DEBUG_TOKEN_ID=debug_token["id"],
                   GATEHOUSE_WEBHOOK_ID=webhook["id"], GATEHOUSE_DISPOSABLE_WEBHOOK_ID=disposable_webhook["id"], GATEHOUSE_RECEIPT=receipt(base, public),
                   GATEHOUSE_NOW=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        config = os.environ.get("API_SCHEMA_CONFIG", os.path.join(HERE, "schemathesis.toml"))
        command = [schemathesis, "--config-file", config, "run",
                   f"{base}{V1}/openapi.json", "--url", base, "--workers", "1", "--no-color",
                   "--report", "junit", "--report-dir", os.path.join(ROOT, ".build", "schemathesis")] + extra
        try:
            result = subprocess.run(command, env=env, timeout=SCHEMATHESIS_SECONDS, cwd=directory)
            code = result.returncode
        except subprocess.TimeoutExpired:
            print(f"schemathesis did not finish within {SCHEMATHESIS_SECONDS} s", flush=True)
            code = 1

        server.send_signal(signal.SIGTERM)
        try:
            exit_code = server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            # Show where it hangs before killing it (every thread's stack), so a failure can be diagnosed.
            subprocess.run(["gdb", "-p", str(server.pid), "-batch", "-ex", "thread apply all bt 12"], timeout=60)
            server.kill()
            exit_code = "none (killed after 30 s)"
        server = None
        if exit_code != 0:
            print(f"gatehouse serve exited with {exit_code} after SIGTERM", flush=True)
            code = code or 1
        log.flush()
        errors = [line for line in open(log.name) if '"level":"error"' in line]
        if errors:
            print(f"the server logged {len(errors)} errors, e.g.:\n" + "".join(errors[:5]), flush=True)
            code = code or 1
        return code
    finally:
        if server is not None:
            server.kill()
            server.wait()
        log.close()
        if os.environ.get("KEEP_API_SCHEMA_DIR"):
            print(f"kept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
