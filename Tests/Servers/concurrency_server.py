#!/usr/bin/env python3
"""Loopback HTTP/1.1 server that counts requests in flight, for the per-origin limit tests of
issue 53 (Python 3 standard library only).

    python3 concurrency_server.py [--port 0]

Same launch contract as test_server.py (server_support): 127.0.0.1, one ``PORT <n>`` line, stops
on SIGTERM/SIGINT or at EOF on stdin. A request counts as in flight from when its head is read
until its response is written. Endpoints (any method):

  /hold?ms=<n>&tag=<t>   records t in the order requests arrived, answers after n ms (default
                         100, at most 60000): {"tag": t, "inFlight": <in flight then>}; with
                         &until=released, answers at /release or after n ms, whichever is first
  /release               lets every /hold waiting with until=released answer (until /stats/reset)
  /load?ms=<n>           answers after n ms times the requests in flight (a server that slows
                         down as it is loaded): {"inFlight": <in flight then>}
  /stats                 {"inFlight", "peak", "requests", "order": [tags in order of arrival]}
  /stats/reset           forgets the peak, the count and the order
  anything else          404
"""

import argparse
import http.server
import json
import socket
import threading
import time

import server_support


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.in_flight = 0
        self.released = threading.Event()
        self.reset()

    def reset(self):
        self.peak = self.in_flight
        self.requests = 0
        self.order = []
        self.released.clear()

    def snapshot(self):
        return {"inFlight": self.in_flight, "peak": self.peak, "requests": self.requests, "order": list(self.order)}


class Server(server_support.LoopbackHTTPServer):
    request_queue_size = 512

    def __init__(self, port):
        super().__init__(Handler, port)
        self.counts = Counts()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def setup(self):
        super().setup()
        # Headers and body go in two writes: without this, Nagle and the client's delayed ACK
        # add 40 ms to every answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self):
        self.answer()

    do_POST = do_PUT = do_DELETE = do_HEAD = do_GET

    def answer(self):
        path, _, query = self.path.partition("?")
        items = dict(item.partition("=")[::2] for item in query.split("&") if item)
        counts = self.server.counts
        if path.startswith("/stats"):
            with counts.lock:
                snapshot = counts.snapshot()
                if path == "/stats/reset":
                    counts.reset()
            self.send_json(200, snapshot)
            return
        if path == "/release":
            counts.released.set()
            self.send_json(200, {})
            return
        if path not in ("/hold", "/load"):
            self.send_json(404, {"error": "not found"})
            return
        with counts.lock:
            counts.in_flight += 1
            counts.requests += 1
            counts.peak = max(counts.peak, counts.in_flight)
            now = counts.in_flight
            if "tag" in items:
                counts.order.append(items["tag"])
        try:
            milliseconds = max(0, min(60000, int(items.get("ms") or 100)))
            if path == "/load":
                milliseconds *= now
            if items.get("until") == "released":
                counts.released.wait(milliseconds / 1000)
            else:
                time.sleep(milliseconds / 1000)
        finally:
            with counts.lock:
                counts.in_flight -= 1
        self.send_json(200, {"tag": items.get("tag", ""), "inFlight": now})

    def send_json(self, status, value):
        body = json.dumps(value).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser(description="Loopback HTTP/1.1 server that counts requests in flight.")
    parser.add_argument("--port", type=int, default=0, help="0 lets the kernel choose")
    args = parser.parse_args()
    server_support.serve(Server(args.port))


if __name__ == "__main__":
    main()
