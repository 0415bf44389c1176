#!/usr/bin/env python3
"""Idle TCP connections to a local HTTP port, for HTTPFloodCLITests.

usage: http_flood.py PORT COUNT SOURCES HOLD_SECONDS

Opens COUNT non-blocking connections to 127.0.0.1:PORT, spread round-robin over SOURCES source
addresses (127.0.1.2, 127.0.1.3, ...: a loopback address per share, so the listener's per-address
cap is not what refuses them), waits at most 5 s for the connects to complete, holds the sockets
for HOLD_SECONDS from the start without sending a byte, then looks at which ones the listener has
closed and closes them all. Prints one JSON object on stdout:

  opened     sockets opened (COUNT, or fewer when the descriptor limit refused more: exit 1)
  connected  connects that completed (the listener's kernel accepted them)
  refused    connects refused or reset
  pending    connects still in progress after 5 s (nobody accepting: the backlog is full)
  shed       connected sockets the listener had closed when the hold ended

Bounded: it never runs longer than max(HOLD_SECONDS, 5) s and a little.
"""
import json
import resource
import select
import socket
import sys
import time


def main():
    port, count, sources, hold = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count + 64
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    start = time.monotonic()
    sockets = []
    try:
        for i in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            share = i % sources
            s.bind(("127.0.%d.%d" % (1 + share // 250, 2 + share % 250), 0))
            sockets.append(s)
            try:
                s.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            except OSError:
                pass  # refused at once: counted below through SO_ERROR
    except OSError as error:
        print(json.dumps({"opened": len(sockets), "error": str(error)}), flush=True)
        return 1
    # Wait for the connects: a socket is writable once its connect completed or failed.
    state = {}
    poller = select.poll()
    for s in sockets:
        poller.register(s, select.POLLOUT)
    deadline = start + 5
    while len(state) < len(sockets) and time.monotonic() < deadline:
        for fd, _ in poller.poll(100):
            if fd in state:
                continue
            s = socket.socket(fileno=fd)
            code = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            s.detach()
            state[fd] = "connected" if code == 0 else "refused"
            poller.unregister(fd)
    time.sleep(max(0.0, start + hold - time.monotonic()))
    shed = 0
    for s in sockets:
        if state.get(s.fileno()) != "connected":
            continue
        try:
            if s.recv(1, socket.MSG_PEEK) == b"":
                shed += 1
        except BlockingIOError:
            pass
        except OSError:
            shed += 1
    counts = {"opened": len(sockets), "connected": 0, "refused": 0, "pending": 0, "shed": shed}
    for s in sockets:
        counts[state.get(s.fileno(), "pending")] += 1
    for s in sockets:
        s.close()
    print(json.dumps(counts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
