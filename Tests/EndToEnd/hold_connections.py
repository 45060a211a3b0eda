#!/usr/bin/env python3
"""Opens N TCP connections to HOST:PORT and holds them idle until killed, printing "holding N" once all are open.

The idle-connection test of the HTTP server keeps its clients here, in a process of their own, so that the test
process neither raises its file limit nor holds both ends of a thousand connections.
Usage: hold_connections.py HOST PORT N
"""
import resource
import signal
import socket
import sys


def main() -> None:
    host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
    held = [socket.create_connection((host, port), timeout=60) for _ in range(count)]
    print(f"holding {len(held)}", flush=True)
    signal.pause()


if __name__ == "__main__":
    main()
