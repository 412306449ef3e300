#!/usr/bin/env python3
"""Loopback server for the streaming tests (Python 3 standard library only).

    python3 sse_server.py [--port 0]

It listens on 127.0.0.1, prints ``PORT <n>`` once listening, and serves HTTP/1.1 until its
stdin reaches EOF (give it a pipe, as the tests do). Streamed bodies use chunked transfer
encoding, one chunk per write, with TCP_NODELAY and a pause between writes, so that the client
receives them as separate network chunks: lines, UTF-8 characters and CRLF pairs split across
writes reach the client split.

Endpoints (GET unless noted):

  /sse/rules                every event-stream parsing rule, pieces split on purpose (see RULES)
  /sse/ticks?count=&interval=&size=
                            `count` events (id, event "tick", JSON data {"n": i, "pad": ...}),
                            `interval` ms apart (default 0), then a clean end
  /sse/forever?interval=    ticks until the client goes away
  /sse/end-mid-event        two events, half of a third, then the connection closes without
                            ending the chunked body
  /sse/clean-end-mid-event  two events, half of a third, then a clean end of the body
  /sse/reset                two events, then a TCP reset
  /sse/stall?after=         `after` events (default 2), then silence for 30 s
  /sse/slow-head?delay=     waits `delay` seconds before the response headers
  /sse/auth?valid=          401 unless "Authorization: Bearer <valid>", then three ticks
  /sse/echo-auth?piece=     one event whose data is the request's Authorization header, then
                            one with it percent-escaped letter by letter, written `piece` bytes
                            (default 3) at a time, 20 ms apart: a credential cut across chunks
  /redirect?to=             302 to `to`
  /status/<code>?size=      that status, a chunked JSON body {"error": ..., "pad": ...} of about
                            `size` bytes (default 100), streamed in 16 KB writes
  /bytes?size=&chunk=       `size` bytes (Content-Length), written `chunk` bytes at a time
                            (default 1 MB), as fast as the client takes them
  /lines                    text lines (LF, CRLF, split UTF-8, last line unterminated)
  /ndjson?bad=              NDJSON values {"n": i} with blank lines; line `bad` is not JSON
                            (then the body stays open 2 s more)
  /sse/resumable?count=&cut=&end=&retry=&then=&first=&key=&badid=
                            ticks 1...`count` (default 10), resuming after the request's
                            Last-Event-ID (a number), `cut` of them (default 3) per connection,
                            after a `retry: <retry>` line (default 100 ms); then the connection
                            ends by `end`: abandon (default: closed mid-body), reset, clean, or
                            stall (silence for 30 s). With nothing left after the id, 204. A
                            reconnection (a request with Last-Event-ID) gets `then`: ok
                            (default), 204, status:<code> (that status, JSON), or type:<type>
                            (that Content-Type); the first request gets `first`: 204 or
                            type:<type> (none: as any). `badid=1`: the last event of the first connection
                            has the id "x<U+0001>y". `partial=<n>`: a connection that ends
                            before the last tick first sends the first n bytes (at most all but
                            the last) of the next tick, with the id `partialid` when given: an
                            event cut before its blank line. Every request's Last-Event-ID (null
                            when absent) is kept under `key`:
  /sse/resumable/log?key=   {"lastEventIDs": [...], "methods": [...], "marks": [...]} in arrival
                            order (marks: the request's X-Mark headers, joined with ",")
  /sse/hostile?kind=        what a hostile server sends an event reader: `bigevent` one event of
                            64 MB (64 `data:` lines of 1 MB); `endless` one `data:` line that never
                            ends; `empties` 10 million blank lines (events without data), then
                            one tick; `invalid` events whose data is not valid UTF-8
  /stats                    {"open": streams open now, "opened": total, "closed": total}
  POST (or PUT) /upload?delay=&id=&pattern=
                            reads the body (Content-Length or chunked), `delay` ms after each
                            64 KB read; {"size", "sha256", "chunked", "chunks", "pattern"}; with
                            `id`, what arrived so far is counted for /upload/received; with
                            `pattern=1`, "pattern" says whether byte i of the body was i % 256
  POST /upload/status?code= reads the body, then answers as /upload with status `code` (default 503)
  GET /upload/received?id=  {"received": bytes of upload `id` read so far, "done": whether it
                            ended, "attempts": how many uploads with this id began}
  POST /upload/redirect?status=&to=
                            `status` (default 307) to `to` at once, without reading the body
                            (Connection: close)
  POST /upload/auth?valid=  reads the body, then 401 unless "Authorization: Bearer <valid>",
                            else answers as /upload
"""

