#!/usr/bin/env python3
"""Loopback HTTP server for the response cache's tests (Python 3 standard library only).

    python3 cache_server.py [--port 0]

Same launch contract as test_server.py: it listens on 127.0.0.1 only, prints exactly one line
``PORT <n>`` once it is listening, serves HTTP/1.1 with keep-alive, and exits on SIGTERM/SIGINT
or when its stdin reaches EOF (so it cannot outlive the test process that started it).

It serves responses a test configures, and COUNTS every request that reaches it, per path: a
response "served from cache" is proved by the count not moving.

Control endpoints (paths starting with ``/_``; never counted, never cached by a sane cache: they
answer ``Cache-Control: no-store``):

  PUT  /_config?path=<path>[&method=<METHOD>]   body: JSON, the response for that path (and
                                                method; default: any method), replacing any before
  GET  /_count?path=<path>                      {"count": n, "conditional": c, "methods": {...},
                                                 "last": {header: value, ...} of the latest request,
                                                 "requests": [{"method", "headers"}, ...] in order}
  POST /_reset                                  forgets every configuration and count

Any other path is a resource. Without a configuration it answers 200 with
``Cache-Control: max-age=3600`` and the body ``<path> #<count>``. A configuration is a JSON object:

  status            the status (default 200)
  headers           [[name, value], ...] sent as given, in order; a value "{date:+N}" or "{date:-N}"
                    becomes the HTTP date N seconds from now, "{date}" now
  body              the body text; "{count}" in it becomes this request's count (default
                    "<path> #{count}")
  etag              an entity-tag (with its quotes, W/ for weak): sent as ETag, and a request whose
                    If-None-Match lists it (weak comparison, or "*") gets 304
  lastModified      seconds from now (e.g. -3600) or an HTTP date: sent as Last-Modified, and a
                    request whose If-Modified-Since is that date or later (and that has no
                    If-None-Match) gets 304
  notModifiedHeaders  [[name, value], ...] sent with a 304 (ETag, Date, Cache-Control, ... as given),
                    in place of the full response's headers; default: ETag/Last-Modified,
                    Cache-Control, Expires and Vary of the full response, and Date
  fail              {"status": 503 | 500 | ... | "close", "count": n}: the next n requests
                    (-1: all) get that status (with an empty body and Cache-Control: no-store) or a
                    closed connection, before the configured response; counted like any other
  gzip              true: the body is sent gzip-compressed, with Content-Encoding: gzip
  date              false: no Date header (by default every response has one, now)
  delay             seconds to wait before answering

A 304 answer is counted (it reached the server) and also counted as conditional. Every request
with If-None-Match or If-Modified-Since is counted as conditional.

Set CACHE_SERVER_VERBOSE=1 for an access log on stderr.
"""

import argparse
import email.utils
import gzip
import http.server
import json
import os
import sys
import threading
import time
import urllib.parse

import server_support

VERBOSE = os.environ.get("CACHE_SERVER_VERBOSE") == "1"


def log(message):
    print(f"cache_server: {message}", file=sys.stderr, flush=True)


def http_date(offset=0.0):
    return email.utils.formatdate(time.time() + offset, usegmt=True)


def expand(value):
    """'{date:+N}' / '{date:-N}' / '{date}' become HTTP dates; anything else stays."""
    if isinstance(value, str) and value.startswith("{date") and value.endswith("}"):
        offset = value[5:-1].lstrip(":")
        return http_date(float(offset) if offset else 0.0)
    return str(value)


def opaque(tag):
    tag = tag.strip()
    return tag[2:] if tag.startswith("W/") else tag


