#!/usr/bin/env python3
"""Two IRC-over-WebSocket clients built on the `websockets` package (PyPI), for chatcap's tests.

Usage: ws_relay_pair.py URL CHANNEL [TIMEOUT]

Both log in anonymously-looking (PASS, NICK alice / bob) and JOIN #CHANNEL; once both have their
366 (end of names), alice sends one PRIVMSG. Prints one JSON object: the line bob received with it
(or null), whether alice got a USERSTATE for #CHANNEL after sending, and whether alice saw her own
message echoed (Twitch does not echo). Always stops by itself.
"""
import json
import sys
import time

from websockets.sync.client import connect

URL, CHANNEL = sys.argv[1], sys.argv[2]
TIMEOUT = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
TEXT = "hello from alice via websockets"


def login(ws, nick):
    ws.send("CAP REQ :twitch.tv/tags twitch.tv/commands")
    ws.send("PASS oauth:notarealtoken\r\n")
    ws.send("NICK %s\r\n" % nick)
    ws.send("JOIN #" + CHANNEL)


def lines(ws, until):
    try:
        message = ws.recv(timeout=max(0.01, until - time.monotonic()))
    except TimeoutError:
        return []
    out = []
    for line in message.split("\r\n"):
        if line.startswith("PING"):
            ws.send("PONG" + line[4:])
        elif line:
            out.append(line)
    return out


def wait_joined(ws, until):
    while time.monotonic() < until:
        if any(" 366 " in l for l in lines(ws, until)):
            return True
    return False


deadline = time.monotonic() + TIMEOUT
result = {"joined": False, "bob_got": None, "alice_userstate": False, "alice_echo": False}
with connect(URL, subprotocols=["irc"], open_timeout=TIMEOUT) as alice, \
        connect(URL, subprotocols=["irc"], open_timeout=TIMEOUT) as bob:
    login(alice, "alice")
    login(bob, "bob")
    result["joined"] = wait_joined(alice, deadline) and wait_joined(bob, deadline)
    alice.send("PRIVMSG #%s :%s" % (CHANNEL, TEXT))
    end = min(deadline, time.monotonic() + 3)
    while time.monotonic() < end and (result["bob_got"] is None or not result["alice_userstate"]):
        for l in lines(bob, time.monotonic() + 0.1):
            if (" PRIVMSG #%s :" % CHANNEL) in l and TEXT in l:
                result["bob_got"] = l
        for l in lines(alice, time.monotonic() + 0.1):
            if (" USERSTATE #%s" % CHANNEL) in l:
                result["alice_userstate"] = True
            if TEXT in l:
                result["alice_echo"] = True
print(json.dumps(result))
