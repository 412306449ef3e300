#!/usr/bin/env python3
"""Loopback HTTP(S) server for the Swift test suite (Python 3 standard library only).

    python3 test_server.py [--port 0] [--host 127.0.0.1|::1] [--tls-cert FILE --tls-key FILE
                           [--tls-chain FILE]] [--record FILE] [--tls-max-version TLSv1_1]
                           [--tls-min-version TLSv1_3] [--tls-ciphers OPENSSL-LIST]

It listens on 127.0.0.1 only (or ::1 with --host ::1), prints exactly one line ``PORT <n>`` to stdout once it
is listening, and serves HTTP/1.1 with keep-alive until SIGTERM/SIGINT or until its
stdin reaches EOF. The stdin rule keeps it from outliving the test process that
started it: give it a pipe as stdin and keep the write end open. Started with stdin
at /dev/null it exits at once, so to run it by hand use e.g.
``sleep infinity | python3 test_server.py``.

Endpoints (any method unless noted; JSON is ``application/json; charset=utf-8``;
HEAD gets the same headers as GET, without the body):

  /echo, /echo/...          the request as JSON: method, path, query, args, headers,
                            headerList, body, bodyBase64, bodyLength
  /status/<code>            that status (200-599), body {"status": code}, none for
                            204/304; ?body=<text>&contentType=<type> replace body/type,
                            &encoding=<codec> encodes the body text (default utf-8)
  /delay/<seconds>          sleep, then {"delayed": seconds}
  /json                     a fixed small JSON object
  /bytes/<n>                n bytes of application/octet-stream, byte i = i % 256
  /redirect/<n>             302 to /redirect/<n-1>; /redirect/0 goes to /echo
  /redirect-to?url=&status=[&echo=<name>|&echoHeader=<name>]
                            redirect (3xx, default 302) to url; echo/echoHeader append
                            leak=<the value of that query item or request header> to it
                            (a hostile server quoting a credential into its Location)
  /headers                  {"headers": ...}; sets X-Test-Header, two Set-Cookie, X-Empty
  /response-headers?h=<name>:<value>&h=...
                            each h item sent as a response header line, in order, a name
                            given twice twice (Set-Cookie, Link, Vary); the body is
                            {"headers": [[name, value], ...]}; CR, LF or NUL refused (400).
                            One query item name for all, so that no header's name makes
                            the request's query look secret to a client
  /reflect-headers?status=  each request header echoed as a response header X-Reflected-<name>;
                            {"reflected": n} with the status given (default 200)
  /close                    reads the request, closes without a response (FIN)
  /reset                    reads the request, resets the connection (RST)
  /partial                  Content-Length: 1000 but only 10 body bytes, then close
  /garbage                  writes "THIS IS NOT HTTP" and closes
  /malformed-json           200 with truncated JSON
  /count, /count/reset      requests to other paths since start / since the last reset
  /retry-after/<seconds>    503 with Retry-After: <seconds>
  /flaky/<key>?fail=&status=&retryAfter=
                            the first `fail` requests for key get `status` (0: the
                            connection closes), then 200 {"attempt": n}
  /flaky-count/<key>        how many requests /flaky/<key> received
  /auth/bearer?valid=<t>    200 for "Authorization: Bearer <t>", else 401
  /slow-bytes/<n>?chunk=&interval=
                            n bytes written a chunk at a time, pausing between writes
  /gzip-bomb/<n>            n zero bytes gzip-compressed (Content-Encoding: gzip)
  /compressed/<encoding>    Tests/Fixtures/Compressed/body.json as gzip, deflate, br or zstd
  /multipart                a multipart/form-data body parsed: fields, files (name, type,
                            size, sha256, first 4 KB), part order, boundary
  /upload-stats             the body read in 1 MB pieces, never whole: size, sha256, and
                            for multipart bodies each part's headers, size and sha256
  /hmac?...&X-Signature=    verifies X-Signature, the HMAC-SHA256 (hex, key "pipeline-hmac-key")
                            of method, path, the sorted raw query items without X-Signature
                            ("name=value" joined by "&") and the body, one per line: 200
                            {"verified": true, "method", "signed"} or 401; ?fail=N&key=K: the
                            first N requests for K get 503 (after the signature is checked)
  /pages/<n>?last=&per=     page n of a list: {"page": n, "items": [...]}, with
                            Link: <absolute URL of page n+1>; rel="next" (and rel="last")
                            until page `last` (default 3); per items per page (default 2)
  /base64?text=             the text base64-encoded, as text/plain
  /echo-credential?header=&status=&redirect=
                            the secret of the credential the request carried, echoed the ways
                            a careless server might: `header` names the header it came in
                            (default Authorization: Basic is decoded to its password, Bearer to
                            its token); the body {"user", "p", "base64": [...], "embedded":
                            [...]} holds it as it is, in base64 (standard and URL-safe, padded
                            and not; Basic's user:password too) and inside longer base64 texts
                            at each of the three alignments; the headers X-Echo and
                            X-Echo-Base64 hold it as it is and in base64. Status `status`
                            (default 200), or with `redirect` a 302 to that URL with p=<secret>
  /resumable/<key>?size=&cut=&validator=etag|date|none&change=1&refuse=1
                            a download of `size` bytes (byte i = (i * 7 + version) % 251), with
                            ETag "v<version>" and/or Last-Modified: the first request for key
                            gets its headers and the first `cut` (0-1) of the body, then the
                            connection closes; a later one with Range: bytes=N- and a matching
                            If-Range gets 206 from N; change=1 makes version 2 after the cut (so
                            If-Range fails: 200, the whole new body); refuse=1 answers 416;
                            stall=S waits S seconds after the cut before closing
  /resumable-log/<key>      [{"range", "ifRange", "status"}, ...] for each request of key
  anything else             404 {"error": "not found", "path": ...}
  bad parameters            400 {"error": "bad request", "detail": ...}

--record FILE appends every byte read from clients (after the TLS handshake, i.e.
decrypted) to FILE. The file exists before PORT is printed.

--tls-max-version lets the server offer only old TLS (e.g. TLSv1_1). It also lowers
the minimum version and the OpenSSL security level, but an OpenSSL build without
old-protocol support can still refuse; either way a TLS 1.2+ client fails the
handshake.

--tls-min-version TLSv1_3 makes a server that speaks TLS 1.3 only (with
--tls-max-version TLSv1_2, one that speaks 1.2 only); --tls-ciphers limits its TLS 1.2
ciphers to an OpenSSL list.

Set TEST_SERVER_VERBOSE=1 for an access log (and client errors) on stderr.
"""

