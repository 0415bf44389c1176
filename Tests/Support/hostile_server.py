#!/usr/bin/env python3
"""A deliberately hostile IRC server on 127.0.0.1 for chatcap's end-to-end tests.

Usage: hostile_server.py MODE LOG

Prints the port it listens on (one line), then serves connections one after another until it has
run for --lifetime seconds (default 20), so it always stops by itself. Every line a client sends is
appended to LOG as "N<TAB>line" (N: the connection, from 1); a PASS line is written as "PASS ***"
so that a token never reaches a file. Modes:

  garbage        10 unparsable lines before login, after the welcome, after the JOIN echo and
                 after a PING; then quiet until the client goes away
  reconnect      log in and join, then in ONE write: RECONNECT, 5 PRIVMSGs and a partial line,
                 and close 0.3 s later (as Twitch does); later connections log in, join and stay quiet
  ping-flood     never read (with a 4 KiB receive buffer); welcome "tester", echo its JOIN #c,
                 then PINGs with 300-byte tokens as fast as the client takes them
  partial-stall  log in and join, then half a line, then nothing (no PONG either)
  login-failed   answer the login with NOTICE "Login authentication failed"
  many-channels  log in, echo each JOIN (as Twitch does), then 3 rounds of one PRIVMSG for each
                 of #ch0 … #ch4999 ("round N"), whatever the client joined; then quiet until the
                 client goes away
  unconfirmed    log in and welcome, never confirm a JOIN; then quiet until the client goes away
  silent         accept, read and drop what comes (a TLS ClientHello, an Upgrade request), never
                 write a byte: a handshake that never ends; logs "<received>" when the first bytes
                 of a connection come
"""
import socket
import sys
import threading
import time

MODE, LOG = sys.argv[1], sys.argv[2]
LIFETIME = 20.0
GARBAGE = b"".join(b":garbage-%d\r\n" % i for i in range(10))

log_lock = threading.Lock()


def record(number, line):
    text = line.decode("utf-8", "replace")
    if text.upper().startswith("PASS "):
        text = "PASS ***"
    with log_lock, open(LOG, "a") as f:
        f.write("%d\t%s\n" % (number, text))


