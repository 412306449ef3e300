#!/usr/bin/env python3
"""Loopback HTTP/1.1 server for resumable downloads (issue 25's second phase; Python 3 standard
library only): a file that can be cut short, Range and If-Range with ETag and Last-Modified, a
resource that changes, and 416.

    python3 download_server.py [--port 0]

Same launch contract as test_server.py: it listens on 127.0.0.1 only, prints exactly one line
``PORT <n>`` once it listens, and serves HTTP/1.1 with keep-alive until SIGTERM/SIGINT or until
its stdin reaches EOF (give it a pipe as stdin and keep the write end open).

Each file is named by the test (`<name>`: letters, digits, `-` and `_`) and has a version, from
1. Its content is `size` bytes that depend on the name and the version (byte i of version v is
(i * 31 + v * 7 + the name's CRC-32) % 256), its ETag `"<name>-v<version>"` and its Last-Modified
a fixed date a day later per version; a changed file is another content under another validator.

Endpoints:

  GET|HEAD /file/<name>?size=<n>[&cut=<percent>][&cutRanges=1][&validators=etag|date|both|none]
           [&ranges=ignore][&refuse416=1][&chunk=<bytes>&interval=<seconds>]
        200 with the whole file, Content-Length, Accept-Ranges: bytes and the validators asked
        for (default both). cut=60 sends the headers of the whole file but closes the connection
        after 60 % of its body: for a response from byte 0 only, unless cutRanges=1 (then every
        response stops at 60 % of the file). chunk and interval pace the body.
        A Range of bytes=<first>-[<last>] (one range) is honoured with 206 and Content-Range:
          - with an If-Range, only when it matches the current version (an ETag, compared
            strongly, or the Last-Modified date exactly); otherwise 200 with the whole file, as
            for a resource that changed;
          - a first byte at or beyond the size is 416 with Content-Range: bytes */<size>;
          - refuse416=1 answers 416 to any Range; ranges=ignore answers 200 to any Range (a
            server without range support).
  POST /change/<name>     the next version of the file (its content and validators change);
                          {"version": <n>}
  GET  /sha256/<name>?size=<n>
                          {"sha256": <hex of the current version's content>, "version": <n>,
                          "etag": ..., "lastModified": ...}
  GET  /requests/<name>   {"requests": [{"method", "range", "ifRange", "status", "sent"}, ...]}:
                          what each request for the file asked and got (sent: body bytes written)
  anything else           404 {"error": "not found"}; bad parameters 400 {"error": "bad request", "detail": ...}

Set DOWNLOAD_SERVER_VERBOSE=1 for an access log on stderr.
"""

import argparse
import email.utils
import hashlib
import http.server
import json
import os
import re
import threading
import time
import urllib.parse
import zlib

import server_support

VERBOSE = os.environ.get("DOWNLOAD_SERVER_VERBOSE") == "1"
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_SIZE = 1 << 31  # 2 GiB: a bound on what a query makes the server generate
BASE_DATE = 1_700_000_000  # Tue, 14 Nov 2023 22:13:20 GMT


