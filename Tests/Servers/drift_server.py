#!/usr/bin/env python3
"""Loopback backend whose answers a test sets, to check mocks against (Python 3 standard library only).

    python3 drift_server.py [--port 0]

Same launch contract as test_server.py: it listens on 127.0.0.1 only, prints exactly one line
``PORT <n>`` once it is listening, and exits on SIGTERM/SIGINT or when its stdin reaches EOF.

  PUT  /_answer/<path>      sets what any request for /<path> is answered with: the request's body
                            as the body, its X-Answer-Status (default 200) and X-Answer-Type
                            (default application/json), and each X-Answer-Header-<Name> as <Name>
  PUT  /_big/<path>         the answer of /<path> is a JSON array of ?count= small objects,
                            made by the server (a body too large to send it one)
  any  /hang                never answered: the connection stays open until the server stops
  any  /echo                {"headers": {...}, "query": "...", "seen": {<each header and query value>: true}},
                            and each header again as X-Echo-<name>: what the request carried, echoed
  any  other path           the answer set for it, else 404 {"error": "no answer set"}
"""

import http.server
import json
import threading
import urllib.parse

import server_support

NEVER = threading.Event()


class DriftServer(server_support.LoopbackHTTPServer):
    def __init__(self, port):
        super().__init__(Handler, port)
        self.lock = threading.Lock()
        self.answers = {}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_PUT(self):
        parts = urllib.parse.urlsplit(self.path)
        body = self.read_body()
        if parts.path.startswith("/_answer/"):
            path = parts.path[len("/_answer"):]
            headers = [(name[len("X-Answer-Header-"):], value) for name, value in self.headers.items()
                       if name.lower().startswith("x-answer-header-")]
            answer = (int(self.headers.get("X-Answer-Status") or 200), body,
                      self.headers.get("X-Answer-Type") or "application/json", headers)
        elif parts.path.startswith("/_big/"):
            path = parts.path[len("/_big"):]
            count = int(urllib.parse.parse_qs(parts.query).get("count", ["1"])[0])
            item = b'{"id":1,"name":"a name of some length","tags":["x","y"]}'
            answer = (200, b"[" + b",".join([item] * count) + b"]", "application/json", [])
        else:
            return self.send(404, b'{"error": "no such control path"}')
        with self.server.lock:
            self.server.answers[path] = answer
        self.send(204, b"")

    def answer(self):
        parts = urllib.parse.urlsplit(self.path)
        self.read_body()
        if parts.path == "/hang":
            NEVER.wait()
            return
        if parts.path == "/echo":
            values = list(self.headers.values()) + [v for _, v in urllib.parse.parse_qsl(parts.query)]
            echo = {"headers": dict(self.headers.items()), "query": parts.query, "seen": {v: True for v in values}}
            return self.send(200, json.dumps(echo).encode(), headers=[("X-Echo-" + name, value) for name, value in self.headers.items()])
        with self.server.lock:
            answer = self.server.answers.get(parts.path)
        if answer is None:
            return self.send(404, b'{"error": "no answer set"}')
        status, body, content_type, headers = answer
        self.send(status, body, content_type, headers)

    do_GET = do_POST = do_DELETE = do_PATCH = answer


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description="Loopback backend whose answers a test sets.")
    parser.add_argument("--port", type=int, default=0, help="0 lets the kernel choose")
    server_support.serve(DriftServer(parser.parse_args().port))