import argparse
import hashlib
import http.server
import json
import socket
import struct
import threading
import time
import urllib.parse

import server_support

# The rules script: (bytes written as one chunk, pause in seconds after it).
RULES = [
    (b"\xef\xbb", 0.02),                                   # a BOM split across writes
    (b"\xbf: a comment after the BOM\n", 0.02),
    (b"retry: 1500\nid: 1\nevent: greeting\ndata: hello\n\n", 0.02),
    (b"data: first line\r\ndata: second line\r", 0.02),     # CRLF, then a CR ending the write
    (b"\n\r\n", 0.02),                                     # its LF, then a blank CRLF line
    (b"data:no space\rdata:  two spaces\r\r", 0.02),       # CR alone ends lines
    (b"id: 2\x00x\ndata: an id with NUL is ignored\n\n", 0.02),
    (b"event: dropped type\nid: 3\n\n", 0.02),             # no data: nothing dispatched, id kept
    (b"data\n\n", 0.02),                                   # a field without colon: empty data
    (b"retry: 12x\nretry: \nunknown: field\ndata: after bad retries\n\n", 0.02),
    (b"id\ndata: the id is reset\n\n", 0.02),
    (b"data: {\"text\":\"H\xc3", 0.02),                    # a UTF-8 character split
    (b"\xa9llo\"}\n\n", 0.02),
    (b"event: delta\ndata: a line split ", 0.02),
    (b"across writes\n", 0.02),
    (b"\n", 0.02),
    (b"data: an incomplete event at the end\n", 0.02),
]

LINES = [
    (b"alpha\nbe", 0.02), (b"ta\r", 0.02), (b"\ngamma \xc3", 0.02), (b"\xa9\n\n", 0.02),
    (b"last line without an end", 0.0),
]


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.open = 0
        self.opened = 0
        self.closed = 0

    def enter(self):
        with self.lock:
            self.open += 1
            self.opened += 1

    def leave(self):
        with self.lock:
            self.open -= 1
            self.closed += 1

    def snapshot(self):
        with self.lock:
            return {"open": self.open, "opened": self.opened, "closed": self.closed}


STATS = Stats()

# Last-Event-ID and method of each /sse/resumable request, by key.
RESUMABLE_LOG = {}
RESUMABLE_LOCK = threading.Lock()