class Files:
    """The versions of the named files and what each request for them asked, behind one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.versions = {}
        self.requests = {}

    def version(self, name):
        with self.lock:
            return self.versions.get(name, 1)

    def change(self, name):
        with self.lock:
            self.versions[name] = self.versions.get(name, 1) + 1
            return self.versions[name]

    def record(self, name, entry):
        with self.lock:
            self.requests.setdefault(name, []).append(entry)

    def recorded(self, name):
        with self.lock:
            return list(self.requests.get(name, []))


def content(name, version, start, end):
    """Bytes start..<end of the file's content at `version`, computed, never stored whole."""
    seed = (version * 7 + zlib.crc32(name.encode())) % 256
    pattern = bytes((i * 31 + seed) % 256 for i in range(256))
    # byte i is pattern[i % 256]: a rotation of the pattern, repeated.
    offset = start % 256
    rotated = pattern[offset:] + pattern[:offset]
    length = end - start
    return (rotated * (length // 256 + 1))[:length]


def content_pieces(name, version, start, end, piece=1 << 20):
    while start < end:
        stop = min(end, start + piece)
        yield content(name, version, start, stop)
        start = stop


def etag(name, version):
    return f'"{name}-v{version}"'


def last_modified(version):
    return email.utils.formatdate(BASE_DATE + (version - 1) * 86400, usegmt=True)


class Server(server_support.LoopbackHTTPServer):
    request_queue_size = 64

    def __init__(self, port):
        super().__init__(Handler, port)
        self.files = Files()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "DownloadServer/1.0"

    def version_string(self):
        return self.server_version

    def log_message(self, format, *args):
        if VERBOSE:
            super().log_message(format, *args)

    def __getattr__(self, name):
        if name.startswith("do_"):
            return self.dispatch
        raise AttributeError(name)

    def dispatch(self):
        length = int(self.headers.get("Content-Length", "0") or 0)
        if length:
            self.rfile.read(length)
        path, _, query = self.path.partition("?")
        self.args = {key: values[-1] for key, values in urllib.parse.parse_qs(query, keep_blank_values=True).items()}
        parts = path.strip("/").split("/")
        try:
            if len(parts) == 2 and NAME.fullmatch(parts[1]):
                kind, name = parts
                if kind == "file" and self.command in ("GET", "HEAD"):
                    return self.serve_file(name)
                if kind == "change" and self.command == "POST":
                    return self.send_json(200, {"version": self.server.files.change(name)})
                if kind == "sha256":
                    return self.send_digest(name)
                if kind == "requests":
                    return self.send_json(200, {"requests": self.server.files.recorded(name)})
            self.send_json(404, {"error": "not found"})
        except ValueError as error:  # bad parameters, raised before any output
            self.send_json(400, {"error": "bad request", "detail": str(error)})

    def size(self):
        size = int(self.args.get("size", "0"))
        if not 0 <= size <= MAX_SIZE:
            raise ValueError(f"size must be 0...{MAX_SIZE}")
        return size

    def send_digest(self, name):
        size, version = self.size(), self.server.files.version(name)
        digest = hashlib.sha256()
        for piece in content_pieces(name, version, 0, size):
            digest.update(piece)
        self.send_json(200, {"sha256": digest.hexdigest(), "version": version, "etag": etag(name, version),
                             "lastModified": last_modified(version)})

    def serve_file(self, name):
        size, version = self.size(), self.server.files.version(name)
        validators = self.args.get("validators", "both")
        if validators not in ("etag", "date", "both", "none"):
            raise ValueError("validators must be etag, date, both or none")
        cut = float(self.args["cut"]) if "cut" in self.args else None
        if cut is not None and not 0 <= cut <= 100:
            raise ValueError("cut must be a percentage, 0...100")
        chunk = max(1, int(self.args.get("chunk", str(1 << 20))))
        interval = float(self.args.get("interval", "0"))
        current_etag, current_date = etag(name, version), last_modified(version)
        headers = [("Accept-Ranges", "bytes")]
        if validators in ("etag", "both"):
            headers.append(("ETag", current_etag))
        if validators in ("date", "both"):
            headers.append(("Last-Modified", current_date))

        requested, if_range = self.headers.get("Range"), self.headers.get("If-Range")
        entry = {"method": self.command, "range": requested, "ifRange": if_range}
        start, end, status = 0, size, 200
        if requested and self.args.get("ranges") != "ignore":
            match = re.fullmatch(r"bytes=(\d+)-(\d*)", requested.strip())
            if self.args.get("refuse416") == "1" or (match and int(match.group(1)) >= size):
                entry.update(status=416, sent=0)
                self.server.files.record(name, entry)
                return self.send(416, b"", headers + [("Content-Range", f"bytes */{size}")])
            # If-Range: the range only for the current version (RFC 9110 13.1.5: an entity tag
            # compares strongly, a date exactly); otherwise the whole, changed resource.
            fresh = if_range is None or if_range == current_etag and validators in ("etag", "both") \
                or if_range == current_date and validators in ("date", "both")
            if match and fresh:
                start = int(match.group(1))
                end = min(size, int(match.group(2)) + 1) if match.group(2) else size
                status = 206
                headers.append(("Content-Range", f"bytes {start}-{end - 1}/{size}"))
        # Where the body stops: the whole of it, or `cut` % of the file for a cut response.
        stop = end
        if cut is not None and (start == 0 or self.args.get("cutRanges") == "1"):
            stop = min(end, max(start, int(size * cut / 100)))
        self.send_response(status)
        for header, value in headers:
            self.send_header(header, value)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(end - start))
        if stop < end:
            self.send_header("Connection", "close")
        self.end_headers()
        sent = 0
        if self.command != "HEAD":
            try:
                for piece in content_pieces(name, version, start, stop, chunk):
                    self.wfile.write(piece)
                    self.wfile.flush()
                    sent += len(piece)
                    if interval:
                        time.sleep(interval)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
        entry.update(status=status, sent=sent)
        self.server.files.record(name, entry)
        if stop < end:
            self.close_connection = True  # the body is cut: the client sees the connection close early

    def send(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status, value):
        self.send(status, json.dumps(value).encode(), [("Content-Type", "application/json")])


def main():
    parser = argparse.ArgumentParser(description="Loopback server for resumable downloads.")
    parser.add_argument("--port", type=int, default=0, help="0 lets the kernel choose")
    args = parser.parse_args()
    server_support.serve(Server(args.port))


if __name__ == "__main__":
    main()