import argparse
import base64
import email.message
import email.parser
import email.policy
import gzip
import zlib
import hashlib
import http.server
import io
import json
import math
import os
import re
import socket
import ssl
import struct
import sys
import tempfile
import threading
import time
import urllib.parse
import warnings

import server_support

JSON_TYPE = "application/json; charset=utf-8"
VERBOSE = os.environ.get("TEST_SERVER_VERBOSE") == "1"
HANDSHAKE_TIMEOUT = 10.0  # seconds; a silent client must not tie up a thread forever


def log(message):
    print(f"test_server: {message}", file=sys.stderr, flush=True)


# --- Recording -----------------------------------------------------------------------

class Recorder:
    """Appends bytes to a file shared by all connections, unbuffered."""

    def __init__(self, path):
        self._file = open(path, "ab", buffering=0)  # creates the file right away
        self._lock = threading.Lock()

    def write(self, data):
        with self._lock:
            self._file.write(data)


class RecordingReader(io.RawIOBase):
    """Raw stream over a (TLS) socket that copies every byte it reads to a Recorder."""

    def __init__(self, sock, recorder):
        self._sock = sock
        self._recorder = recorder

    def readable(self):
        return True

    def readinto(self, buffer):
        count = self._sock.recv_into(buffer)
        if count:
            self._recorder.write(memoryview(buffer)[:count])
        return count


# --- Server --------------------------------------------------------------------------

class TestServer(server_support.LoopbackHTTPServer):
    request_queue_size = 128  # dozens of simultaneous connects must not overflow the backlog

    def __init__(self, port, tls_context=None, recorder=None, host="127.0.0.1"):
        super().__init__(Handler, port, host)
        self.tls_context = tls_context
        self.recorder = recorder
        self._count = 0
        self._count_lock = threading.Lock()
        if tls_context:
            # accept() on a wrapped listening socket returns SSLSockets; without
            # handshake-on-connect the handshake waits for finish_request, which runs
            # in the connection's own thread.
            self.socket = tls_context.wrap_socket(
                self.socket, server_side=True, do_handshake_on_connect=False)

    def finish_request(self, request, client_address):
        if self.tls_context:
            try:
                request.settimeout(HANDSHAKE_TIMEOUT)
                request.do_handshake()
                request.settimeout(None)
            except OSError as error:  # ssl.SSLError, timeouts, resets
                log(f"TLS handshake with {client_address[0]}:{client_address[1]} failed: {error}")
                return
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):
        # Clients hanging up early (timeouts, cancellation) are routine in the tests.
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            super().handle_error(request, client_address)  # a bug here: full traceback
        elif VERBOSE:
            log(f"client {client_address[0]}:{client_address[1]}: {error!r}")

    def count_request(self):
        with self._count_lock:
            self._count += 1

    def request_count(self, reset=False):
        with self._count_lock:
            if reset:
                self._count = 0
            return self._count


