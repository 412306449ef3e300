#!/usr/bin/env python3
"""Fault-injecting loopback server for the reliability suite (Python 3 standard library only).

    python3 fault_server.py [--mode serve|refuse|backlog|stall-tls] [--tls-cert FILE --tls-key FILE]

Same launch contract as test_server.py: it binds 127.0.0.1 on a port the kernel picks,
prints exactly one line ``PORT <n>`` to stdout, then serves until SIGTERM/SIGINT or until
its stdin reaches EOF (so it cannot outlive the test process that started it). It works
on raw sockets, not http.server, because its job is to misbehave at the byte level.

Modes (the fault is at connect time, so no request is read):

  serve      (default) read a request line and headers, then answer by path (below)
  refuse     bind the port but never listen: every connect is refused (RST), and the
             port stays reserved, so nothing else can take it while the test runs
  backlog    listen(0) and never accept; the server fills the accept queue with its own
             connections first. On Linux a full accept queue makes the kernel drop new
             SYNs, so a client's connect() neither succeeds nor fails: the client sees its
             own connect timeout (libcurl: CURLE_OPERATION_TIMEDOUT, "Failed to connect
             ... Timeout was reached" / "Connection timed out after N milliseconds").
  stall-tls  accept TCP connections and read whatever arrives (a TLS ClientHello) but never
             answer: a TLS handshake that never gets its ServerHello

Paths in serve mode (any method; the query is ignored unless noted):

  /ok                  200 {"ok": true}, keep-alive (the "library still works" probe)
  /ok-then-close       200 {"ok": true}, keep-alive, then the connection closed 100 ms later
                       (an idle connection its server closes while the client keeps it)
  /slow-ok             the same after 200 ms (to make a client open several connections)
  /once                200 {"ok": true}, keep-alive, but the connection's next request is read
                       and the connection closed without an answer: a server whose idle
                       timeout races the client's next request, on every connection
  /stats               200 {"connections": c, "requests": r}: connections accepted (even
                       those that sent nothing) and requests read, /stats itself and a
                       connection opened for it not included
  /hang                read the request, never answer; hold the connection until the peer closes
  /stall-after-headers 200 headers announcing 100 bytes, then nothing
  /drip                200 headers announcing 100 bytes, then one byte a second
                       (?interval=<seconds> for another pace)
  /close               read the request, close without a byte of answer (FIN)
  /short-body          Content-Length: 1000, 10 body bytes, close
  /reset-mid-body      Content-Length: 100000, 1000 body bytes, then RST (SO_LINGER 0)
  /bad-chunk           chunked, with the chunk size "zz"
  /truncated-chunk     chunked, a chunk announcing 0x64 bytes with 10 sent, then close
  /corrupt-gzip        Content-Encoding: gzip with a valid gzip header and garbage after it
  /gzip-bomb           Content-Encoding: gzip, 50 MB of zeros compressed to about 50 KB;
                       ?layers=2 compresses twice ("gzip, gzip") to about 200 bytes
  /fixture/<name>      a file of Tests/Fixtures/Compressed/ as the body, with
                       ?encoding=<gzip|deflate|br|zstd> as its Content-Encoding (a bomb in
                       every encoding: zeros-50MiB.zst, zeros-50MiB.br, zeros-50MiB.deflate)
  /gzip-records        Content-Encoding: gzip, ?mb=<n> MiB of JSON records with varied digits:
                       ordinary JSON that compresses about 6 times
  /retry-after         503 with Retry-After: the percent-decoded ?value=<text>, its UTF-8 bytes as given
  /content-length      200 with Content-Length: the percent-decoded ?value=<text> and a 2-byte
                       body, then close
  /lying-length        Content-Length: 60000000, 10 body bytes, close
  /garbage-status      "HTTP/1.1 ABC Garbage" as the status line
  /nul-header          a header whose value holds a NUL byte
  /bare-cr-header      a header whose value holds a bare CR (no LF after it)
  /hostile-text        200 whose status text, header names and values and text/plain body hold
                       terminal controls: ESC sequences (colour, clear screen, window title), BEL,
                       DEL, a C1 CSI (U+009B), a tab; the body also CR, NUL and a forged log line
                       ("[NetworkLayer #1] ..."); ?json=1 for the same as a JSON body (strings
                       with raw DEL and C1, which JSON allows), ?status=<code> for another status
                       with {"message": "<the same controls>"} as the body
  /huge-header         one 300 KB header
  /many-headers        10,000 headers (about 40 bytes each, 400 KB in all)
  /many-small-headers  10,000 headers of 12 bytes or so (about 130 KB in all)
  /conflicting-length  Content-Length: 12 and Content-Length: 13 with the 13-byte body
                       '{"ok": true} ': whichever length a client believes, the body decodes,
                       so only a client that refuses the conflict fails the request
  /redirect-loop       302 to /redirect-loop, forever (keep-alive)
  /slow-redirect       after 150 ms, 302 to /slow-redirect, forever (a timeout during redirects)
  /redirect-file       302 to file:///etc/passwd
  /redirect-ftp        302 to ftp://127.0.0.1:<this port>/secret.txt
  /redirect-userinfo/<path>
                       302 to http://nlcanaryuser:nlcanarypass4f1c@127.0.0.1:<this port>/<path>
                       (credentials in a URL for the secrets suite; the host is this server)
  /fold/…, /interim-then-bare, /latin1-header, /huge-header-line, /not-modified, /bidi-text
                       raw heads a hostile server writes: see hostile_headers.py
  anything else        404 {"error": "not found"}

Set FAULT_SERVER_VERBOSE=1 for a log of requests and errors on stderr.
"""

