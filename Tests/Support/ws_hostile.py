#!/usr/bin/env python3
"""Hostile WebSocket peers on 127.0.0.1 for chatcap's end-to-end tests (raw sockets, no library).

Every mode prints one line first (a number: a port, or how many connections it opened), then its
result lines, and stops by itself.

  ping-server              a server (prints its port): answers the upgrade, welcomes "tester" and
                           echoes its JOIN #c in one text frame, then sends 125-byte PINGs as fast as
                           the client takes them and never reads again (4 KiB receive buffer); one
                           connection after another, for 20 s
  bad-utf8-server          a server (prints its port) that welcomes "tester", echoes its JOIN #c, then
                           sends one text frame: a PRIVMSG, then a line with a byte that is not
                           UTF-8; prints "close CODE" for each close frame a client answers with;
                           one connection after another, for 4 s
  ping-client PORT SECS    upgrades, then sends masked 125-byte PINGs without ever reading (4 KiB
                           receive buffer); prints "closed after S s" when the server closed it,
                           or "open after S s"
  idle PORT N SECS         opens N connections that send nothing (prints how many opened), holds
                           them SECS seconds
  slowloris PORT N SECS    opens N connections (prints N) that send an upgrade request one byte
                           every 0.5 s; after SECS seconds prints "closed C of N"
"""
import base64
import hashlib
import os
import select
import socket
import struct
import sys
import time

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
REQUEST = (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def read_head(sock):
    head = b""
    while b"\r\n\r\n" not in head:
        data = sock.recv(1)
        if not data:
            raise OSError("closed during the handshake")
        head += data
    return head


def ping_server():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    print(listener.getsockname()[1], flush=True)
    end = time.monotonic() + 20
    ping = bytes([0x89, 125]) + b"p" * 125
    burst = ping * 256
    while time.monotonic() < end:
        listener.settimeout(max(0.1, end - time.monotonic()))
        try:
            sock, _ = listener.accept()
        except OSError:
            break
        try:
            upgrade(sock)
            sock.settimeout(max(0.1, end - time.monotonic()))
            while time.monotonic() < end:
                sock.sendall(burst)
        except OSError:
            pass
        finally:
            sock.close()


def upgrade(sock):
    head = read_head(sock)
    key = [l.split(b":", 1)[1].strip() for l in head.split(b"\r\n")
           if l.lower().startswith(b"sec-websocket-key:")][0]
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    text = b":tmi.twitch.tv 001 tester :Welcome, GLHF!\r\n:tester!tester@tester.tmi.twitch.tv JOIN #c\r\n"
    sock.sendall(bytes([0x81, len(text)]) + text)


def read_frame(sock):
    """One client frame (masked): (opcode, payload)."""
    def exactly(n):
        data = b""
        while len(data) < n:
            more = sock.recv(n - len(data))
            if not more:
                raise OSError("closed")
            data += more
        return data
    b0, b1 = exactly(2)
    length = b1 & 0x7F
    if length == 126:
        length = struct.unpack("!H", exactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", exactly(8))[0]
    key = exactly(4) if b1 & 0x80 else b"\0\0\0\0"
    payload = bytes(b ^ key[i % 4] for i, b in enumerate(exactly(length)))
    return b0 & 0x0F, payload


def bad_utf8_server():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    print(listener.getsockname()[1], flush=True)
    end = time.monotonic() + 4
    text = (b":a!a@a.tmi.twitch.tv PRIVMSG #c :fine\r\n"
            b":b!b@b.tmi.twitch.tv PRIVMSG #c :caf\xc3\x28 broken\r\n")
    while time.monotonic() < end:
        listener.settimeout(max(0.1, end - time.monotonic()))
        try:
            sock, _ = listener.accept()
        except OSError:
            break
        try:
            upgrade(sock)
            sock.sendall(bytes([0x81, len(text)]) + text)
            sock.settimeout(max(0.1, end - time.monotonic()))
            while True:
                opcode, payload = read_frame(sock)
                if opcode == 0x8:
                    print("close %d" % struct.unpack("!H", payload[:2])[0], flush=True)
                    break
        except (OSError, IndexError, struct.error):
            pass
        finally:
            sock.close()


def masked(opcode, payload):
    key = os.urandom(4)
    body = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + key + body


def ping_client(port, seconds):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    print(1, flush=True)
    sock.sendall(REQUEST)
    read_head(sock)
    burst = masked(0x9, b"p" * 125) * 256
    start = time.monotonic()
    sock.settimeout(0.5)
    while time.monotonic() - start < seconds:
        try:
            sock.sendall(burst)
        except socket.timeout:
            continue
        except OSError:
            print("closed after %.1f s" % (time.monotonic() - start), flush=True)
            return
    print("open after %.1f s" % (time.monotonic() - start), flush=True)


def connect_all(port, n):
    """Starts N connections at once (non-blocking) and keeps those established within 5 s."""
    pending = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        pending.append(s)
    done = []
    end = time.monotonic() + 5
    while pending and time.monotonic() < end:
        _, writable, _ = select.select([], pending, [], max(0.0, end - time.monotonic()))
        for s in writable:
            pending.remove(s)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                s.setblocking(True)
                done.append(s)
            else:
                s.close()
    return done


def idle(port, n, seconds):
    socks = connect_all(port, n)
    print(len(socks), flush=True)
    time.sleep(seconds)


def is_closed(sock):
    try:
        sock.setblocking(False)
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def slowloris(port, n, seconds):
    socks = connect_all(port, n)
    print(len(socks), flush=True)
    start = time.monotonic()
    sent = 0
    while time.monotonic() - start < seconds:
        for s in socks:
            try:
                s.send(REQUEST[sent:sent + 1])
            except OSError:
                pass
        sent = min(sent + 1, len(REQUEST) - 3)  # never the blank line that ends the head
        time.sleep(0.5)
    closed = sum(1 for s in socks if is_closed(s))
    print("closed %d of %d" % (closed, len(socks)), flush=True)


if __name__ == "__main__":
    mode, args = sys.argv[1], [int(float(a)) if i < 2 else float(a) for i, a in enumerate(sys.argv[2:])]
    if mode == "ping-server":
        ping_server()
    elif mode == "bad-utf8-server":
        bad_utf8_server()
    elif mode == "ping-client":
        ping_client(int(args[0]), args[1])
    elif mode == "idle":
        idle(int(args[0]), int(args[1]), args[2])
    elif mode == "slowloris":
        slowloris(int(args[0]), int(args[1]), args[2])
    else:
        sys.exit("unknown mode " + mode)
