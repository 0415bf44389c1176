#!/usr/bin/env python3
"""A small recent-messages (v2 API) service for chatcap's backfill tests, on 127.0.0.1 and a
kernel-chosen port (printed on the first line of stdout; in record mode once serve has answered the
JOIN of every channel, so that a test may start its capture at once and the recorder misses nothing).

    recent_messages_service.py record IRC_PORT EVERY LOG CHANNEL...
        Records the chat of `chatcap serve` on 127.0.0.1:IRC_PORT as the real service does (it is an
        IRC client of it), and answers GET /api/v2/recent-messages/<login> with the channel's
        recorded lines, oldest first, tagged historical=1 and rm-received-ts. serve --drop-after
        closes each connection after so many lines: the recorder opens a new connection after every
        EVERY chat lines of its newest one, so consecutive connections overlap and it misses nothing;
        lines seen on two connections are kept once (by id, else by the whole line). Every line kept
        is also appended to LOG as "<ms>\t<line>\n" for the test.
    recent_messages_service.py silent
        Accepts connections and requests and never answers.

In record mode, two variables make the service's dates wrong the ways real services' are:
RM_SKEW_MS=N dates every line N ms later than it was received (a clock ahead), and RM_ODD_EVERY=K
dates every K-th line of each channel in 2100 and every (K+12)-th in 1990. RM_GZIP=1 sends every
answer gzip-encoded (Content-Encoding: gzip), asked for or not, as some services and proxies do.
"""
import gzip
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LIMIT = 800
lock = threading.Lock()
recorded = {}  # channel -> [(ms, line)]
# Set once serve's end of NAMES (366) has come for every channel of the first connection.
all_joined = threading.Event()


def record_chat(port, every, log_path, channels):
    log = open(log_path, "a", buffering=1)
    seen = set()
    joined = set()
    conns = []  # dicts: sock, buf, lines

    def open_conn():
        s = socket.create_connection(("127.0.0.1", port))
        s.setblocking(False)
        s.sendall(
            b"CAP REQ :twitch.tv/tags twitch.tv/commands twitch.tv/membership\r\n"
            b"PASS SCHMOOPIIE\r\nNICK justinfan4242\r\n"
            + b"".join(b"JOIN #" + c.encode() + b"\r\n" for c in channels)
        )
        conns.append({"sock": s, "buf": b"", "lines": 0})

    open_conn()
    import select

    while True:
        socks = [c["sock"] for c in conns]
        ready, _, _ = select.select(socks, [], [], 0.05)
        for c in list(conns):
            if c["sock"] not in ready:
                continue
            try:
                data = c["sock"].recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                c["sock"].close()
                conns.remove(c)
                if not conns:
                    open_conn()
                continue
            c["buf"] += data
            while b"\r\n" in c["buf"]:
                raw, c["buf"] = c["buf"].split(b"\r\n", 1)
                line = raw.decode("utf-8", "replace")
                if line.startswith("PING"):
                    try:
                        c["sock"].sendall(b"PONG" + raw[4:] + b"\r\n")
                    except OSError:
                        pass
                    continue
                words = line.split(" ")
                rest = words[1:] if line.startswith("@") else words
                if len(rest) >= 4 and rest[1] == "366":
                    joined.add(rest[3].lstrip("#"))
                    if joined >= set(channels):
                        all_joined.set()
                if len(rest) < 3 or not rest[2].startswith("#"):
                    continue
                if "justinfan4242" in rest[0] or rest[1] in ("353", "366"):
                    continue
                channel = rest[2][1:]
                key = line.split(" ", 1)[1] if line.startswith("@") else line
                if line.startswith("@"):
                    for tag in line[1:].split(" ", 1)[0].split(";"):
                        if tag.startswith("id=") and len(tag) > 3:
                            key = tag
                if c is conns[-1]:
                    c["lines"] += 1
                if key in seen:
                    continue
                seen.add(key)
                ms = int(time.time() * 1000)
                with lock:
                    recorded.setdefault(channel, []).append((ms, line))
                log.write(f"{ms}\t{line}\n")
        if conns and conns[-1]["lines"] >= every:
            open_conn()
        while len(conns) > 3:
            conns.pop(0)["sock"].close()


SKEW_MS = int(os.environ.get("RM_SKEW_MS", "0"))
ODD_EVERY = int(os.environ.get("RM_ODD_EVERY", "0"))


def service_time(ms, index):
    if ODD_EVERY and index % ODD_EVERY == ODD_EVERY - 1:
        return 4102444800000 + index  # 2100-01-01
    if ODD_EVERY and index % (ODD_EVERY + 12) == ODD_EVERY + 11:
        return 631152000000 + index  # 1990-01-01
    return ms + SKEW_MS


def historical(ms, line):
    tags = f"historical=1;rm-received-ts={ms}"
    if line.startswith("@"):
        return "@" + tags + ";" + line[1:]
    return "@" + tags + " " + line


class Handler(BaseHTTPRequestHandler):
    silent = False

    def log_message(self, *args):
        pass

    def do_GET(self):
        if Handler.silent:
            time.sleep(3600)
            return
        url = urllib.parse.urlparse(self.path)
        prefix = "/api/v2/recent-messages/"
        if not url.path.startswith(prefix):
            self.send_error(404)
            return
        channel = url.path[len(prefix):].lower()
        query = urllib.parse.parse_qs(url.query)
        limit = min(int(query.get("limit", [LIMIT])[0]), LIMIT)
        with lock:
            every = list(recorded.get(channel, []))
        first = max(0, len(every) - limit)
        lines = [(service_time(ms, first + i), line) for i, (ms, line) in enumerate(every[first:])]
        body = json.dumps(
            {"messages": [historical(ms, line) for ms, line in lines], "error": None, "error_code": None}
        ).encode()
        self.send_response(200)
        if os.environ.get("RM_GZIP") == "1":
            body = gzip.compress(body)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    mode = sys.argv[1]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if mode == "silent":
        Handler.silent = True
    else:
        port, every, log_path = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        threading.Thread(
            target=record_chat, args=(port, every, log_path, sys.argv[5:]), daemon=True
        ).start()
        # A hang guard: a recorder that is not joined by then prints its port anyway, and the test
        # finds the lines it missed.
        all_joined.wait(60)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