# --- Request handling ----------------------------------------------------------------

ROUTES = []  # (compiled path pattern, function(handler, *groups))


def route(pattern):
    def register(function):
        ROUTES.append((re.compile(pattern), function))
        return function
    return register


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so every response needs Content-Length
    server_version = "TestServer/1.0"
    disable_nagle_algorithm = True  # headers and body go out as two writes

    def version_string(self):
        return self.server_version  # the default appends " Python/3.x"

    def log_message(self, format, *args):
        if VERBOSE:
            super().log_message(format, *args)

    def setup(self):
        super().setup()
        if self.server.recorder:
            self.rfile.close()
            self.rfile = io.BufferedReader(RecordingReader(self.connection, self.server.recorder))

    def __getattr__(self, name):
        # The base class calls do_<METHOD>(); send every method (GET, PATCH, PROPFIND,
        # ...) to one dispatcher instead of answering 501 for unlisted ones.
        if name.startswith("do_"):
            return self.dispatch
        raise AttributeError(name)

    def dispatch(self):
        self.raw_path, _, self.raw_query = self.path.partition("?")
        self.args = urllib.parse.parse_qs(self.raw_query, keep_blank_values=True)
        if self.raw_path in STREAMING_PATHS:  # these read the body themselves, in pieces
            self.body = b""
            self.server.count_request()
            STREAMING_PATHS[self.raw_path](self)
            return
        try:
            self.body = self.read_body()
        except ValueError as error:
            self.close_connection = True  # framing is lost; don't read another request
            self.send_json(400, {"error": "bad request", "detail": str(error)})
            return
        if self.raw_path not in ("/count", "/count/reset"):
            self.server.count_request()
        for pattern, function in ROUTES:
            match = pattern.fullmatch(self.raw_path)
            if match:
                try:
                    function(self, *match.groups())
                except ValueError as error:  # bad parameters, raised before any output
                    self.send_json(400, {"error": "bad request", "detail": str(error)})
                return
        self.send_json(404, {"error": "not found", "path": self.raw_path})

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self.read_chunked_body()
        length = self.headers.get("Content-Length", "0").strip()
        if not length.isdigit():
            raise ValueError(f"bad Content-Length {length!r}")
        body = self.rfile.read(int(length))
        if len(body) != int(length):
            raise ValueError("connection closed inside the body")
        return body

    def read_body_pieces(self, piece=1 << 20):
        """The body in pieces of at most `piece` bytes, for bodies too big to hold."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            yield self.read_chunked_body()
            return
        remaining = int(self.headers.get("Content-Length", "0").strip() or 0)
        while remaining > 0:
            data = self.rfile.read(min(piece, remaining))
            if not data:
                raise ValueError("connection closed inside the body")
            remaining -= len(data)
            yield data

    def read_chunked_body(self):
        body = bytearray()
        while True:
            size_line = self.rfile.readline(1024)
            try:
                size = int(size_line.split(b";")[0], 16)  # drop chunk extensions
            except ValueError:
                size = -1
            if size < 0:
                raise ValueError(f"bad chunk size line {size_line!r}")
            if size == 0:
                break
            chunk = self.rfile.read(size)
            if len(chunk) != size or self.rfile.readline(3) != b"\r\n":
                raise ValueError("truncated chunk")
            body += chunk
        while self.rfile.readline(8192).strip():  # trailer fields, up to the blank line
            pass
        return bytes(body)

    def received_headers(self):
        """Headers as {name: value} (repeats joined with ", ") and as [[name, value]]."""
        pairs = [[name, value] for name, value in self.headers.items()]
        merged, spelling = {}, {}
        for name, value in pairs:
            key = spelling.setdefault(name.lower(), name)  # first spelling seen wins
            merged[key] = f"{merged[key]}, {value}" if key in merged else value
        return merged, pairs

    def send(self, status, body=b"", content_type=JSON_TYPE, headers=()):
        """A complete response; HEAD gets the headers only."""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        has_body = status not in (204, 304)  # these must not carry a body or length
        if has_body:
            if content_type:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        if self.close_connection:  # the client asked for close (or is HTTP/1.0)
            self.send_header("Connection", "close")
        self.end_headers()
        if has_body and body and self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status, value, headers=()):
        self.send(status, json.dumps(value).encode(), headers=headers)

    def send_redirect(self, status, location):
        self.send(status, content_type=None, headers=[("Location", location)])


@route(r"/multipart")
def multipart(request):
    """Parses a multipart/form-data body: text fields, and files with name, type, size, digest."""
    content_type = request.headers.get("Content-Type", "")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + request.body)
    if not message.is_multipart():
        raise ValueError(f"not a multipart body: {content_type!r}")
    fields, files, order = {}, {}, []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        filename = part.get_param("filename", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        order.append(name)
        if filename is None:
            fields[name] = payload.decode("utf-8", errors="replace")
        else:
            files[name] = {"filename": filename, "contentType": part.get_content_type(),
                           "size": len(payload), "sha256": hashlib.sha256(payload).hexdigest(),
                           "base64": base64.b64encode(payload[:4096]).decode("ascii")}
    boundary = message.get_boundary()
    request.send_json(200, {"fields": fields, "files": files, "order": order, "boundary": boundary,
                            "contentType": content_type})


def upload_stats(request):
    """Reads the body in 1 MB pieces, never whole: its size and SHA-256, and for a multipart
    body the size and SHA-256 of each part's content."""
    digest, size = hashlib.sha256(), 0
    content_type = request.headers.get("Content-Type", "")
    boundary = None
    if content_type.startswith("multipart/"):
        boundary = email.message.Message()
        boundary["Content-Type"] = content_type
        boundary = boundary.get_boundary()
    parts = MultipartDigest(boundary.encode("latin-1")) if boundary else None
    for piece in request.read_body_pieces():
        digest.update(piece)
        size += len(piece)
        if parts:
            parts.feed(piece)
    request.send_json(200, {"size": size, "sha256": digest.hexdigest(),
                            "parts": parts.finish() if parts else None})


