#!/usr/bin/env python3
"""HTTPS server that asks for client certificates, for the mutual-TLS tests (standard library only).

    python3 mtls_server.py --cert FILE --key FILE --client-ca FILE [--verify required|optional]
                           [--events FILE] [--close-at-once]

Same launch contract as test_server.py: it listens on 127.0.0.1 on a port the kernel picks,
prints exactly one line ``PORT <n>`` once it listens, and serves HTTP/1.1 with keep-alive until
SIGTERM/SIGINT or until its stdin reaches EOF.

--verify required (the default) refuses a handshake without a client certificate from
--client-ca (Python's ssl.CERT_REQUIRED); optional accepts one without, and verifies one given.

After refusing a handshake the server reads what the client sends for half a second before it
closes, so the client reads the alert (closing at once answers the client's request with a
reset, which can discard the alert unread); --close-at-once closes at once, as some servers do.

--events FILE appends one line per event, so a test can see what reached the server even when
no request did: "accept <connection>" for every TCP connection accepted (before any TLS),
"handshake <connection> <subject CN or -> <resumed 0|1>", "refused <connection> <reason>" for a
handshake that failed. The file exists before PORT is printed.

Endpoints (any method):

  /whoami   {"subject": <the client certificate's CN, or null>, "connection": <n, from 1>,
            "request": <n of this request on its connection, from 1>, "resumed": <TLS session
            resumed>}; ?max-age=<n> adds Cache-Control: max-age=<n>
  /redirect?to=<url>
            302 to <url> (another origin, or a path of this one)
  anything else  404 {"error": "not found"}
"""

import argparse
import http.server
import json
import os
import socket
import ssl
import threading
import urllib.parse

import server_support

HANDSHAKE_TIMEOUT = 10.0


class Events:
    """Appends lines to a file shared by all connections."""

    def __init__(self, path):
        self._file = open(path, "a", buffering=1) if path else None  # created before PORT is printed
        self._lock = threading.Lock()

    def add(self, line):
        if self._file:
            with self._lock:
                self._file.write(line + "\n")
                self._file.flush()


class Server(server_support.LoopbackHTTPServer):
    request_queue_size = 64

    def __init__(self, context, events, close_at_once=False):
        super().__init__(Handler)
        self.events = events
        self.close_at_once = close_at_once
        self.socket = context.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)
        self._connections = 0
        self._lock = threading.Lock()

    def finish_request(self, request, client_address):
        with self._lock:
            self._connections += 1
            number = self._connections
        self.events.add(f"accept {number}")
        try:
            request.settimeout(HANDSHAKE_TIMEOUT)
            request.do_handshake()
            request.settimeout(None)
        except OSError as error:  # ssl.SSLError, timeouts, resets
            self.events.add(f"refused {number} {getattr(error, 'reason', None) or error}")
            # The alert went out; closing at once would answer the client's request with a reset,
            # which can discard the alert before the client reads it. Linger, reading, first.
            if self.close_at_once:
                return
            # (Read from the socket under the TLS layer: what arrives is the client's encrypted request.)
            raw = socket.socket(fileno=os.dup(request.fileno()))
            try:
                raw.settimeout(0.5)
                while raw.recv(65536):
                    pass
            except OSError:
                pass
            finally:
                raw.close()
            return
        certificate = request.getpeercert() or {}
        subject = dict(pair[0] for pair in certificate.get("subject", ())).get("commonName", "-")
        self.events.add(f"handshake {number} {subject} {1 if request.session_reused else 0}")
        request.connection_number = number
        request.client_subject = None if subject == "-" else subject
        super().finish_request(request, client_address)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def __getattr__(self, name):
        if name.startswith("do_"):
            return self.dispatch
        raise AttributeError(name)

    def dispatch(self):
        length = int(self.headers.get("Content-Length", "0") or 0)
        if length:
            self.rfile.read(length)
        self.requests_here = getattr(self, "requests_here", 0) + 1
        path, _, query = self.path.partition("?")
        if path == "/redirect":
            target = urllib.parse.parse_qs(query).get("to", ["/whoami"])[0]
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/whoami":
            body = {"subject": self.connection.client_subject, "connection": self.connection.connection_number,
                    "request": self.requests_here, "resumed": bool(self.connection.session_reused)}
            status = 200
        else:
            body, status = {"error": "not found"}, 404
        data = json.dumps(body).encode()
        self.send_response(status)
        max_age = urllib.parse.parse_qs(query).get("max-age", [None])[0]
        if path == "/whoami" and max_age is not None and max_age.isdigit():
            self.send_header("Cache-Control", f"max-age={max_age}")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    parser = argparse.ArgumentParser(description="HTTPS server asking for client certificates.")
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--client-ca", required=True)
    parser.add_argument("--verify", choices=["required", "optional"], default="required")
    parser.add_argument("--events")
    parser.add_argument("--close-at-once", action="store_true")
    args = parser.parse_args()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    context.load_verify_locations(args.client_ca)
    context.verify_mode = ssl.CERT_REQUIRED if args.verify == "required" else ssl.CERT_OPTIONAL
    server_support.serve(Server(context, Events(args.events), args.close_at_once))


if __name__ == "__main__":
    main()