import argparse
import gzip
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time

import hostile_headers
import server_support

VERBOSE = os.environ.get("FAULT_SERVER_VERBOSE") == "1"
REQUEST_HEAD_LIMIT = 64 * 1024  # a request head larger than this is dropped
CANARY_USERINFO = "nlcanaryuser:nlcanarypass4f1c"


def log(message):
    if VERBOSE:
        print(f"fault_server: {message}", file=sys.stderr, flush=True)


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.connections = 0
        self.requests = 0

    def add(self, connections=0, requests=0):
        with self.lock:
            self.connections += connections
            self.requests += requests

    def snapshot(self):
        with self.lock:
            return self.connections, self.requests


# --- Bodies built once -------------------------------------------------------------

_bombs = {}
_bombs_lock = threading.Lock()


def gzip_bomb(layers):
    """50 MB of zeros, gzip-compressed `layers` times. Built on first use and cached: it costs
    about 0.3 s of CPU, which most servers started by the tests never need to spend."""
    with _bombs_lock:
        if layers not in _bombs:
            data = bytes(50 * 1024 * 1024)
            for _ in range(layers):
                data = gzip.compress(data, compresslevel=9)
            _bombs[layers] = data
        return _bombs[layers]


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "Compressed")
_records = {}


def gzip_records(megabytes):
    """`megabytes` MiB of JSON records whose ids and amounts vary, gzip-compressed: ordinary
    JSON (about 6 times smaller compressed), far from a bomb. Cached per size."""
    with _bombs_lock:
        if megabytes not in _records:
            parts, size, state = ["["], 1, 12345
            while size < megabytes * 1024 * 1024:
                state = (state * 1103515245 + 12345) % 2147483648
                record = '{"id":%d,"name":"user-%d","amount":%d.%02d,"active":%s},' % (
                    state, state % 99991, state % 100000, state % 100, "true" if state % 2 else "false")
                parts.append(record)
                size += len(record)
            parts.append('{"id":0}]')
            _records[megabytes] = gzip.compress("".join(parts).encode(), compresslevel=6)
        return _records[megabytes]


def query_value(query, name):
    """The percent-decoded value of `name` in a query string, or None."""
    from urllib.parse import parse_qs
    values = parse_qs(query, keep_blank_values=True).get(name)
    return values[0] if values else None


def utf8_as_latin1(text):
    """`text` as a str whose latin-1 encoding is its UTF-8 bytes: any character reaches the wire."""
    return text.encode("utf-8").decode("latin-1")


# --- Connections -------------------------------------------------------------------

