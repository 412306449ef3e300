#!/usr/bin/env python3
"""Loopback HTTP/1.1 server that counts its connections, for the connection-limit and idle-timeout
tests of issue 25's second phase (Python 3 standard library only).

    python3 connection_server.py [--port 0]

Same launch contract as test_server.py: it listens on 127.0.0.1 only, prints exactly one line
``PORT <n>`` once it listens, and serves HTTP/1.1 with keep-alive until SIGTERM/SIGINT or until
its stdin reaches EOF (give it a pipe as stdin and keep the write end open).

A connection counts from its first request that is not to /stats (so that asking for the numbers
does not change them) until it closes. A connection the client closed counts as closed from then,
even if its thread has not read the end yet: before a new connection is counted, the open ones are
looked at (a peek for the end of the stream), so that a client closing one connection and opening
another at once is never seen with both open. Endpoints (any method):

  /hold?ms=<n>      answers after n milliseconds (default 200), so that concurrent requests
                    overlap: {"connection": <its number>, "open": <connections open now>}
  /stats            {"open": <open now>, "peak": <most open at once>, "accepted": <connections
                    counted>, "requests": <requests counted>, "closes": [{"connection": n,
                    "by": "client" | "server", "idleSeconds": <from the end of its last response
                    to the close>, "requests": <requests it carried>}, ...]}
  /stats/reset      forgets the peak, the counts and the closes (connections open stay open and
                    count again from their next request); answers as /stats did before
  /close            answers, then closes the connection itself ("by": "server")
  anything else     404 {"error": "not found"}

Set CONNECTION_SERVER_VERBOSE=1 for a log of connections on stderr.
"""

import argparse
import http.server
import json
import os
import select
import socket
import sys
import threading
import time

import server_support

VERBOSE = os.environ.get("CONNECTION_SERVER_VERBOSE") == "1"


def peer_closed(sock):
    """Whether the client closed `sock` (the end of the stream is waiting to be read)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, InterruptedError):
        return False
    except (OSError, ValueError):
        return True


def log(message):
    if VERBOSE:
        print(f"connection_server: {message}", file=sys.stderr, flush=True)


class Counts:
    """The numbers /stats reports, behind one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.live = set()  # the handlers of the connections counted as open
        self.open = 0
        self.peak = 0
        self.accepted = 0
        self.requests = 0
        self.closes = []
        self.generation = getattr(self, "generation", 0) + 1

    def close(self, handler, by):
        """Counts `handler`'s connection closed (once). Call with the lock held."""
        if handler not in self.live:
            return
        self.live.discard(handler)
        self.open -= 1
        self.closes.append({"connection": handler.number, "by": by,
                            "idleSeconds": round(time.monotonic() - handler.last_response_end, 3),
                            "requests": handler.carried})

    def settle(self):
        """Counts closed the open connections whose client already closed them. Lock held."""
        for handler in list(self.live):
            if peer_closed(handler.connection):
                self.close(handler, "client")

    def snapshot(self):
        return {"open": self.open, "peak": self.peak, "accepted": self.accepted, "requests": self.requests,
                "closes": list(self.closes)}


class Server(server_support.LoopbackHTTPServer):
    request_queue_size = 256  # hundreds of concurrent connects must not overflow the backlog

    def __init__(self, port):
        super().__init__(Handler, port)
        self.counts = Counts()
        self.numbers = 0
        self.numbers_lock = threading.Lock()

    def next_number(self):
        with self.numbers_lock:
            self.numbers += 1
            return self.numbers


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ConnectionServer/1.0"

    def version_string(self):
        return self.server_version

    def log_message(self, format, *args):
        pass

    def setup(self):
        super().setup()
        self.number = self.server.next_number()
        self.counted_generation = None  # the Counts generation this connection is counted in
        self.carried = 0
        self.last_response_end = time.monotonic()
        self.closed_by = "server"
        log(f"connection {self.number} accepted")

    def handle_one_request(self):
        super().handle_one_request()
        if not getattr(self, "raw_requestline", b""):
            self.closed_by = "client"  # EOF where a request line would start: the client closed

    def finish(self):
        counts = self.server.counts
        with counts.lock:
            if self.counted_generation == counts.generation:
                counts.close(self, self.closed_by)
        log(f"connection {self.number} closed by the {self.closed_by}")
        super().finish()

    def __getattr__(self, name):
        if name.startswith("do_"):
            return self.dispatch
        raise AttributeError(name)

    def count(self):
        counts = self.server.counts
        with counts.lock:
            if self.counted_generation != counts.generation:
                counts.settle()
                self.counted_generation = counts.generation
                counts.live.add(self)
                counts.open += 1
                counts.accepted += 1
                counts.peak = max(counts.peak, counts.open)
            counts.requests += 1
            self.carried += 1
            return counts.open

    def dispatch(self):
        length = int(self.headers.get("Content-Length", "0") or 0)
        if length:
            self.rfile.read(length)
        path, _, query = self.path.partition("?")
        counts = self.server.counts
        if path == "/stats":
            with counts.lock:
                self.send_json(200, counts.snapshot())
            return
        if path == "/stats/reset":
            with counts.lock:
                before = counts.snapshot()
                counts.reset()
            self.send_json(200, before)
            return
        open_now = self.count()
        if path == "/hold":
            milliseconds = 200
            for item in query.split("&"):
                if item.startswith("ms="):
                    milliseconds = max(0, min(60000, int(item[3:] or 0)))
            time.sleep(milliseconds / 1000)
            self.send_json(200, {"connection": self.number, "open": open_now})
        elif path == "/close":
            self.close_connection = True
            self.send_json(200, {"connection": self.number, "open": open_now}, close=True)
        else:
            self.send_json(404, {"error": "not found"})

    def send_json(self, status, value, close=False):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.last_response_end = time.monotonic()


def main():
    parser = argparse.ArgumentParser(description="Loopback HTTP/1.1 server that counts its connections.")
    parser.add_argument("--port", type=int, default=0, help="0 lets the kernel choose")
    args = parser.parse_args()
    server_support.serve(Server(args.port))


if __name__ == "__main__":
    main()