class Server(server_support.LoopbackHTTPServer):
    request_queue_size = 256

    def __init__(self, port):
        super().__init__(Handler, port)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # --- helpers -----------------------------------------------------------------------

    def query(self):
        parsed = urllib.parse.urlparse(self.path)
        return parsed.path, {k: v[-1] for k, v in urllib.parse.parse_qs(parsed.query).items()}

    def send_json(self, status, value, headers=None):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, val in (headers or {}).items():
            self.send_header(name, val)
        self.end_headers()
        self.wfile.write(body)

    def start_chunked(self, status=200, content_type="text/event-stream"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.flush()

    def chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
            self.wfile.flush()

    def end_chunked(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def abandon(self, reset=False):
        """Closes the connection without ending the body (reset: with a TCP RST)."""
        self.wfile.flush()
        if reset:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR) if not reset else None
        except OSError:
            pass
        self.connection.close()

    def write_script(self, pieces):
        for data, pause in pieces:
            self.chunk(data)
            if pause:
                time.sleep(pause)

    @staticmethod
    def tick(index, pad=0):
        data = json.dumps({"n": index, "pad": "x" * pad}, separators=(",", ":"))
        return f"id: {index}\nevent: tick\ndata: {data}\n\n".encode()

    def hostile(self, kind):
        self.start_chunked()
        if kind == "bigevent":
            line = b"data: " + b"x" * (1 << 20) + b"\n"
            for _ in range(64):
                self.chunk(line)
            self.chunk(b"\n")
        elif kind == "endless":
            self.chunk(b"data: ")
            block = b"y" * (1 << 20)
            while True:
                self.chunk(block)
        elif kind == "empties":
            block = b"\n" * (1 << 20)
            for _ in range(10_000_000 // len(block)):
                self.chunk(block)
            self.chunk(b"\n" * (10_000_000 % len(block)))
            self.chunk(self.tick(1))
        elif kind == "invalid":
            # A lone continuation byte, a truncated 3-byte sequence, an overlong NUL, then valid text.
            self.chunk(b"data: a\x80b\n\ndata: \xe2\x82\ndata: c\xc0\x80\n\ndata: ok\n\n")
        self.end_chunked()

    # --- routes ------------------------------------------------------------------------

    def do_GET(self):
        path, query = self.query()
        if path == "/stats":
            self.send_json(200, STATS.snapshot())
            return
        if path == "/upload/received":
            self.send_json(200, UPLOADS.snapshot(query.get("id", "")))
            return
        if path == "/sse/resumable/log":
            with RESUMABLE_LOCK:
                entries = list(RESUMABLE_LOG.get(query.get("key", ""), []))
            self.send_json(200, {"lastEventIDs": [e[0] for e in entries], "methods": [e[1] for e in entries],
                                 "marks": [e[2] for e in entries]})
            return
        STATS.enter()
        try:
            self.route(path, query)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True
        finally:
            STATS.leave()

    def resumable(self, query, method):
        last = self.headers.get("Last-Event-ID")
        with RESUMABLE_LOCK:
            marks = ",".join(self.headers.get_all("X-Mark") or [])
            RESUMABLE_LOG.setdefault(query.get("key", ""), []).append((last, method, marks))
        count = int(query.get("count", "10"))
        cut = int(query.get("cut", "3"))
        then = query.get("then", "ok")
        if last is not None:
            if then == "204":
                self.send_response(204)
                self.end_headers()
                return
            if then.startswith("status:"):
                self.send_json(int(then.split(":", 1)[1]), {"error": "no resuming here"})
                return
        first = query.get("first", "")
        start = int(last) + 1 if last is not None and last.isdigit() else 1
        if start > count or (last is None and first == "204"):
            self.send_response(204)
            self.end_headers()
            return
        content_type = then.split(":", 1)[1] if last is not None and then.startswith("type:") else "text/event-stream"
        if last is None and first.startswith("type:"):
            content_type = first.split(":", 1)[1]
        self.start_chunked(content_type=content_type)
        self.chunk(b"retry: %d\n\n" % int(query.get("retry", "100")))
        end = min(count, start + cut - 1)
        for index in range(start, end + 1):
            event = self.tick(index)
            if query.get("badid") == "1" and last is None and index == end:
                event = event.replace(b"id: %d\n" % index, b"id: x\x01y\n")
            self.chunk(event)
        if end < count and "partial" in query:
            frame = self.tick(end + 1)
            if "partialid" in query:
                frame = frame.replace(b"id: %d\n" % (end + 1), b"id: %s\n" % query["partialid"].encode())
            self.chunk(frame[:min(int(query["partial"]), len(frame) - 1)])
        time.sleep(0.02)
        how = query.get("end", "abandon") if end < count else "clean"
        if how == "clean":
            self.end_chunked()
        elif how == "stall":
            time.sleep(30)
            self.abandon()
        else:
            self.abandon(reset=how == "reset")

    def route(self, path, query):
        if path == "/sse/resumable":
            self.resumable(query, "GET")
        elif path == "/sse/rules":
            self.start_chunked()
            self.write_script(RULES)
            self.end_chunked()
        elif path == "/sse/ticks":
            count = int(query.get("count", "5"))
            interval = float(query.get("interval", "0")) / 1000
            pad = int(query.get("size", "0"))
            self.start_chunked()
            for index in range(1, count + 1):
                self.chunk(self.tick(index, pad))
                if interval:
                    time.sleep(interval)
            self.end_chunked()
        elif path == "/sse/forever":
            interval = float(query.get("interval", "10")) / 1000
            self.start_chunked()
            index = 0
            while True:
                index += 1
                self.chunk(self.tick(index))
                time.sleep(interval)
        elif path in ("/sse/end-mid-event", "/sse/clean-end-mid-event"):
            self.start_chunked()
            self.chunk(self.tick(1) + self.tick(2))
            time.sleep(0.02)
            self.chunk(b"id: 3\nevent: tick\ndata: {\"n\":")
            time.sleep(0.02)
            if path == "/sse/clean-end-mid-event":
                self.end_chunked()
            else:
                self.abandon()
        elif path == "/sse/reset":
            self.start_chunked()
            self.chunk(self.tick(1) + self.tick(2))
            time.sleep(0.05)
            self.abandon(reset=True)
        elif path == "/sse/stall":
            self.start_chunked()
            for index in range(1, int(query.get("after", "2")) + 1):
                self.chunk(self.tick(index))
            time.sleep(30)
            self.abandon()
        elif path == "/sse/slow-head":
            time.sleep(float(query.get("delay", "1")))
            self.start_chunked()
            self.chunk(self.tick(1))
            self.end_chunked()
        elif path == "/sse/auth":
            expected = "Bearer " + query.get("valid", "")
            if self.headers.get("Authorization") != expected:
                self.send_json(401, {"error": "unauthorized"})
                return
            self.start_chunked()
            for index in range(1, 4):
                self.chunk(self.tick(index))
            self.end_chunked()
        elif path == "/sse/echo-auth":
            piece = max(1, int(query.get("piece", "3")))
            echoed = self.headers.get("Authorization", "")
            escaped = "".join("%%%02X" % ord(c) if c.isalpha() else c for c in echoed)
            body = ("id: 1\ndata: " + echoed + "\n\nid: 2\ndata: " + escaped + "\n\n").encode()
            self.start_chunked()
            for start in range(0, len(body), piece):
                self.chunk(body[start:start + piece])
                time.sleep(0.02)
            self.end_chunked()
        elif path == "/sse/hostile":
            self.hostile(query.get("kind", ""))
        elif path == "/redirect":
            self.send_response(302)
            self.send_header("Location", query.get("to", "/sse/ticks"))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path.startswith("/status/"):
            status = int(path.rsplit("/", 1)[1])
            size = int(query.get("size", "100"))
            prefix = b'{"error": "it failed with ' + str(status).encode() + b'", "pad": "'
            self.start_chunked(status, "application/json")
            remaining = max(0, size - len(prefix) - 2)
            self.chunk(prefix)
            while remaining > 0:
                piece = min(remaining, 16 << 10)
                self.chunk(b"x" * piece)
                remaining -= piece
            self.chunk(b'"}')
            self.end_chunked()
        elif path == "/bytes":
            size = int(query.get("size", "1048576"))
            step = int(query.get("chunk", str(1 << 20)))
            block = bytes(range(256)) * (step // 256 + 1)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            view = memoryview(block)
            remaining = size
            while remaining > 0:
                piece = min(remaining, step)
                self.wfile.write(view[:piece])
                remaining -= piece
            self.wfile.flush()
        elif path == "/lines":
            self.start_chunked(content_type="text/plain; charset=utf-8")
            self.write_script(LINES)
            self.end_chunked()
        elif path == "/ndjson":
            bad = int(query.get("bad", "0"))
            lines = [b'{"n":1}\n', b"\n", b'{"n":2}\r\n', b"   \n", b'{"n":3}\n', b'{"n":4}\n', b'{"n":5}']
            if bad:
                lines[bad - 1] = b'{"n": oops}\n'
            self.start_chunked(content_type="application/x-ndjson")
            for line in lines:
                self.chunk(line)
                time.sleep(0.01)
            if bad:
                # The body is still open when the client gives up at the bad line, however slow
                # the client (a ThreadSanitizer run in parallel once took over 2 s to get there).
                time.sleep(10)
            self.end_chunked()
        else:
            self.send_json(404, {"error": "not found", "path": path})

    def do_POST(self):
        path, query = self.query()
        if path == "/upload/redirect":
            self.send_response(int(query.get("status", "307")))
            self.send_header("Location", query.get("to", "/upload"))
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            return
        if path == "/sse/resumable":
            length = int(self.headers.get("Content-Length", "0"))
            if length:
                self.rfile.read(length)
            STATS.enter()
            try:
                self.resumable(query, self.command)
            except (BrokenPipeError, ConnectionResetError, OSError):
                self.close_connection = True
            finally:
                STATS.leave()
            return
        if path not in ("/upload", "/upload/auth", "/upload/status"):
            self.send_json(404, {"error": "not found", "path": path})
            return
        try:
            result = self.read_upload(query)
        except (BrokenPipeError, ConnectionResetError, OSError, ValueError):
            self.close_connection = True
            return
        if result is None:  # the client stopped before the end of the body
            self.close_connection = True
            return
        if path == "/upload/auth" and self.headers.get("Authorization") != "Bearer " + query.get("valid", ""):
            self.send_json(401, {"error": "unauthorized", "size": result["size"]})
            return
        if path == "/upload/status":
            self.send_json(int(query.get("code", "503")), result)
            return
        self.send_json(200, result)

    do_PUT = do_POST

    def read_upload(self, query):
        """Reads the request body; its summary, or None when it ended early."""
        delay = float(query.get("delay", "0")) / 1000
        upload_id = query.get("id")
        check_pattern = query.get("pattern") == "1"
        digest = hashlib.sha256()
        state = {"size": 0, "chunks": 0, "pattern": True}
        if upload_id:
            UPLOADS.start(upload_id)
        if delay:
            # A slow reader with a small receive buffer (no autotuning to 32 MB), so that what the
            # client has sent is close to what this server has read.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)

        def take(data):
            if check_pattern and state["pattern"]:
                start = state["size"] % 256
                expected = (bytes(range(256)) * (len(data) // 256 + 2))[start:start + len(data)]
                state["pattern"] = data == expected
            digest.update(data)
            state["size"] += len(data)
            if upload_id:
                UPLOADS.add(upload_id, len(data))
            if delay:
                time.sleep(delay)

        chunked = self.headers.get("Transfer-Encoding", "").lower() == "chunked"
        complete = True
        try:
            if chunked:
                while True:
                    line = self.rfile.readline()
                    if not line:
                        complete = False
                        break
                    length = int(line.split(b";")[0].strip() or b"0", 16)
                    if length == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        break
                    remaining = length
                    while remaining:
                        data = self.rfile.read(min(remaining, 64 << 10))
                        if not data:
                            complete = False
                            break
                        take(data)
                        remaining -= len(data)
                    if not complete:
                        break
                    self.rfile.readline()
                    state["chunks"] += 1
            else:
                remaining = int(self.headers.get("Content-Length", "0"))
                while remaining:
                    data = self.rfile.read(min(remaining, 64 << 10))
                    if not data:
                        complete = False
                        break
                    take(data)
                    remaining -= len(data)
                    state["chunks"] += 1
        finally:
            if upload_id:
                UPLOADS.end(upload_id)
        if not complete:
            return None
        return {"size": state["size"], "sha256": digest.hexdigest(), "chunked": chunked, "chunks": state["chunks"],
                "pattern": state["pattern"]}


class Uploads:
    """Bytes received per upload id, for /upload/received."""

    def __init__(self):
        self.lock = threading.Lock()
        self.received = {}
        self.done = set()
        self.attempts = {}

    def start(self, upload_id):
        with self.lock:
            self.attempts[upload_id] = self.attempts.get(upload_id, 0) + 1
            self.received[upload_id] = 0
            self.done.discard(upload_id)

    def add(self, upload_id, count):
        with self.lock:
            self.received[upload_id] = self.received.get(upload_id, 0) + count

    def end(self, upload_id):
        with self.lock:
            self.done.add(upload_id)

    def snapshot(self, upload_id):
        with self.lock:
            return {"received": self.received.get(upload_id, 0), "done": upload_id in self.done,
                    "attempts": self.attempts.get(upload_id, 0)}


UPLOADS = Uploads()


def main():
    parser = argparse.ArgumentParser(description="Loopback server for the streaming tests.")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server_support.serve(Server(args.port))


if __name__ == "__main__":
    main()
