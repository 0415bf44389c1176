#!/usr/bin/env python3
"""Writes down what `chatcap serve` plays, as a client of it beside the one under test.

    irc_recorder.py IRC_PORT OUT CHANNEL...

Connects to 127.0.0.1:IRC_PORT (plain IRC), asks for tags, logs in anonymously, joins the channels,
prints "joined" on stdout once every JOIN is echoed, then appends one row per message it receives
(a PRIVMSG or USERNOTICE with an id) to OUT, in the order serve sent them:

    <tmi-sent-ts>\t<id>\t<channel>\n

Serve stamps `tmi-sent-ts` with the moment it plays the line, so the first column is serve's play
time. Answers PING; runs until killed (SIGTERM or SIGINT: what was received is written first).
A whole chunk is parsed with one regular expression, so it keeps up with `serve --speed max`.
"""
import re
import signal
import socket
import sys

PORT, OUT, CHANNELS = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
NICK = b"justinfan7117"
MESSAGE = re.compile(
    rb"^@([^ \r\n]*) :[^ \r\n]+ (?:PRIVMSG|USERNOTICE) #([^ \r\n]+)", re.MULTILINE
)
TAG_ID = re.compile(rb"(?:^|;)id=([^;]+)")
TAG_SENT = re.compile(rb"(?:^|;)tmi-sent-ts=([0-9]+)")


def stop(*_):
    raise SystemExit(0)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
# A child inherits its parent thread's signal mask (a test runner's thread may block them all).
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

sock = socket.create_connection(("127.0.0.1", PORT))
sock.sendall(
    b"CAP REQ :twitch.tv/tags twitch.tv/commands twitch.tv/membership\r\n"
    b"PASS SCHMOOPIIE\r\nNICK " + NICK + b"\r\n"
    + b"".join(b"JOIN #" + c.encode() + b"\r\n" for c in CHANNELS)
)
waiting = {c.encode() for c in CHANNELS}
echo = re.compile(rb"^:" + NICK + rb"![^ ]+ JOIN #([^ \r\n]+)", re.MULTILINE)
ping = re.compile(rb"^PING( [^\r\n]*)?\r?$", re.MULTILINE)

with open(OUT, "wb") as out:
    pending = b""
    try:
        while True:
            data = sock.recv(1 << 18)
            if not data:
                break
            data = pending + data
            cut = data.rfind(b"\n") + 1
            pending, data = data[cut:], data[:cut]
            if waiting:
                for channel in echo.findall(data):
                    waiting.discard(channel)
                if not waiting:
                    print("joined", flush=True)
            for rest in ping.findall(data):
                sock.sendall(b"PONG" + rest + b"\r\n")
            rows = []
            for tags, channel in MESSAGE.findall(data):
                found = TAG_ID.search(tags)
                sent = TAG_SENT.search(tags)
                if found and sent:
                    rows.append(b"%s\t%s\t%s\n" % (sent.group(1), found.group(1), channel))
            out.write(b"".join(rows))
    finally:
        out.flush()
