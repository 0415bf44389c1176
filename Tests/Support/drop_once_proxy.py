"""A TCP forwarder for end-to-end tests: listens on 127.0.0.1 (a free port, printed on the first line
of stdout), forwards every connection to 127.0.0.1:TARGET, and closes the first connection both ways
AFTER seconds after it opened (later connections are left alone): one client loses its connection
once, mid-chat, while every other client of the server goes on. Runs until killed.

    python3 drop_once_proxy.py TARGET AFTER
"""
import selectors, socket, sys, time

target, after = int(sys.argv[1]), float(sys.argv[2])
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
listener.setblocking(False)
print(listener.getsockname()[1], flush=True)
selector = selectors.DefaultSelector()
selector.register(listener, selectors.EVENT_READ)
pairs = {}  # socket -> its peer
first = None  # (client, upstream, opened at)
while True:
    for key, _ in selector.select(timeout=0.05):
        if key.fileobj is listener:
            client, _ = listener.accept()
            upstream = socket.create_connection(("127.0.0.1", target))
            for s in (client, upstream):
                s.setblocking(True)
                selector.register(s, selectors.EVENT_READ)
            pairs[client], pairs[upstream] = upstream, client
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
            pairs[source].sendall(data)
            continue
        for s in (source, pairs[source]):
            selector.unregister(s)
            pairs.pop(s, None)
            s.close()
    if first is not None and first[2] is not None and time.time() - first[2] >= after:
        for s in first[:2]:
            if s in pairs:
                selector.unregister(s)
                pairs.pop(s, None)
                s.close()
        first = (None, None, None)
