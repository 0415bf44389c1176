#!/usr/bin/env python3
"""A trivial IRC reader for benchmarks: the other end of `chatcap serve` without chatcap's parser.

Opens one plain TCP connection per group of at most --per-connection channels, logs in anonymously,
sends every JOIN at once (serve has no rate limit), answers PING, and counts received lines (CRLF)
with bytes.count in one thread (selectors). Prints one summary line: lines/s once every channel's
JOIN was echoed, the time to join all, and the CPU time this process used.

Standard library only. Usage:
    raw_reader.py HOST PORT CHANNELS_FILE [--per-connection 90] [--seconds 10]
"""

import argparse
import os
import selectors
import socket
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("channels_file")
    parser.add_argument("--per-connection", type=int, default=90)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()

    channels = []
    with open(args.channels_file) as f:
        for line in f:
            line = line.split(" #")[0].strip().lstrip("#").lower()
            if line:
                channels.append(line)
    groups = [channels[i:i + args.per_connection] for i in range(0, len(channels), args.per_connection)]

    selector = selectors.DefaultSelector()
    state = {}
    started = time.monotonic()
    for index, group in enumerate(groups):
        sock = socket.create_connection((args.host, args.port))
        nick = "justinfan%d" % (10000 + index)
        out = ["CAP REQ :twitch.tv/tags twitch.tv/commands twitch.tv/membership", "NICK " + nick]
        out += ["JOIN #" + c for c in group]
        sock.sendall(("\r\n".join(out) + "\r\n").encode())
        sock.setblocking(False)
        state[sock] = {"pending": b"", "nick": nick, "waiting": len(group)}
        selector.register(sock, selectors.EVENT_READ)

    lines = 0
    waiting = len(channels)
    joined_at = None
    lines_at_join = 0
    deadline = None
    while True:
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            break
        if now - started > 600:
            break
        for key, _ in selector.select(timeout=0.05):
            sock = key.fileobj
            s = state[sock]
            try:
                data = sock.recv(1 << 18)
            except BlockingIOError:
                continue
            if not data:
                selector.unregister(sock)
                continue
            lines += data.count(b"\n")
            if s["waiting"] > 0 or b"PING" in data:
                buf = s["pending"] + data
                parts = buf.split(b"\r\n")
                s["pending"] = parts.pop()
                for part in parts:
                    if s["waiting"] > 0 and part.startswith((":" + s["nick"]).encode()) and b" JOIN #" in part:
                        s["waiting"] -= 1
                        waiting -= 1
                    elif part.startswith(b"PING"):
                        sock.sendall(b"PONG" + part[4:] + b"\r\n")
            else:
                s["pending"] = b""
        if joined_at is None and waiting == 0:
            joined_at = time.monotonic()
            lines_at_join = lines
            deadline = joined_at + args.seconds
    end = time.monotonic()
    cpu = sum(os.times()[:2])
    if joined_at is None:
        print("raw reader: not every channel was joined (%d left) after %.1f s" % (waiting, end - started))
        return
    rate = (lines - lines_at_join) / max(end - joined_at, 1e-3)
    print("raw reader: %d channels over %d connections joined in %.2f s; then %d lines in %.1f s = %d lines/s; "
          "CPU %.1f s (%d %% of one core)" % (len(channels), len(groups), joined_at - started, lines - lines_at_join,
                                              end - joined_at, rate, cpu, 100 * cpu / (end - started)))


if __name__ == "__main__":
    main()