class Connection:
    def __init__(self, sock, server_port, stats):
        self.sock = sock
        self.port = server_port
        self.stats = stats
        self.buffer = b""

    def read_head(self):
        """The request line and headers as (method, path, query, headers), or None at EOF."""
        while b"\r\n\r\n" not in self.buffer:
            if len(self.buffer) > REQUEST_HEAD_LIMIT:
                return None
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return None
        method, target, _ = parts
        path, _, query = target.partition("?")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        # Drain a body so that the next request on this connection starts clean.
        length = int(headers.get("content-length", "0") or 0)
        while len(self.buffer) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        self.buffer = self.buffer[length:]
        return method, path, query, headers

    def send(self, data):
        self.sock.sendall(data)

    def hold(self):
        """Keeps the connection open, reading and discarding, until the peer closes it."""
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def reset(self):
        """Closes with an RST instead of a FIN."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()


def response(status, reason, headers=(), body=b"", keep_alive=True):
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines += [f"{name}: {value}" for name, value in headers]
    if not any(name.lower() == "content-length" for name, _ in headers):
        lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: keep-alive" if keep_alive else "Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def json_response(status, reason, value, keep_alive=True):
    return response(status, reason, [("Content-Type", "application/json")],
                    json.dumps(value).encode(), keep_alive)


def redirect(location, keep_alive=True):
    return response(302, "Found", [("Location", location)], b"", keep_alive)


def handle(conn, method, path, query):
    """Answers one request. Returns True to keep the connection for another request."""
    c = conn
    raw = hostile_headers.answer(path, int(query_value(query, "status") or "200"))
    if raw is not None:
        c.send(raw)
        return False
    if path == "/ok":
        c.send(json_response(200, "OK", {"ok": True}))
        return True
    if path == "/ok-then-close":
        c.send(json_response(200, "OK", {"ok": True}))
        time.sleep(0.1)
        return False
    if path == "/slow-ok":
        time.sleep(0.2)
        c.send(json_response(200, "OK", {"ok": True}))
        return True
    if path == "/once":
        c.send(json_response(200, "OK", {"ok": True}))
        c.read_head()  # the next request, never answered
        return False
    if path == "/stats":
        connections, requests = c.stats.snapshot()
        c.send(json_response(200, "OK", {"connections": connections, "requests": requests}))
        return True
    if path == "/hang":
        c.hold()
        return False
    if path == "/stall-after-headers":
        c.send(response(200, "OK", [("Content-Type", "application/json"), ("Content-Length", "100")]))
        c.hold()
        return False
    if path == "/drip":
        interval = float(query.split("interval=", 1)[1].split("&")[0]) if "interval=" in query else 1.0
        c.send(response(200, "OK", [("Content-Type", "application/octet-stream"), ("Content-Length", "100")]))
        for _ in range(100):
            c.send(b"x")
            time.sleep(interval)
        return False
    if path == "/close":
        return False
    if path == "/short-body":
        c.send(response(200, "OK", [("Content-Type", "application/json"), ("Content-Length", "1000")],
                        b'{"ok": tru', keep_alive=False))
        return False
    if path == "/reset-mid-body":
        c.send(response(200, "OK", [("Content-Type", "application/octet-stream"), ("Content-Length", "100000")],
                        b"x" * 1000))
        time.sleep(0.05)  # let the first bytes arrive before the RST
        c.reset()
        return False
    if path == "/bad-chunk":
        c.send(response(200, "OK", [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")],
                        b"zz\r\n{\"ok\": true}\r\n0\r\n\r\n"))
        return False
    if path == "/truncated-chunk":
        c.send(response(200, "OK", [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")],
                        b"64\r\n{\"ok\": tru", keep_alive=False))
        return False
    if path == "/corrupt-gzip":
        # A gzip member header (magic, deflate, no flags) followed by bytes that are not deflate.
        body = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\xff\xfe\xfd garbage, not deflate" * 20
        c.send(response(200, "OK", [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], body))
        return False
    if path == "/gzip-bomb":
        layers = 2 if "layers=2" in query else 1
        encoding = ", ".join(["gzip"] * layers)
        c.send(response(200, "OK", [("Content-Type", "application/octet-stream"), ("Content-Encoding", encoding)],
                        gzip_bomb(layers)))
        return True
    if path.startswith("/fixture/"):
        name = path[len("/fixture/"):]
        if "/" in name or name.startswith("."):
            c.send(json_response(400, "Bad Request", {"error": "bad fixture name"}))
            return True
        encoding = query_value(query, "encoding") or "gzip"
        with open(os.path.join(FIXTURES, name), "rb") as fixture:
            body = fixture.read()
        c.send(response(200, "OK", [("Content-Type", "application/octet-stream"), ("Content-Encoding", encoding)], body))
        return True
    if path == "/gzip-records":
        c.send(response(200, "OK", [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                        gzip_records(int(query_value(query, "mb") or "20"))))
        return True
    if path == "/retry-after":
        c.send(response(503, "Service Unavailable", [("Content-Type", "application/json"),
                                                     ("Retry-After", utf8_as_latin1(query_value(query, "value") or ""))],
                        b'{"error": "busy"}'))
        return True
    if path == "/content-length":
        c.send(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: "
               + (query_value(query, "value") or "").encode("utf-8") + b"\r\n\r\nok")
        return False
    if path == "/lying-length":
        c.send(response(200, "OK", [("Content-Type", "application/octet-stream"), ("Content-Length", "60000000")],
                        b"0123456789", keep_alive=False))
        time.sleep(0.2)
        return False
    if path == "/garbage-status":
        c.send(b"HTTP/1.1 ABC Garbage\r\nContent-Length: 12\r\n\r\n{\"ok\": true}")
        return False
    if path == "/nul-header":
        c.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Evil: a\x00b\r\n"
               b"Content-Length: 12\r\n\r\n{\"ok\": true}")
        return False
    if path == "/bare-cr-header":
        c.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Evil: a\rX-Injected: yes\r\n"
               b"Content-Length: 12\r\n\r\n{\"ok\": true}")
        return False
    if path == "/hostile-text":
        status = int(query_value(query, "status") or "200")
        controls = "\x1b[31mred\x1b[0m \x1b[2J\x1b]0;owned\x07 bell\x07 del\x7f csi\u009b31m"
        if status != 200:
            body = json.dumps({"message": "refused " + controls}).encode()
            content_type = "application/json"
        elif query_value(query, "json"):
            body = json.dumps({"note": controls}, ensure_ascii=False).encode("utf-8")
            content_type = "application/json"
        else:
            body = ("first line " + controls + "\r\n[NetworkLayer #1] \u2190 200 GET https://bank.example/forged"
                    + "\rcarriage\x00nul\ttab\nlast line\n").encode("utf-8")
            content_type = "text/plain; charset=utf-8"
        head = (f"HTTP/1.1 {status} OK\x1b[2J\x07\r\n"
                f"Content-Type: {content_type}\r\n"
                "X-Escape: \x1b[31mred\x1b[0m\x1b]0;owned\x07\r\n"
                "X-Bell-Del: ring\x07 del\x7f tab\there\r\n"
                "X-\x1b[1mName: bold name\r\n").encode("latin-1")
        head += "X-C1: csi\u009b31m\r\n".encode("utf-8")
        c.send(head + f"Content-Length: {len(body)}\r\n\r\n".encode("latin-1") + body)
        return True
    if path == "/huge-header":
        c.send(response(200, "OK", [("Content-Type", "application/json"), ("X-Huge", "h" * (300 * 1024))],
                        b'{"ok": true}', keep_alive=False))
        return False
    if path == "/many-headers":
        headers = [("Content-Type", "application/json")]
        headers += [(f"X-Header-{i:05d}", "v" * 24) for i in range(10000)]
        c.send(response(200, "OK", headers, b'{"ok": true}', keep_alive=False))
        return False
    if path == "/many-small-headers":
        headers = [("Content-Type", "application/json")]
        headers += [(f"X{i}", "v") for i in range(10000)]
        c.send(response(200, "OK", headers, b'{"ok": true}', keep_alive=False))
        return False
    if path == "/conflicting-length":
        c.send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n"
               b"Content-Length: 13\r\nConnection: close\r\n\r\n{\"ok\": true} ")
        return False
    if path == "/redirect-loop":
        c.send(redirect("/redirect-loop"))
        return True
    if path == "/slow-redirect":
        time.sleep(0.15)
        c.send(redirect("/slow-redirect"))
        return True
    if path == "/redirect-file":
        c.send(redirect("file:///etc/passwd"))
        return True
    if path == "/redirect-ftp":
        c.send(redirect(f"ftp://127.0.0.1:{c.port}/secret.txt"))
        return True
    if path.startswith("/redirect-userinfo/"):
        target = path[len("/redirect-userinfo/"):]
        c.send(redirect(f"http://{CANARY_USERINFO}@127.0.0.1:{c.port}/{target}"))
        return True
    c.send(json_response(404, "Not Found", {"error": "not found", "path": path}))
    return True


def serve_connection(sock, port, stats, tls_context):
    first = True
    try:
        if tls_context:
            sock.settimeout(10)
            sock = tls_context.wrap_socket(sock, server_side=True)
            sock.settimeout(None)
        conn = Connection(sock, port, stats)
        while True:
            head = conn.read_head()
            if first:
                # A connection counts unless it was opened to ask for /stats (or failed its
                # handshake, which lands in the except below, also counted there).
                first = False
                if head is None or head[1] != "/stats":
                    stats.add(connections=1)
            if head is None:
                break
            method, path, query, _ = head
            if path != "/stats":
                stats.add(requests=1)
            log(f"{method} {path}")
            if not handle(conn, method, path, query):
                break
    except (OSError, ssl.SSLError, ValueError) as error:
        log(f"connection error: {error!r}")
        if first:
            stats.add(connections=1)
    finally:
        try:
            sock.close()
        except OSError:
            pass


# --- Modes -------------------------------------------------------------------------

def run_serve(tls_context):
    listener = server_support.listen()
    port = listener.getsockname()[1]
    stats = Stats()
    server_support.accept_in_background(listener, lambda sock: serve_connection(sock, port, stats, tls_context))
    return port, [listener]


def run_refuse():
    sock = server_support.listen(backlog=None)  # bound, never listening: connects get an RST
    return sock.getsockname()[1], [sock]


def run_backlog():
    listener = server_support.listen(backlog=0)
    port = listener.getsockname()[1]
    # With a backlog of 0 Linux queues one connection; a further SYN finds the queue full and
    # is dropped. Fill the queue with our own connections (non-blocking: the ones beyond the
    # first stay in SYN-SENT, which is fine) and never accept.
    fillers = []
    for _ in range(3):
        filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        filler.setblocking(False)
        try:
            filler.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        fillers.append(filler)
    time.sleep(0.05)  # let the first handshake complete
    return port, [listener] + fillers


def run_stall_tls():
    listener = server_support.listen()
    port = listener.getsockname()[1]
    server_support.accept_in_background(listener, lambda sock: Connection(sock, port, Stats()).hold())
    return port, [listener]


def main():
    parser = argparse.ArgumentParser(description="Fault-injecting loopback server for tests.")
    parser.add_argument("--mode", choices=["serve", "refuse", "backlog", "stall-tls"], default="serve")
    parser.add_argument("--tls-cert", help="PEM certificate (may include the chain)")
    parser.add_argument("--tls-key", help="PEM private key")
    args = parser.parse_args()
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    tls_context = None
    if args.tls_cert:
        if args.mode != "serve":
            parser.error("--tls-cert applies to --mode serve only")
        tls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls_context.load_cert_chain(args.tls_cert, args.tls_key)

    if args.mode == "serve":
        port, sockets = run_serve(tls_context)
    elif args.mode == "refuse":
        port, sockets = run_refuse()
    elif args.mode == "backlog":
        port, sockets = run_backlog()
    else:
        port, sockets = run_stall_tls()

    server_support.wait_for_stop(port)
    for sock in sockets:
        try:
            sock.close()
        except OSError:
            pass
    server_support.exit_now()


if __name__ == "__main__":
    main()
