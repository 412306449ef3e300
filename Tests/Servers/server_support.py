"""What the test servers share: a loopback listener, the ``PORT <n>`` line, and how they stop.

Every server here keeps one launch contract (Tests/NetworkLayerTests/Support/Servers/ServerProcess.swift
relies on it): it listens on 127.0.0.1 (or ::1, or a Unix socket) on a port the kernel picks unless
told one, prints exactly one line ``PORT <n>`` (``PORT 0`` for a Unix socket) once it listens, and
stops on SIGTERM/SIGINT or when its stdin reaches EOF, so that it never outlives the test process.

Standard library only; serve_asgi imports hypercorn, which only the .venv's Python has. A server
imports this as ``server_support``: a script's own directory is on sys.path, even under ``python -S``.
"""

import asyncio
import http.server
import os
import signal
import socket
import socketserver
import sys
import threading
import time

LOOPBACK = "127.0.0.1"
POLL_INTERVAL = 0.1  # the longest a stop waits for a main-thread loop to notice it
HYPERCORN_GRACE = 0.5


def listen(host=LOOPBACK, port=0, backlog=128, reuse_address=False):
    """A TCP socket bound to `host` ("127.0.0.1" or "::1") and `port` (0: the kernel picks) and
    listening with `backlog`; with `backlog` None, bound only (connects to it are refused). Leave
    `reuse_address` off where the port must stay reserved: with SO_REUSEADDR on both, Linux lets a
    second socket bind a port whose first is not listening."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    if reuse_address:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    if backlog is not None:
        sock.listen(backlog)
    return sock


def listen_unix(path, backlog=128):
    """A socket listening at `path`, replacing a file an earlier run left there."""
    remove(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(backlog)
    return sock


def remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def port_of(sock):
    """The port `sock` is bound to; 0 for a Unix socket, which has none."""
    address = sock.getsockname()
    return address[1] if isinstance(address, tuple) else 0


def announce(port):
    print(f"PORT {port}", flush=True)


def on_stop(stop):
    """Runs `stop()` once, on a thread of its own, at SIGTERM, SIGINT or EOF on stdin (no usable
    stdin counts as EOF). Call it from the main thread: only that thread installs signal handlers,
    and it runs them, so a stop() that waits for the main thread must not run in a handler."""
    once = threading.Lock()

    def fire(*_):
        if once.acquire(blocking=False):
            threading.Thread(target=stop, daemon=True).start()

    def read_to_eof():
        try:
            while os.read(0, 65536):
                pass
        except OSError:
            pass
        fire()

    signal.signal(signal.SIGTERM, fire)
    signal.signal(signal.SIGINT, fire)
    threading.Thread(target=read_to_eof, daemon=True).start()


def wait_for_stop(port):
    """Announces `port`, then blocks the main thread until a stop (see on_stop), for a server whose
    own threads do the serving."""
    stopped = threading.Event()
    on_stop(stopped.set)
    announce(port)
    while not stopped.wait(POLL_INTERVAL):  # a timed wait, so that the signal handlers get to run
        pass


def accept_in_background(listener, handle):
    """Accepts connections on a daemon thread until `listener` closes, calling handle(connection)
    for each on a daemon thread of its own."""
    def accept_loop():
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=handle, args=(connection,), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()


class LoopbackHTTPServer(http.server.ThreadingHTTPServer):
    """An HTTP server on `host` ("127.0.0.1" or "::1"), a daemon thread per connection, for which
    a client hanging up early (timeouts, cancellation: routine in the tests) is no error."""
    daemon_threads = True

    def __init__(self, handler, port=0, host=LOOPBACK):
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), handler)

    def server_bind(self):
        socketserver.TCPServer.server_bind(self)  # HTTPServer's adds a reverse DNS lookup (getfqdn)
        self.server_name, self.server_port = self.server_address[:2]

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def serve(server, cleanup=None):
    """Runs a socketserver `server` (TCP or Unix) on the main thread: announces its port, serves
    until a stop, closes it, then calls cleanup() and exits the process."""
    on_stop(server.shutdown)
    announce(port_of(server.socket))
    server.serve_forever(poll_interval=POLL_INTERVAL)
    server.server_close()
    exit_now(cleanup)


def serve_asgi(app, sock, certfile=None, keyfile=None, cleanup=None):
    """Serves the ASGI `app` with hypercorn on `sock` (from listen or listen_unix) on the main
    thread: with certfile and keyfile over TLS, offering h2 and http/1.1 by ALPN; without, HTTP/1.1
    and h2c. Announces the port; at a stop, calls cleanup() and exits the process."""
    from hypercorn.asyncio import serve as hypercorn_serve
    from hypercorn.config import Config

    config = Config()
    sock.set_inheritable(True)
    config.bind = [f"fd://{sock.fileno()}"]
    if certfile:
        config.certfile = certfile
        config.keyfile = keyfile
        config.alpn_protocols = ["h2", "http/1.1"]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 0.1
    loop = asyncio.new_event_loop()
    stopped = asyncio.Event()

    def stop():
        loop.call_soon_threadsafe(stopped.set)
        # hypercorn's shutdown waits for open connections, and the client keeps its idle ones.
        time.sleep(HYPERCORN_GRACE)
        exit_now(cleanup)

    on_stop(stop)
    announce(port_of(sock))
    loop.run_until_complete(hypercorn_serve(app, config, shutdown_trigger=stopped.wait))
    exit_now(cleanup)


_exiting = threading.Lock()


def exit_now(cleanup=None):
    """Calls cleanup() once, then ends the process without waiting for its threads (they may be
    blocked in a read) or the interpreter's shutdown (half a second for httpbin's modules)."""
    with _exiting:  # a second caller waits here until the process ends
        if cleanup:
            cleanup()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