class MultipartDigest:
    """Splits a streamed multipart body at its delimiters, hashing each part's content."""

    def __init__(self, boundary):
        self.delimiter = b"\r\n--" + boundary
        self.buffer = b"\r\n"  # the first delimiter has no CRLF before it
        self.parts, self.current, self.in_headers, self.headers = [], None, False, b""

    def feed(self, data):
        self.buffer += data
        while True:
            if self.in_headers:
                end = self.buffer.find(b"\r\n\r\n")
                if end < 0:
                    return
                self.headers, self.buffer = self.buffer[:end], self.buffer[end + 4:]
                self.in_headers = False
                self.current = {"headers": self.headers.decode("latin-1"), "size": 0, "digest": hashlib.sha256()}
            index = self.buffer.find(self.delimiter)
            if index < 0:
                keep = len(self.delimiter)  # a delimiter may straddle two pieces
                self.consume(self.buffer[:-keep] if len(self.buffer) > keep else b"")
                self.buffer = self.buffer[-keep:] if len(self.buffer) > keep else self.buffer
                return
            self.consume(self.buffer[:index])
            if self.current is not None:
                self.parts.append(self.current)
                self.current = None
            rest = self.buffer[index + len(self.delimiter):]
            if len(rest) < 2:
                self.buffer = self.buffer[index:]
                return
            if rest.startswith(b"--"):  # the closing delimiter
                self.buffer = b""
                return
            self.buffer, self.in_headers = rest[2:], True  # skip the CRLF after the delimiter

    def consume(self, data):
        if self.current is not None and data:
            self.current["size"] += len(data)
            self.current["digest"].update(data)

    def finish(self):
        return [{"headers": part["headers"], "size": part["size"], "sha256": part["digest"].hexdigest()}
                for part in self.parts]


STREAMING_PATHS = {"/upload-stats": upload_stats}

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")
FLAKY_COUNTS, FLAKY_LOCK = {}, threading.Lock()


@route(r"/flaky/([A-Za-z0-9_-]+)")
def flaky(request, key):
    """Fails the first `fail` requests for `key` with `status` (and a Retry-After header when
    `retryAfter` is given), then answers 200 with the attempt number."""
    with FLAKY_LOCK:
        attempt = FLAKY_COUNTS[key] = FLAKY_COUNTS.get(key, 0) + 1
    failures = int(request.args.get("fail", ["0"])[0])
    if attempt <= failures:
        status = int(request.args.get("status", ["503"])[0])
        if status == 0:  # a transport failure: close without answering
            request.close_connection = True
            request.connection.shutdown(socket.SHUT_RDWR)
            return
        headers = [("Retry-After", request.args["retryAfter"][0])] if "retryAfter" in request.args else []
        request.send_json(status, {"attempt": attempt}, headers=headers)
    else:
        request.send_json(200, {"attempt": attempt})


HMAC_KEY = b"pipeline-hmac-key"


