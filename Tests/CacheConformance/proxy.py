#!/usr/bin/env python3
"""A reverse proxy whose cache is NetworkLayer, for the cache-tests harness (run.sh): each request goes
to the Swift worker (CacheConformanceWorker, JSON lines on its stdin/stdout), which performs it
through Net with a memory cache against the backend (the suite's server).

    python3 proxy.py <listen port> <backend base URL> <worker binary>

A request the worker fails (a transport error, such as the origin closing the connection) closes the
client's connection without an answer, and is logged on stderr. A gateway would answer 502 instead;
two of the suite's cases (stale-close-no-cache, stale-close-must-revalidate) ask for an answer of any
status that does not come from the origin, so they fail here for want of one. The harness keeps the
behaviour its published figure was measured with.
"""
import base64, http.server, json, signal, socketserver, subprocess, sys, threading

listen, backend, worker_path = int(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3]
worker = subprocess.Popen([worker_path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

def stop(*_):
    # run.sh stops the proxy with SIGTERM; the worker goes with it.
    worker.terminate()
    try:
        worker.wait(5)
    except subprocess.TimeoutExpired:
        worker.kill()
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
lock = threading.Lock()
pending = {}   # id -> [event, reply]
next_id = [0]

def reader():
    for line in worker.stdout:
        reply = json.loads(line)
        slot = pending.pop(reply["id"], None)
        if slot:
            slot[1] = reply
            slot[0].set()
threading.Thread(target=reader, daemon=True).start()

# The content codings libcurl decodes (identity and its alias none; zlib, brotli and zstd builds).
DECODED = {"", "identity", "none", "deflate", "gzip", "x-gzip", "br", "zstd"}

HOP = {"host", "connection", "keep-alive", "content-length", "transfer-encoding", "te", "upgrade",
       "proxy-connection", "proxy-authorization"}

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = [[n, v] for n, v in self.headers.items() if n.lower() not in HOP]
        with lock:
            next_id[0] += 1
            ident = next_id[0]
            slot = [threading.Event(), None]
            pending[ident] = slot
            job = {"id": ident, "method": self.command, "url": backend + self.path, "headers": headers,
                   "body": base64.b64encode(body).decode()}
            worker.stdin.write((json.dumps(job) + "\n").encode())
        slot[0].wait(60)
        reply = slot[1]
        if not reply or "error" in reply:
            why = reply["error"] if reply else "no answer from the worker within 60 s"
            print(f"{self.command} {self.path}: {why}", file=sys.stderr, flush=True)
            self.close_connection = True
            self.connection.shutdown(2)
            return
        data = base64.b64decode(reply["body"])
        self.send_response_only(reply["status"])
        for name, value in reply["headers"]:
            if name.lower() in ("content-length", "transfer-encoding", "connection", "keep-alive"):
                continue
            # The library hands on a body it decoded without the coding, and one in a coding it
            # cannot decode as it came: the header goes on only for the second.
            if name.lower() == "content-encoding" and all(
                    coding.strip().lower() in DECODED for coding in value.split(",")):
                continue
            self.send_header(name, value)
        self.send_header("X-NL-Cache", reply.get("cache", ""))
        if reply["status"] not in (204, 304):
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD" and reply["status"] not in (204, 304):
            self.wfile.write(data)
    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = handle_any

setattr(Handler, "do_M-SEARCH", Handler.handle_any)

class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    def server_bind(self):
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

print(f"proxy on {listen} -> {backend}", flush=True)
Server(("127.0.0.1", listen), Handler).serve_forever()
