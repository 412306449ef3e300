#!/usr/bin/env python3
"""The Notes API of Examples/OpenAPIClient/Sources/OpenAPIClient/openapi.yaml, for the example's live
run and NetworkLayerOpenAPI's tests (standard library only).

    python3 openapi_server.py [--base-path /v1] [--tls-cert FILE --tls-key FILE [--client-ca FILE]]

Same launch contract as test_server.py: it listens on 127.0.0.1 on a port the kernel picks, prints
exactly one line ``PORT <n>`` once it listens, and serves HTTP/1.1 with keep-alive until its stdin
reaches EOF. With --client-ca it requires a client certificate signed by that CA.

Every path is under --base-path (default none), as the document's server URL puts it:

  GET  /greet?name=N          200 {"message": "Hello, N!"}; with a header X-Script: <id>:<step>,<step>,...
                              each request naming <id> takes the next step (the last repeats):
                              ok, 503 (503 {"error"}), 302 (to the same URL), slow (answers after 3 s)
  POST /notes                 201 the note with an id; 400 {"error"} without a "text"
  GET  /notes/<id>            200 {"id", "text"}; 404 {"error"} for an id above 100
  POST /coffee                418 {"error": "I'm a teapot"} (a status the document does not list)
  GET  /bytes?count=N[&cutAfter=M]
                              N bytes of a repeating pattern (byte i is i % 251), with
                              Content-Length, written in 64 KB writes; with cutAfter the
                              connection closes after M bytes
  HEAD /bytes?count=N[&misbehave=true]
                              the headers of GET; misbehave sends 1,000 bytes of body as well
  POST /uploads               200 {"bytes", "chunked", "sha256"} of the body as received (chunked
                              or with Content-Length)
  GET  /events?count=N        text/event-stream: N events "tick" with data {"n": i}, 20 ms apart
  GET  /whoami                200 {"path", "authorization", "clientCertificate", "operationHeader"}
                              as received (the Authorization header, the client certificate's CN,
                              X-Operation)
  GET  /headers?count=N       200 with N headers X-H-<i>: <i>; over 30,000, N empty ones "h:"
  GET  /slow                  waits 30 s before answering (cancellation)
With --drifted, as a backend that changed under its mocks: /greet answers {"greeting"} for
{"message"}, and /notes/<id> the id as a string.
  anything else               404 {"error": "not found"}
"""

import argparse
import hashlib
import http.server
import json
import ssl
import threading
import time
import urllib.parse

import server_support

PATTERN = bytes(i % 251 for i in range(251 * 261))  # 65,511 bytes: a whole number of 251-byte cycles


def pattern_bytes(start, count):
    """`count` bytes of the pattern from offset `start`."""
    out = bytearray()
    offset = start % 251
    while len(out) < count:
        take = min(count - len(out), len(PATTERN) - offset)
        out += PATTERN[offset:offset + take]
        offset = 0
    return bytes(out)


SCRIPTS = {}                 # X-Script id -> the requests that named it so far
SCRIPTS_LOCK = threading.Lock()


