#!/usr/bin/env python3
"""A raw IRC-over-WebSocket client built on the `websockets` package (PyPI), for chatcap's tests.

Usage: ws_irc_client.py URL CHANNEL COUNT [TIMEOUT]

Connects to URL offering the "irc" subprotocol, sends CAP REQ, PASS, NICK and JOIN as separate text
messages (CAP REQ and JOIN without CR LF, PASS and NICK with it: Twitch takes both), answers PING
with PONG, and collects every PRIVMSG of #CHANNEL until COUNT of them came or TIMEOUT seconds
(default 10) passed. Prints one JSON object: the subprotocol agreed, the messages received, and the
id tag and text of each PRIVMSG in order. Always stops by itself.
"""
import json
import sys
import time

from websockets.sync.client import connect

URL, CHANNEL, COUNT = sys.argv[1], sys.argv[2], int(sys.argv[3])
TIMEOUT = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0


def tags(line):
    if not line.startswith("@"):
        return {}
    return dict(t.split("=", 1) if "=" in t else (t, "") for t in line[1:].split(" ", 1)[0].split(";"))


result = {"subprotocol": None, "messages": 0, "lines": 0, "privmsgs": []}
deadline = time.monotonic() + TIMEOUT
with connect(URL, subprotocols=["irc"], open_timeout=TIMEOUT) as ws:
    result["subprotocol"] = ws.subprotocol
    ws.send("CAP REQ :twitch.tv/tags twitch.tv/commands")
    ws.send("PASS oauth:notarealtoken\r\n")
    ws.send("NICK justinfan4242\r\n")
    ws.send("JOIN #" + CHANNEL)
    while len(result["privmsgs"]) < COUNT and time.monotonic() < deadline:
        try:
            message = ws.recv(timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            break
        result["messages"] += 1
        for line in message.split("\r\n"):
            if not line:
                continue
            result["lines"] += 1
            if line.startswith("PING"):
                ws.send("PONG" + line[4:])
            elif " PRIVMSG #%s :" % CHANNEL in line:
                text = line.split(" PRIVMSG #%s :" % CHANNEL, 1)[1]
                result["privmsgs"].append({"id": tags(line).get("id"), "text": text})
print(json.dumps(result))
