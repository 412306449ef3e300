#!/usr/bin/env python3
"""A server that accepts every connection and never answers it (issue 54's cancellation storm): it
reads what a client sends and holds the socket until the client goes. One selector loop on one
thread, so 10,000 connections cost 10,000 sockets, not threads.

A connection whose first bytes are ``COUNT\\n`` is answered at once with the number of other
connections accepted so far, as text, and closed: how a test knows the server holds them all.
Standard library only; server_support's launch contract (``PORT <n>``, stops at stdin's EOF).
"""

import selectors
import threading

import server_support

listener = server_support.listen(backlog=20000)
selector = selectors.DefaultSelector()
accepted = 0
stopped = threading.Event()


def serve():
    global accepted
    listener.setblocking(False)
    selector.register(listener, selectors.EVENT_READ, None)
    while not stopped.is_set():
        for key, _ in selector.select(timeout=0.1):
            if key.fileobj is listener:
                while True:
                    try:
                        connection, _ = listener.accept()
                    except OSError:
                        break
                    connection.setblocking(False)
                    selector.register(connection, selectors.EVENT_READ, {"first": True})
                continue
            connection, state = key.fileobj, key.data
            try:
                data = connection.recv(65536)
            except OSError:
                data = b""
            if state["first"] and data == b"COUNT\n":
                selector.unregister(connection)
                try:
                    connection.setblocking(True)
                    connection.sendall(f"{accepted}\n".encode())
                finally:
                    connection.close()
                continue
            if state["first"] and data:
                state["first"] = False
                accepted += 1
            if not data:  # the client went: its socket goes too
                selector.unregister(connection)
                connection.close()


threading.Thread(target=serve, daemon=True).start()
server_support.wait_for_stop(server_support.port_of(listener))
stopped.set()