@route(r"/hmac")
def hmac_check(request):
    """A server that recomputes a query-string signature and refuses a wrong one."""
    import hmac as hmac_module
    items = [item for item in request.raw_query.split("&") if item and not item.startswith("X-Signature=")]
    given = request.args.get("X-Signature", [""])[0]
    text = "\n".join([request.command, request.raw_path, "&".join(sorted(items)),
                      request.body.decode("utf-8", errors="replace")])
    expected = hmac_module.new(HMAC_KEY, text.encode(), hashlib.sha256).hexdigest()
    if not hmac_module.compare_digest(given, expected):
        request.send_json(401, {"verified": False})
        return
    key = request.args.get("key", [None])[0]
    if key is not None:
        with FLAKY_LOCK:
            attempt = FLAKY_COUNTS[key] = FLAKY_COUNTS.get(key, 0) + 1
        if attempt <= int(request.args.get("fail", ["0"])[0]):
            request.send_json(503, {"attempt": attempt})
            return
    request.send_json(200, {"verified": True, "method": request.command, "signed": "&".join(sorted(items))})


@route(r"/pages/(\d+)")
def pages(request, page):
    """A paginated list whose next page is an absolute URL in a Link header (GitHub style)."""
    page = int(page)
    last = int(request.args.get("last", ["3"])[0])
    per = int(request.args.get("per", ["2"])[0])
    host = request.headers.get("Host", f"127.0.0.1:{request.server.server_address[1]}")
    scheme = "https" if isinstance(request.connection, ssl.SSLSocket) else "http"
    def url(n):
        return f"{scheme}://{host}/pages/{n}?last={last}&per={per}"
    links = []
    if page < last:
        links.append(f'<{url(page + 1)}>; rel="next"')
    links.append(f'<{url(last)}>; rel="last"')
    items = [(page - 1) * per + i + 1 for i in range(per)]
    request.send_json(200, {"page": page, "items": items}, headers=[("Link", ", ".join(links))])


@route(r"/base64")
def base64_text(request):
    text = request.args.get("text", [""])[0]
    request.send(200, base64.b64encode(text.encode()), "text/plain")


@route(r"/echo-credential")
def echo_credential(request):
    name = request.args.get("header", ["Authorization"])[0]
    value = request.headers.get(name, "")
    user, secret, credential = "", value, ""
    scheme, _, rest = value.partition(" ")
    if scheme.lower() == "basic":
        credential = base64.b64decode(rest).decode("utf-8")
        user, _, secret = credential.partition(":")
    elif scheme.lower() == "bearer":
        secret = rest
    raw = secret.encode("utf-8")
    spellings = []
    for data in [raw] + ([credential.encode("utf-8")] if credential else []):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(data).decode("ascii")
            spellings += [text, text.rstrip("=")]
    embedded = []
    for offset in range(3):
        # The secret starts `offset` bytes into a group of three of the encoded document.
        document = b'{"t":"' + b"." * offset + raw + b'","n":1}'
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            embedded.append(encode(document).decode("ascii"))
    headers = [("X-Echo", secret.encode("utf-8").decode("latin-1")), ("X-Echo-Base64", spellings[0])]
    if "redirect" in request.args:
        target = request.args["redirect"][0]
        separator = "&" if "?" in target else "?"
        request.send_redirect(302, target + separator + "p=" + urllib.parse.quote(secret, safe=""))
        return
    code = int(request.args.get("status", ["200"])[0])
    if not 200 <= code <= 599:
        raise ValueError("status must be 200-599")
    request.send_json(code, {"user": user, "p": secret, "base64": spellings, "embedded": embedded}, headers=headers)


RESUMABLE_LOGS = {}


