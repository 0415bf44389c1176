#!/usr/bin/env python3
"""Slow HTTP clients against a local port, for LogsSafetyCLITests.

usage: slow_clients.py PORT COUNT

1. Opens COUNT connections to 127.0.0.1:PORT, each sending a request head it never finishes
   (`GET /channels HTTP/1.1`, a Host line, no blank line), and 2 s later sorts them: answered
   (something arrived: the status line and body are kept), held (open, nothing arrived) or closed
   (the end of the stream, nothing before it).
2. While the held ones still hold, sends one whole request on a new connection (`during`).
3. Waits up to 30 s for the held ones to be cut off (`heldCut`), then sends a whole request
   (`after`).
4. A slowloris: a request head sent a byte every 0.2 s; the seconds until the server closes it
   (`slowlorisSeconds`, or null after 30 s).

Prints one JSON object on stdout. Bounded: about 75 s at most.
"""
import json
import select
import socket
import sys
import time


def receive(s, seconds):
    """What arrives on s until it closes or `seconds` pass without a byte; (bytes, closed)."""
    data = b""
    while True:
        ready, _, _ = select.select([s], [], [], seconds)
        if not ready:
            return data, False
        try:
            chunk = s.recv(65536)
        except OSError:
            return data, True
        if not chunk:
            return data, True
        data += chunk


def whole_request(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /channels HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
    data, _ = receive(s, 10)
    s.close()
    return data.decode("utf-8", "replace")


def main():
    port, count = int(sys.argv[1]), int(sys.argv[2])
    sockets = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /channels HTTP/1.1\r\nHost: test\r\n")
        sockets.append(s)
    time.sleep(2.0)
    result = {"answered": 0, "held": 0, "closed": 0, "answer": ""}
    held = []
    for s in sockets:
        ready, _, _ = select.select([s], [], [], 0)
        if not ready:
            result["held"] += 1
            held.append(s)
            continue
        data, _ = receive(s, 1)
        if data:
            result["answered"] += 1
            result["answer"] = data.decode("utf-8", "replace")
        else:
            result["closed"] += 1
    result["during"] = whole_request(port)
    start = time.monotonic()
    cut = 0
    for s in held:
        _, closed = receive(s, max(0.1, start + 30 - time.monotonic()))
        cut += 1 if closed else 0
    result["heldCut"] = cut
    for s in sockets:
        s.close()
    # The server closes a connection it cut on its own thread, a moment after the client saw the
    # end: a request in that moment may still be busy (503, Retry-After: 1). Asked again for 10 s.
    deadline = time.monotonic() + 10
    result["after"] = whole_request(port)
    while not result["after"].startswith("HTTP/1.1 200") and time.monotonic() < deadline:
        time.sleep(0.1)
        result["after"] = whole_request(port)
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /channels HTTP/1.1\r\n")
    start = time.monotonic()
    result["slowlorisSeconds"] = None
    while time.monotonic() < start + 30:
        try:
            s.sendall(b"X")
        except OSError:
            result["slowlorisSeconds"] = time.monotonic() - start
            break
        _, closed = receive(s, 0.2)
        if closed:
            result["slowlorisSeconds"] = time.monotonic() - start
            break
    s.close()
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