class Client:
    """Reads lines on a thread, logging them; `wait_for(prefix)` waits for one."""

    def __init__(self, sock, number):
        self.sock, self.number = sock, number
        self.lines, self.cond = [], threading.Condition()
        self.send_lock = threading.Lock()
        self.nick = "justinfan1"
        threading.Thread(target=self.reader, daemon=True).start()

    def reader(self):
        buf = b""
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                with self.cond:
                    self.lines.append(None)
                    self.cond.notify_all()
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                line = line.rstrip(b"\r")
                record(self.number, line)
                with self.cond:
                    self.lines.append(line)
                    self.cond.notify_all()

    def wait_for(self, prefix, timeout=5.0):
        """The first line starting with `prefix` (or None at the end of the stream or timeout)."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self.cond:
            while True:
                while seen < len(self.lines):
                    line = self.lines[seen]
                    seen += 1
                    if line is None:
                        return None
                    if line.startswith(prefix):
                        return line
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def wait_closed(self, timeout):
        self.wait_for(b"\x00never", timeout)

    def send(self, data):
        with self.send_lock:  # whole writes: the JOIN echoes of echo_joins() come from a thread
            self.sock.sendall(data)

    def login(self):
        cap = self.wait_for(b"CAP REQ")
        if cap is not None:
            self.send(b":tmi.twitch.tv CAP * ACK :" + cap.split(b":", 1)[-1] + b"\r\n")
        nick = self.wait_for(b"NICK ")
        if nick is not None:
            self.nick = nick.split(b" ", 1)[1].strip().decode()
        self.wait_for(b"USER ")

    def welcome(self):
        self.send(b":tmi.twitch.tv 001 %s :Welcome, GLHF!\r\n" % self.nick.encode())

    def echo_join(self):
        join = self.wait_for(b"JOIN ")
        if join is None:
            return b"#c", b""
        channel = join.split(b" ", 1)[1].strip()
        n = self.nick.encode()
        return channel, b":%s!%s@%s.tmi.twitch.tv JOIN %s\r\n" % (n, n, n, channel)

    def echo_joins(self):
        """Confirms every JOIN (of one channel or several) as it comes, as Twitch does, on a thread."""

        def run():
            seen = 0
            while True:
                with self.cond:
                    while seen >= len(self.lines):
                        self.cond.wait()
                    line = self.lines[seen]
                    seen += 1
                if line is None:
                    return
                if not line.startswith(b"JOIN "):
                    continue
                n = self.nick.encode()
                echo = b"".join(b":%s!%s@%s.tmi.twitch.tv JOIN %s\r\n" % (n, n, n, channel)
                                for channel in line.split(b" ", 1)[1].strip().split(b","))
                try:
                    self.send(echo)
                except OSError:
                    return

        threading.Thread(target=run, daemon=True).start()


def serve_garbage(c, end):
    c.send(GARBAGE)  # before login
    c.login()
    c.welcome()
    c.send(GARBAGE)  # after the welcome, in the same read as it if the kernel allows
    channel, echo = c.echo_join()
    c.send(echo + GARBAGE)
    time.sleep(0.2)
    c.send(b"PING :hostile\r\n" + GARBAGE)
    time.sleep(0.2)
    c.send(b":u!u@u PRIVMSG %s :after the garbage\r\n" % channel)
    c.wait_closed(end - time.monotonic())


def serve_reconnect(c, end):
    c.login()
    c.welcome()
    channel, echo = c.echo_join()
    c.send(echo)
    if c.number == 1:
        time.sleep(0.2)
        burst = b":tmi.twitch.tv RECONNECT\r\n"
        burst += b"".join(b":u!u@u PRIVMSG %s :after reconnect %d\r\n" % (channel, i) for i in range(1, 6))
        burst += b":u!u@u PRIVMSG %s :partial"
        c.send(burst)
        # As Twitch: the connection is closed a short time after RECONNECT (the client keeps
        # reading it meanwhile, its replacement waits in the backlog until then).
        time.sleep(0.3)
        # shutdown, not just close: the reader thread blocked in recv would hold the FIN back.
        c.sock.shutdown(socket.SHUT_RDWR)
        return
    c.wait_closed(end - time.monotonic())


def serve_partial_stall(c, end):
    c.login()
    c.welcome()
    channel, echo = c.echo_join()
    c.send(echo)
    time.sleep(0.1)
    c.send(b":u!u@u PRIVMSG %s :half a li" % channel)
    c.wait_closed(end - time.monotonic())


def serve_login_failed(c, end):
    c.login()
    c.send(b":tmi.twitch.tv NOTICE * :Login authentication failed\r\n")
    c.wait_closed(end - time.monotonic())


def serve_unconfirmed(c, end):
    c.login()
    c.welcome()
    c.wait_closed(end - time.monotonic())


def serve_many_channels(c, end):
    c.login()
    c.welcome()
    c.echo_joins()
    time.sleep(0.5)
    for r in range(3):
        c.send(b"".join(b":u!u@u PRIVMSG #ch%d :round %d\r\n" % (i, r) for i in range(5000)))
        time.sleep(0.2)
    c.wait_closed(end - time.monotonic())


def serve_silent(sock, end, number):
    # Logs "<received>" once the client's first bytes came: it is in its handshake, waiting.
    sock.settimeout(max(0.1, end - time.monotonic()))
    said = False
    try:
        while sock.recv(65536):
            if not said:
                record(number, b"<received>")
                said = True
    except OSError:
        pass


def serve_ping_flood(sock, end):
    # Never read: the client's lines stay in our receive buffer.
    # The test logs in as "tester": welcome it and echo its JOIN without reading it.
    sock.sendall(b":tmi.twitch.tv 001 tester :Welcome, GLHF!\r\n")
    time.sleep(0.1)
    sock.sendall(b":tester!tester@tester.tmi.twitch.tv JOIN #c\r\n")
    # Long tokens: each PONG is as long, so the client's queue grows fast even in a debug build.
    chunk = (b"PING :" + b"t" * 300 + b"\r\n") * 200
    sock.settimeout(0.5)
    while time.monotonic() < end:
        try:
            sock.sendall(chunk)
        except socket.timeout:
            continue
        except OSError:
            return  # the client closed the connection


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if MODE == "ping-flood":
        # A small receive buffer (inherited by accepted sockets): what the client sends piles up
        # in its own queue at once instead of in kernel buffers.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    print(listener.getsockname()[1], flush=True)
    end = time.monotonic() + LIFETIME
    number = 0
    while time.monotonic() < end:
        listener.settimeout(max(0.1, end - time.monotonic()))
        try:
            sock, _ = listener.accept()
        except OSError:
            break
        number += 1
        try:
            if MODE == "ping-flood":
                serve_ping_flood(sock, end)
            elif MODE == "silent":
                serve_silent(sock, end, number)
            else:
                c = Client(sock, number)
                {"garbage": serve_garbage, "reconnect": serve_reconnect,
                 "partial-stall": serve_partial_stall, "login-failed": serve_login_failed,
                 "many-channels": serve_many_channels, "unconfirmed": serve_unconfirmed}[MODE](c, end)
        except OSError:
            pass
        finally:
            sock.close()


if __name__ == "__main__":
    main()
