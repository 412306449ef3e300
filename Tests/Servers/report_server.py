#!/usr/bin/env python3
"""Loopback collector of pinning reports (Python 3 standard library only).

    python3 report_server.py [--port 0] [--tls-cert FILE --tls-key FILE]

Same launch contract as test_server.py: it listens on 127.0.0.1 only, prints exactly one line
``PORT <n>`` once it is listening, and exits on SIGTERM/SIGINT or when its stdin reaches EOF (so it
cannot outlive the test process that started it). Each connection has a thread of its own, so a
report left hanging blocks no other. With --tls-cert/--tls-key (a PEM chain and its key) it speaks
HTTPS; the handshake runs in the connection's thread too.

  POST /report, /report/...     stores the report and answers 204. The body is read whole
                                (Content-Length or chunked) before anything else happens, so a
                                report counts as soon as it has arrived, whatever the answer:
       ?status=<code>           answer that status (200-599) instead of 204, with an empty body
       ?hang=1                  never answer: the connection stays open, silent, until the server
                                stops (a client's timeout is what ends the request)
  GET  /reports                 every stored report, oldest first, as a JSON array of
                                {"method", "path", "headers", "body", "raw"}: path as requested
                                (query included), headers as {name: value} (a name sent twice has
                                its values joined by ", "), body the parsed JSON (null when the
                                body is not JSON), raw the body as text (UTF-8, bad bytes replaced)
  GET  /reports/count           {"count": n}
  DELETE /reports               forgets every report; {"count": 0}
  anything else                 404 {"error": "not found", "path": ...}
  bad parameters                400 {"error": "bad request", "detail": ...}

Set REPORT_SERVER_VERBOSE=1 for an access log on stderr.
"""

import argparse
import http.server
import json
import os
import ssl
import sys
import threading
import urllib.parse

import server_support

VERBOSE = os.environ.get("REPORT_SERVER_VERBOSE") == "1"
HANDSHAKE_TIMEOUT = 10.0  # seconds; a silent client must not tie up a thread forever
MAX_BODY = 1 << 20  # a report is small; a bigger body is refused (400), not stored
NEVER = threading.Event()  # what a hanging report waits for: only the process's exit ends it


def log(message):
    print(f"report_server: {message}", file=sys.stderr, flush=True)


class BadRequest(Exception):
    pass


class ReportServer(server_support.LoopbackHTTPServer):
    request_queue_size = 64

    def __init__(self, port, tls_context=None):
        super().__init__(Handler, port)
        self.tls_context = tls_context
        self.reports = []
        self.lock = threading.Lock()
        if tls_context:
            self.socket = tls_context.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)

    def finish_request(self, request, client_address):
        if self.tls_context:
            try:
                request.settimeout(HANDSHAKE_TIMEOUT)
                request.do_handshake()
                request.settimeout(None)
            except OSError as error:  # ssl.SSLError, timeouts, resets
                if VERBOSE:
                    log(f"TLS handshake failed: {error}")
                return
        super().finish_request(request, client_address)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "report_server"

    def log_message(self, format, *args):
        if VERBOSE:
            log(format % args)

    def answer(self, status, payload=None):
        body = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        if payload is not None:
            self.send_header("Content-Type", "application/json; charset=utf-8")
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            size = 0
            while True:
                line = self.rfile.readline(1024)
                try:
                    length = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    raise BadRequest(f"bad chunk size {line!r}")
                if length == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                size += length
                if size > MAX_BODY:
                    raise BadRequest("body too large")
                chunks.append(self.rfile.read(length))
                self.rfile.readline(1024)
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise BadRequest("bad Content-Length")
        if length < 0 or length > MAX_BODY:
            raise BadRequest(f"Content-Length {length} out of range")
        return self.rfile.read(length)

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path != "/report" and not url.path.startswith("/report/"):
            return self.answer(404, {"error": "not found", "path": url.path})
        try:
            query = urllib.parse.parse_qs(url.query)
            status = int(query.get("status", ["204"])[0])
            if not 200 <= status <= 599:
                raise BadRequest(f"status {status} out of range")
            hang = query.get("hang", ["0"])[0] == "1"
            raw = self.read_body()
        except (BadRequest, ValueError) as error:
            self.close_connection = True
            return self.answer(400, {"error": "bad request", "detail": str(error)})
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        headers = {}
        for name, value in self.headers.items():
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        report = {"method": self.command, "path": self.path, "headers": headers, "body": body,
                  "raw": raw.decode("utf-8", errors="replace")}
        with self.server.lock:
            self.server.reports.append(report)
        if hang:
            NEVER.wait()
        self.answer(status)

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        with self.server.lock:
            reports = list(self.server.reports)
        if path == "/reports":
            return self.answer(200, reports)
        if path == "/reports/count":
            return self.answer(200, {"count": len(reports)})
        self.answer(404, {"error": "not found", "path": path})

    def do_DELETE(self):
        path = urllib.parse.urlsplit(self.path).path
        if path != "/reports":
            return self.answer(404, {"error": "not found", "path": path})
        with self.server.lock:
            self.server.reports.clear()
        self.answer(200, {"count": 0})


def main():
    parser = argparse.ArgumentParser(description="Loopback collector of pinning reports.")
    parser.add_argument("--port", type=int, default=0, help="0 lets the kernel choose")
    parser.add_argument("--tls-cert", help="PEM certificate followed by its chain")
    parser.add_argument("--tls-key", help="PEM private key")
    args = parser.parse_args()
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    tls_context = None
    if args.tls_cert:
        tls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls_context.load_cert_chain(args.tls_cert, args.tls_key)
    server_support.serve(ReportServer(args.port, tls_context))


if __name__ == "__main__":
    main()
