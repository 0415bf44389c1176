"""A TCP forwarder for end-to-end tests: listens on 127.0.0.1 (a free port, printed on the first line
of stdout), forwards every connection to 127.0.0.1:TARGET, and closes the first connection both ways
AFTER seconds after it opened (later connections are left alone): one client loses its connection
once, mid-chat, while every other client of the server goes on. With DELAY, what the server sends
reaches the client DELAY seconds late (a client behind a slower path than the server's other
clients). With HOLD, connections that come in the HOLD seconds after that close wait (in the listen
backlog) until they have passed: the client's gap lasts at least that long, however fast it reconnects.
Runs until killed.

    python3 drop_once_proxy.py TARGET AFTER [DELAY [HOLD]]
"""
import collections, selectors, socket, sys, time

target, after = int(sys.argv[1]), float(sys.argv[2])
delay = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
hold = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
held_until = 0.0  # no connection is accepted before this time
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
listener.setblocking(False)
print(listener.getsockname()[1], flush=True)
selector = selectors.DefaultSelector()
selector.register(listener, selectors.EVENT_READ)
pairs = {}  # socket -> its peer
upstreams = set()  # the sockets to the server
late = collections.deque()  # (due, client, data): the server's bytes not yet due at the client
first = None  # (client, upstream, opened at)


def close_pair(s):
    for x in (s, pairs.get(s)):
        if x is not None and x in pairs:
            selector.unregister(x)
            pairs.pop(x, None)
            upstreams.discard(x)
            x.close()


while True:
    now = time.time()
    if held_until and now >= held_until:
        selector.register(listener, selectors.EVENT_READ)
        held_until = 0.0
    while late and late[0][0] <= now:
        _, client, data = late.popleft()
        if client in pairs:
            try:
                client.sendall(data)
            except OSError:
                close_pair(client)
    timeout = max(0.0, min(0.05, late[0][0] - now)) if late else 0.05
    for key, _ in selector.select(timeout=timeout):
        if key.fileobj is listener:
            client, _ = listener.accept()
            upstream = socket.create_connection(("127.0.0.1", target))
            for s in (client, upstream):
                s.setblocking(True)
                selector.register(s, selectors.EVENT_READ)
            pairs[client], pairs[upstream] = upstream, client
            upstreams.add(upstream)
            if first is None:
                first = (client, upstream, time.time())
            continue
        source = key.fileobj
        if source not in pairs:
            continue
        try:
            data = source.recv(65536)
        except OSError:
            data = b""
        if data:
            if delay > 0 and source in upstreams:
                late.append((time.time() + delay, pairs[source], data))
            else:
                pairs[source].sendall(data)
            continue
        close_pair(source)
    if first is not None and first[2] is not None and time.time() - first[2] >= after:
        if first[0] in pairs:
            close_pair(first[0])
        first = (None, None, None)
        if hold > 0:
            selector.unregister(listener)
            held_until = time.time() + hold
