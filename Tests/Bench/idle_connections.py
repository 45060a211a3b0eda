#!/usr/bin/env python3
"""Opens N keep-alive connections to 127.0.0.1:PORT, sends one GET /healthz on each, reads the response, then holds
them all open for SECONDS (the caller kills it sooner). Prints "ready N" once every connection has its response."""
import resource
import socket
import sys
import time

port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < count + 64:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))

sockets = []
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n")
    sockets.append(s)
for s in sockets:
    data = b""
    while b"\r\n\r\nok" not in data:
        chunk = s.recv(4096)
        if not chunk:
            sys.exit("connection closed early")
        data += chunk
print(f"ready {len(sockets)}", flush=True)
time.sleep(seconds)
for s in sockets:
    s.close()
