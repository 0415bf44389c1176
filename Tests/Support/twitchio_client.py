#!/usr/bin/env python3
"""twitchio 2.10 (PyPI), unmodified but for its WebSocket URL, as a bot reading a channel: for
chatcap's tests of `serve --ws-port`.

Usage: twitchio_client.py URL CHANNEL COUNT [TIMEOUT]

twitchio keeps Twitch's address in the constant `twitchio.websocket.HOST`
("wss://irc-ws.chat.twitch.tv:443"); it is the only thing patched, to URL. Before connecting,
twitchio asks Twitch's HTTP API (id.twitch.tv/oauth2/validate) for the token's login when it knows
none; no such API is reachable here, so the client is given what that call leaves behind — its
aiohttp session and the login (justinfan…) — and never makes it. A Client with initial_channels
counts event_message calls until COUNT messages of #CHANNEL came or TIMEOUT seconds (default 15)
passed, then prints one JSON object: the id tag and text of each message in order.
Always stops by itself.
"""
import asyncio
import json
import sys

import aiohttp

import twitchio
import twitchio.websocket

URL, CHANNEL, COUNT = sys.argv[1], sys.argv[2], int(sys.argv[3])
TIMEOUT = float(sys.argv[4]) if len(sys.argv) > 4 else 15.0

assert twitchio.__version__ == "2.10.0", "twitchio %s, not 2.10.0" % twitchio.__version__
assert twitchio.websocket.HOST == "wss://irc-ws.chat.twitch.tv:443", twitchio.websocket.HOST
twitchio.websocket.HOST = URL


class Bot(twitchio.Client):
    def __init__(self, done):
        super().__init__(token="oauth:notarealtoken", initial_channels=[CHANNEL])
        self.done = done
        self.received = []

    async def event_message(self, message):
        if message.echo or message.channel is None or message.channel.name != CHANNEL:
            return
        self.received.append({"id": message.tags.get("id"), "text": message.content})
        if len(self.received) >= COUNT and not self.done.done():
            self.done.set_result(True)


async def main():
    done = asyncio.get_running_loop().create_future()
    bot = Bot(done)
    bot._http.nick = "justinfan4343"
    bot._http.session = aiohttp.ClientSession()
    task = asyncio.create_task(bot.connect())
    try:
        await asyncio.wait_for(done, TIMEOUT)
    except asyncio.TimeoutError:
        pass
    print(json.dumps({"received": bot.received}), flush=True)
    task.cancel()
    try:
        await bot.close()
    except Exception:
        pass


asyncio.run(main())