@route(r"/resumable/([A-Za-z0-9_-]+)")
def resumable(request, key):
    """A download cut the first time, then continued by Range/If-Range (or refused, or changed)."""
    size = int(request.args.get("size", ["100000"])[0])
    cut = float(request.args.get("cut", ["0.6"])[0])
    validator = request.args.get("validator", ["etag"])[0]
    with FLAKY_LOCK:
        log = RESUMABLE_LOGS.setdefault(key, [])
        first = not log
    version = 2 if not first and request.args.get("change", ["0"])[0] == "1" else 1
    body = bytes((i * 7 + version) % 251 for i in range(size))
    headers = []
    etag = f'"v{version}"'
    modified = "Wed, 21 Oct 2015 07:28:00 GMT" if version == 1 else "Thu, 22 Oct 2015 07:28:00 GMT"
    if validator == "etag":
        headers.append(("ETag", etag))
    if validator == "date":
        headers.append(("Last-Modified", modified))
    range_header = request.headers.get("Range")
    if_range = request.headers.get("If-Range")
    current = etag if validator == "etag" else modified
    entry = {"range": range_header, "ifRange": if_range}
    if first:
        entry["status"] = 200
        log.append(entry)
        request.send_response(200)
        for name, value in headers:
            request.send_header(name, value)
        request.send_header("Content-Type", "application/octet-stream")
        request.send_header("Content-Length", str(size))
        request.send_header("Connection", "close")
        request.end_headers()
        request.wfile.write(body[:int(size * cut)])
        request.wfile.flush()
        stall = float(request.args.get("stall", ["0"])[0])
        if stall > 0:  # a download a client cancels while it waits
            time.sleep(min(stall, 60))
        request.close_connection = True
        request.connection.shutdown(socket.SHUT_RDWR)
        return
    if request.args.get("refuse", ["0"])[0] == "1":
        entry["status"] = 416
        log.append(entry)
        request.send(416, b"", "application/octet-stream", headers=[("Content-Range", f"bytes */{size}")])
        return
    if range_header and range_header.startswith("bytes=") and range_header.endswith("-") and if_range == current:
        start = int(range_header[6:-1])
        entry["status"] = 206
        log.append(entry)
        request.send(206, body[start:], "application/octet-stream",
                     headers=headers + [("Content-Range", f"bytes {start}-{size - 1}/{size}")])
        return
    entry["status"] = 200
    log.append(entry)
    request.send(200, body, "application/octet-stream", headers=headers)


@route(r"/resumable-log/([A-Za-z0-9_-]+)")
def resumable_log(request, key):
    with FLAKY_LOCK:
        request.send_json(200, RESUMABLE_LOGS.get(key, []))


@route(r"/flaky-count/([A-Za-z0-9_-]+)")
def flaky_count(request, key):
    with FLAKY_LOCK:
        request.send_json(200, {"attempt": FLAKY_COUNTS.get(key, 0)})


@route(r"/auth/bearer")
def auth_bearer(request):
    """200 only for `Authorization: Bearer <valid>`, else 401."""
    valid = request.args.get("valid", [""])[0]
    if request.headers.get("Authorization") == f"Bearer {valid}":
        request.send_json(200, {"authorized": True})
    else:
        request.send_json(401, {"authorized": False, "got": request.headers.get("Authorization")})