def script_step(header):
    """The step of an X-Script header this request is at, or "ok" without one."""
    if not header or ":" not in header:
        return "ok"
    name, steps = header.split(":", 1)
    steps = steps.split(",")
    with SCRIPTS_LOCK:
        seen = SCRIPTS.get(name, 0)
        SCRIPTS[name] = seen + 1
    return steps[min(seen, len(steps) - 1)]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    base_path = ""
    drifted = False

    def log_message(self, *args):
        pass

    def send_json(self, status, value, extra=(), raw_lines=b""):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, val in extra:
            self.send_header(name, val)
        if raw_lines:
            self._headers_buffer.append(raw_lines)
        # Head and body in one write, as most servers send a small answer: they arrive together,
        # and NetworkLayerTransport hands such a body over whole (a test counts on it).
        self._headers_buffer.append(b"\r\n" + body)
        self.flush_headers()

    def read_body(self):
        """The request body, and whether it came chunked."""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(data), True
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length", "0") or 0)
        return self.rfile.read(length), False

    def route(self):
        parsed = urllib.parse.urlsplit(self.path)
        path = parsed.path
        if self.base_path:
            if not path.startswith(self.base_path + "/"):
                return None, {}
            path = path[len(self.base_path):]
        return path, dict(urllib.parse.parse_qsl(parsed.query))

    def do_GET(self):
        path, query = self.route()
        if path == "/greet":
            step = script_step(self.headers.get("X-Script"))
            if step == "503":
                return self.send_json(503, {"error": "try again"})
            if step == "302":
                return self.send_json(302, {"error": "moved"}, extra=[("Location", self.path)])
            if step == "slow":
                time.sleep(3)
            if self.drifted:
                return self.send_json(200, {"greeting": "Hello, %s!" % query.get("name", "stranger")})
            self.send_json(200, {"message": "Hello, %s!" % query.get("name", "stranger")})
        elif path is not None and path.startswith("/notes/"):
            try:
                note = int(path[len("/notes/"):])
            except ValueError:
                return self.send_json(400, {"error": "the note id is not a number"})
            if note > 100:
                return self.send_json(404, {"error": "no note %d" % note})
            self.send_json(200, {"id": str(note) if self.drifted else note, "text": "note %d" % note})
        elif path == "/bytes":
            self.send_bytes(query, head=False)
        elif path == "/events":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for n in range(int(query.get("count", "3"))):
                self.wfile.write(b"event: tick\ndata: {\"n\": %d}\nid: %d\n\n" % (n, n))
                self.wfile.flush()
                time.sleep(0.02)
            self.close_connection = True
        elif path == "/whoami":
            cert = self.connection.getpeercert() if isinstance(self.connection, ssl.SSLSocket) else None
            subject = None
            if cert:
                for rdn in cert.get("subject", ()):
                    for key, value in rdn:
                        if key == "commonName":
                            subject = value
            self.send_json(200, {"path": self.path, "authorization": self.headers.get("Authorization"),
                                 "clientCertificate": subject, "operationHeader": self.headers.get("X-Operation")})
        elif path == "/headers":
            count = int(query.get("count", "0"))
            if count > 30000:
                # As short as a line can be ("h:", empty), so that libcurl's 300 KB limit on a head
                # lets through more lines than HTTPTypes can hold (65,534).
                self.send_json(200, {"message": "%d headers" % count}, raw_lines=b"h:\r\n" * count)
            else:
                self.send_json(200, {"message": "%d headers" % count},
                               extra=[("X-H-%d" % i, str(i)) for i in range(count)])
        elif path == "/slow":
            time.sleep(30)
            self.send_json(200, {"message": "late"})
        else:
            self.send_json(404, {"error": "not found"})

    def do_HEAD(self):
        path, query = self.route()
        if path == "/bytes":
            self.send_bytes(query, head=True)
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    def send_bytes(self, query, head):
        count = int(query.get("count", "0"))
        cut = int(query["cutAfter"]) if "cutAfter" in query else None
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(count))
        self.end_headers()
        if head:
            if query.get("misbehave") == "true":
                self.wfile.write(pattern_bytes(0, 1000))
                self.close_connection = True
            return
        sent = 0
        limit = count if cut is None else min(cut, count)
        while sent < limit:
            chunk = pattern_bytes(sent, min(65536, limit - sent))
            try:
                self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
                return
            sent += len(chunk)
        if cut is not None:
            self.wfile.flush()
            self.close_connection = True

    def do_POST(self):
        path, _ = self.route()
        body, chunked = self.read_body()
        if path == "/notes":
            try:
                text = json.loads(body)["text"]
            except (ValueError, KeyError, TypeError):
                return self.send_json(400, {"error": "a note needs a text"})
            self.send_json(201, {"id": 7, "text": text})
        elif path == "/coffee":
            self.send_json(418, {"error": "I'm a teapot"})
        elif path == "/uploads":
            self.send_json(200, {"bytes": len(body), "chunked": chunked, "sha256": hashlib.sha256(body).hexdigest()})
        else:
            self.send_json(404, {"error": "not found"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-path", default="")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--client-ca")
    parser.add_argument("--drifted", action="store_true")
    args = parser.parse_args()
    Handler.base_path = args.base_path.rstrip("/")
    Handler.drifted = args.drifted
    server = server_support.LoopbackHTTPServer(Handler)
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        if args.client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(args.client_ca)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server_support.serve(server)


if __name__ == "__main__":
    main()
