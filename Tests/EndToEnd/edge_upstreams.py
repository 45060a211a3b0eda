"""The three real APIs the edge tests put behind the proxies (edge_apps/): Express 4 (Debian's node-express), FastAPI
under uvicorn and Flask under waitress, each on a free port of 127.0.0.1 with `POST /api/payments`, `GET
/api/orders/{id}` and `GET /api/echo`, and an unprotected `GET /__runs` (asked directly) counting each handler's runs."""
import json
import os
import subprocess
import sys
import urllib.request

from edge_support import free_port, stop, wait_for_port

APPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "edge_apps")


class App:
    """One upstream application process."""

    def __init__(self, name, command, env, directory):
        self.name = name
        self.port = free_port()
        self.log = os.path.join(directory, f"{name}.log")
        self.process = subprocess.Popen(command + [str(self.port)], stdout=subprocess.DEVNULL,
                                        stderr=open(self.log, "w"), env=env, cwd=APPS)

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def state(self):
        """{"runs": {handler: n}, "seen": {handler: {gatehouse-*: value}}}, asked of the app directly."""
        with urllib.request.urlopen(f"http://{self.address}/__runs", timeout=10) as response:
            return json.loads(response.read())

    def runs(self):
        return self.state()["runs"]

    def stop(self):
        stop(self.process, self.name)


def start_apps(directory):
    """Starts Express, FastAPI and Flask (their logs in `directory`); returns them once each listens."""
    python = sys.executable
    node_env = dict(os.environ, NODE_PATH="/usr/share/nodejs")
    apps = []
    try:
        for name, command, env in [("express", ["node", "express_app.js"], node_env),
                                   ("fastapi", [python, "asgi_app.py"], dict(os.environ)),
                                   ("flask", [python, "wsgi_app.py"], dict(os.environ))]:
            apps.append(App(name, command, env, directory))
        for app in apps:
            wait_for_port(app.port, app.process, app.name, app.log)
    except BaseException:
        for app in apps:
            app.stop()
        raise
    return apps