@route(r"/slow-bytes/(\d+)")
def slow_bytes(request, count):
    """`count` bytes (byte i = i % 256) with Content-Length, written `chunk` bytes at a time
    with `interval` seconds between writes."""
    count = int(count)
    chunk = max(1, int(request.args.get("chunk", ["65536"])[0]))
    interval = float(request.args.get("interval", ["0.01"])[0])
    pattern = bytes(range(256)) * (chunk // 256 + 2)
    request.send_response(200)
    request.send_header("Content-Type", "application/octet-stream")
    request.send_header("Content-Length", str(count))
    request.end_headers()
    sent = 0
    try:
        while sent < count:
            size = min(chunk, count - sent)
            offset = sent % 256
            request.wfile.write(pattern[offset:offset + size])
            request.wfile.flush()
            sent += size
            time.sleep(interval)
    except (BrokenPipeError, ConnectionResetError):
        request.close_connection = True


GZIP_BOMBS = {}


@route(r"/gzip-bomb/(\d+)")
def gzip_bomb(request, size):
    """`size` zero bytes, gzip-compressed (a few hundred KB on the wire for 512 MB), compressed
    a megabyte at a time so the server never holds the inflated body."""
    size = int(size)
    if size not in GZIP_BOMBS:
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # wbits 31: a gzip container
        zeros, parts = bytes(1 << 20), []
        for offset in range(0, size, len(zeros)):
            parts.append(compressor.compress(zeros[:min(len(zeros), size - offset)]))
        parts.append(compressor.flush())
        GZIP_BOMBS[size] = b"".join(parts)
    request.send(200, GZIP_BOMBS[size], "application/octet-stream", headers=[("Content-Encoding", "gzip")])


@route(r"/compressed/(gzip|deflate|br|zstd)")
def compressed(request, encoding):
    """Tests/Fixtures/Compressed/body.json, pre-compressed with `encoding`."""
    extension = {"gzip": "gz", "deflate": "deflate", "br": "br", "zstd": "zst"}[encoding]
    with open(os.path.join(FIXTURES, "Compressed", f"body.json.{extension}"), "rb") as file:
        body = file.read()
    request.send(200, body, JSON_TYPE, headers=[("Content-Encoding", encoding), ("Vary", "Accept-Encoding")])


@route(r"/early-hints-compressed/gzip")
def early_hints_compressed(request):
    """A 103 Early Hints naming an invented Content-Encoding, then /compressed/gzip's response:
    what an interim response's headers say is not about the body to come."""
    request.wfile.write(b"HTTP/1.1 103 Early Hints\r\nContent-Encoding: x-custom\r\nLink: </style.css>; rel=preload\r\n\r\n")
    compressed(request, "gzip")


@route(r"/echo(?:/.*)?")
def echo(request):
    headers, header_list = request.received_headers()
    request.send_json(200, {
        "method": request.command,
        "path": request.raw_path,
        "query": request.raw_query,
        "args": request.args,
        "headers": headers,
        "headerList": header_list,
        "body": request.body.decode("utf-8", errors="replace"),
        "bodyBase64": base64.b64encode(request.body).decode("ascii"),
        "bodyLength": len(request.body),
    })


@route(r"/gunzip")
def gunzip(request):
    """What a compressed request body holds: the headers that describe it, the SHA-256 of the
    bytes as received, and the body after gunzip (refused with 400 when it is not gzip)."""
    encoding = request.headers.get("Content-Encoding", "")
    raw = request.body
    try:
        body = gzip.decompress(raw) if encoding == "gzip" else raw
    except (OSError, EOFError) as error:
        request.send_json(400, {"error": f"not gzip: {error}"})
        return
    request.send_json(200, {
        "contentEncoding": encoding,
        "contentLength": request.headers.get("Content-Length"),
        "receivedLength": len(raw),
        "receivedSHA256": hashlib.sha256(raw).hexdigest(),
        "body": body.decode("utf-8", errors="replace"),
    })


@route(r"/status/(\d+)")
def status(request, code):
    code = int(code)
    if not 200 <= code <= 599:
        raise ValueError("status must be 200-599")  # 1xx would leave the client waiting
    if "body" in request.args:
        content_type = request.args.get("contentType", [JSON_TYPE])[0]
        encoding = request.args.get("encoding", ["utf-8"])[0]  # e.g. latin-1, utf-16
        request.send(code, request.args["body"][0].encode(encoding), content_type)
    else:
        request.send_json(code, {"status": code})


@route(r"/delay/([^/]+)")
def delay(request, seconds):
    seconds = float(seconds)
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError("delay must be a finite number >= 0")
    time.sleep(seconds)
    request.send_json(200, {"delayed": seconds})


@route(r"/json")
def fixed_json(request):
    request.send_json(200, {"id": 1, "name": "NetworkLayer", "tags": ["a", "b"],
                            "nested": {"ok": True}})


@route(r"/bytes/(\d+)")
def byte_pattern(request, count):
    count, pattern = int(count), bytes(range(256))
    request.send(200, pattern * (count // 256) + pattern[:count % 256],
                 "application/octet-stream")


@route(r"/redirect/(\d+)")
def redirect(request, remaining):
    remaining = int(remaining)
    request.send_redirect(302, f"/redirect/{remaining - 1}" if remaining > 0 else "/echo")


@route(r"/redirect-to")
def redirect_to(request):
    if "url" not in request.args:
        raise ValueError("missing url")
    code = int(request.args.get("status", ["302"])[0])
    if not 300 <= code <= 399:
        raise ValueError("status must be 3xx")
    location = request.args["url"][0]
    # A hostile server quoting a credential back into the Location: ?echo=<query item name>
    # or ?echoHeader=<header name> appends leak=<that value> to the target's query.
    echoed = None
    if "echo" in request.args:
        echoed = request.args.get(request.args["echo"][0], [""])[0]
    elif "echoHeader" in request.args:
        echoed = request.headers.get(request.args["echoHeader"][0], "")
    if echoed is not None:
        separator = "&" if "?" in location else "?"
        location += separator + "leak=" + urllib.parse.quote(echoed, safe="")
    location.encode("latin-1")  # header values must be Latin-1; fail before any output
    request.send_redirect(code, location)


@route(r"/headers")
def headers(request):
    request.send_json(200, {"headers": request.received_headers()[0]}, headers=[
        ("X-Test-Header", "value1"),
        ("Set-Cookie", "session=abc123; Path=/"),
        ("Set-Cookie", "theme=dark; Path=/"),
        ("X-Empty", ""),
    ])


@route(r"/response-headers")
def response_headers(request):
    """Every query item as a response header line, in order, repeats kept."""
    pairs = []
    for item in request.args.get("h", []):
        name, colon, value = item.partition(":")
        if not colon:
            raise ValueError(f"h={item!r} is not <name>:<value>")
        pairs.append((name.strip(), value.strip(" \t")))
    for name, value in pairs:
        if any(c in name + value for c in "\r\n\0") or not name:
            raise ValueError("header names and values may not hold CR, LF or NUL")
    request.send_json(200, {"headers": [[name, value] for name, value in pairs]},
                      headers=[(name, value.encode("utf-8").decode("latin-1")) for name, value in pairs])


@route(r"/reflect-headers")
def reflect_headers(request):
    """Every request header echoed back as a response header named X-Reflected-<name>, and
    ?status= (default 200) as the status: a server that quotes what it received, for the
    tests that check a recorded sidecar or an error holds no secret the request carried."""
    code = int(request.args.get("status", ["200"])[0])
    if not 200 <= code <= 599:
        raise ValueError("status must be 200-599")
    reflected = [("X-Reflected-" + name, value) for name, value in request.headers.items()]
    request.send_json(code, {"reflected": len(reflected)}, headers=reflected)


@route(r"/close")
def close(request):
    request.close_connection = True  # no response; the server then closes with a FIN


@route(r"/reset")
def reset(request):
    # Lingering with a zero timeout turns close() into an RST. Close right here: the
    # server's own cleanup would shutdown(SHUT_WR) first, which sends a FIN.
    request.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    request.close_connection = True
    request.rfile.close()  # drop the file's reference so the socket really closes now
    request.connection.close()


@route(r"/partial")
def partial(request):
    request.send_response(200)
    request.send_header("Content-Type", "application/octet-stream")
    request.send_header("Content-Length", "1000")
    request.end_headers()
    request.wfile.write(b"0123456789")
    request.close_connection = True


@route(r"/garbage")
def garbage(request):
    request.wfile.write(b"THIS IS NOT HTTP\r\n\r\n")
    request.close_connection = True


@route(r"/malformed-json")
def malformed_json(request):
    request.send(200, b'{"id": 1, "name": ')


@route(r"/count")
def count(request):
    request.send_json(200, {"count": request.server.request_count()})


@route(r"/count/reset")
def count_reset(request):
    request.send_json(200, {"count": request.server.request_count(reset=True)})


@route(r"/retry-after/([^/]+)")
def retry_after(request, seconds):
    request.send_json(503, {"status": 503, "retryAfter": seconds},
                      headers=[("Retry-After", seconds)])


# --- Startup -------------------------------------------------------------------------

def make_tls_context(args):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    if args.tls_max_version:
        # Python's default minimum is TLS 1.2 and OpenSSL's default security level
        # rejects older protocols; relax both so the old version is really offered.
        context.set_ciphers("DEFAULT:@SECLEVEL=0")
        with warnings.catch_warnings():  # TLS < 1.2 is deprecated; that is the point
            warnings.simplefilter("ignore", DeprecationWarning)
            context.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED
            context.maximum_version = ssl.TLSVersion[args.tls_max_version]
    if args.tls_min_version:
        context.minimum_version = ssl.TLSVersion[args.tls_min_version]
    if args.tls_ciphers:
        context.set_ciphers(args.tls_ciphers)
    if not args.tls_chain:
        context.load_cert_chain(args.tls_cert, args.tls_key)
        return context
    # load_cert_chain takes one file holding the certificate followed by its chain.
    with tempfile.NamedTemporaryFile(suffix=".pem") as combined:
        for path in (args.tls_cert, args.tls_chain):
            with open(path, "rb") as part:
                combined.write(part.read().rstrip(b"\n") + b"\n")
        combined.flush()
        context.load_cert_chain(combined.name, args.tls_key)
    return context


def main():
    parser = argparse.ArgumentParser(description="Loopback HTTP(S) server for tests.")
    parser.add_argument("--port", type=int, default=0, help="0 lets the kernel choose")
    parser.add_argument("--host", default="127.0.0.1", choices=["127.0.0.1", "::1"], help="the loopback address to listen on")
    parser.add_argument("--tls-cert", help="PEM certificate (may include the chain)")
    parser.add_argument("--tls-key", help="PEM private key")
    parser.add_argument("--tls-chain", help="PEM intermediates to send after the certificate")
    parser.add_argument("--record", help="append all received request bytes to this file")
    parser.add_argument("--tls-max-version", choices=[v.name for v in ssl.TLSVersion])
    parser.add_argument("--tls-min-version", choices=[v.name for v in ssl.TLSVersion])
    parser.add_argument("--tls-ciphers", help="the OpenSSL cipher list for TLS 1.2 and below")
    args = parser.parse_args()
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    if (args.tls_chain or args.tls_max_version or args.tls_min_version or args.tls_ciphers) and not args.tls_cert:
        parser.error("--tls-chain and --tls-max-version need --tls-cert")

    tls_context = make_tls_context(args) if args.tls_cert else None
    recorder = Recorder(args.record) if args.record else None
    server_support.serve(TestServer(args.port, tls_context, recorder, host=args.host))


if __name__ == "__main__":
    main()