class State:
    """Configurations and counts, behind one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.configs = {}    # (method or "*", path) -> config
        self.counts = {}     # path -> {"count", "conditional", "methods", "last", "requests"}
        self.failures = {}   # (method or "*", path) -> remaining failures (-1: all)

    def config_for(self, method, path):
        return self.configs.get((method, path)) or self.configs.get(("*", path))

    def count(self, path, method, headers):
        with self.lock:
            entry = self.counts.setdefault(path, {"count": 0, "conditional": 0, "methods": {}, "last": {}, "requests": []})
            entry["count"] += 1
            entry["methods"][method] = entry["methods"].get(method, 0) + 1
            entry["last"] = headers
            entry["requests"].append({"method": method, "headers": headers})
            if any(name.lower() in ("if-none-match", "if-modified-since") for name in headers):
                entry["conditional"] += 1
            return entry["count"]

    def take_failure(self, method, path):
        """The failure this request gets, if any, counting it down."""
        with self.lock:
            for key in ((method, path), ("*", path)):
                config = self.configs.get(key)
                if not config or "fail" not in config:
                    continue
                remaining = self.failures.setdefault(key, int(config["fail"].get("count", -1)))
                if remaining == 0:
                    continue
                if remaining > 0:
                    self.failures[key] = remaining - 1
                return config["fail"].get("status", 503)
        return None


class CacheServer(server_support.LoopbackHTTPServer):
    request_queue_size = 128

    def __init__(self, port):
        super().__init__(Handler, port)
        self.state = State()

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            super().handle_error(request, client_address)
        elif VERBOSE:
            log(f"client {client_address[0]}:{client_address[1]}: {error!r}")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        if VERBOSE:
            log(format % args)

    def do_GET(self): self.handle_any()
    def do_HEAD(self): self.handle_any()
    def do_POST(self): self.handle_any()
    def do_PUT(self): self.handle_any()
    def do_PATCH(self): self.handle_any()
    def do_DELETE(self): self.handle_any()
    def do_OPTIONS(self): self.handle_any()

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send(self, status, headers, body=b"", date=True):
        self.send_response_only(status)
        names = {name.lower() for name, _ in headers}
        if date and "date" not in names:
            self.send_header("Date", http_date())
        for name, value in headers:
            self.send_header(name, value)
        has_body = self.command != "HEAD" and status not in (204, 304) and not 100 <= status < 200
        if "content-length" not in names and status not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if has_body:
            self.wfile.write(body)

    def send_json(self, value, status=200):
        body = json.dumps(value).encode()
        self.send(status, [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body)

    def handle_any(self):
        parsed = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(parsed.query)
        state = self.server.state
        request_body = self.read_body()
        if parsed.path.startswith("/_"):
            return self.control(parsed.path, query, request_body)

        headers = {name: value for name, value in self.headers.items()}
        count = state.count(parsed.path, self.command, headers)
        with state.lock:
            config = dict(state.config_for(self.command, parsed.path) or {})
        if config.get("delay"):
            time.sleep(float(config["delay"]))

        failure = state.take_failure(self.command, parsed.path)
        if failure == "close":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if failure is not None:
            self.close_connection = False
            return self.send(int(failure), [("Cache-Control", "no-store")], b"")

        status = int(config.get("status", 200))
        lines = [(name, expand(value)) for name, value in config.get("headers", [["Cache-Control", "max-age=3600"]])]
        etag = config.get("etag")
        last_modified = config.get("lastModified")
        if isinstance(last_modified, (int, float)):
            last_modified = http_date(last_modified)
        if etag is not None:
            lines.append(("ETag", etag))
        if last_modified is not None:
            lines.append(("Last-Modified", last_modified))

        if self.command in ("GET", "HEAD") and self.not_modified(etag, last_modified):
            if "notModifiedHeaders" in config:
                keep = [(name, expand(value)) for name, value in config["notModifiedHeaders"]]
            else:
                wanted = ("etag", "last-modified", "cache-control", "expires", "vary", "content-location")
                keep = [(name, value) for name, value in lines if name.lower() in wanted]
            return self.send(304, keep, date=config.get("date", True))

        body = config.get("body", f"{parsed.path} #{{count}}").replace("{count}", str(count)).encode()
        if config.get("gzip"):
            body = gzip.compress(body)
            lines.append(("Content-Encoding", "gzip"))
        self.send(status, lines, body, date=config.get("date", True))

    def not_modified(self, etag, last_modified):
        none_match = self.headers.get("If-None-Match")
        if none_match is not None:
            if etag is None:
                return False
            tags = [tag.strip() for tag in none_match.split(",")]
            return "*" in tags or opaque(etag) in (opaque(tag) for tag in tags)
        since = self.headers.get("If-Modified-Since")
        if since is not None and last_modified is not None:
            try:
                return email.utils.parsedate_to_datetime(since) >= email.utils.parsedate_to_datetime(last_modified)
            except (TypeError, ValueError):
                return False
        return False

    def control(self, path, query, body):
        state = self.server.state
        if path == "/_config" and self.command == "PUT":
            target = query.get("path", [None])[0]
            if not target:
                return self.send_json({"error": "path missing"}, 400)
            try:
                config = json.loads(body or b"{}")
            except ValueError as error:
                return self.send_json({"error": f"bad JSON: {error}"}, 400)
            method = query.get("method", ["*"])[0]
            with state.lock:
                state.configs[(method, target)] = config
                state.failures.pop((method, target), None)
            return self.send_json({"configured": target, "method": method})
        if path == "/_count":
            target = query.get("path", [""])[0]
            with state.lock:
                entry = state.counts.get(target, {"count": 0, "conditional": 0, "methods": {}, "last": {}, "requests": []})
                return self.send_json(json.loads(json.dumps(entry)))
        if path == "/_reset" and self.command == "POST":
            with state.lock:
                state.reset()
            return self.send_json({"reset": True})
        return self.send_json({"error": "unknown control endpoint", "path": path}, 404)


def main():
    parser = argparse.ArgumentParser(description="Loopback HTTP server that counts what reaches it, for cache tests.")
    parser.add_argument("--port", type=int, default=0, help="0 lets the kernel choose")
    args = parser.parse_args()
    server_support.serve(CacheServer(args.port))


if __name__ == "__main__":
    main()
