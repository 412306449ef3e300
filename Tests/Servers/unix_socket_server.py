#!/usr/bin/env python3
"""HTTP/1.1 over a Unix domain socket, for the Swift test suite (Python 3 standard library only).

    python3 unix_socket_server.py SOCKET_PATH

It binds SOCKET_PATH (removing a stale file first), prints exactly one line ``PORT 0`` to stdout
once it is listening (the line the test helpers wait for; a socket has no port), serves HTTP/1.1
with keep-alive, one thread per connection, and exits at SIGTERM/SIGINT or when its stdin reaches
EOF, removing the socket file.

Endpoints (GET):
  /stats              {"connections": n, "requests": m} since start (this request included)
  /delay/<seconds>    sleep (at most 10 s), then the same as any other path
  /set-cookie/<name>  answers Set-Cookie: <name>=s3cr3t-<name>; Path=/ (the value is fixed, so
                      that a test can look for it in the log), then as any other path
  /set-secure-cookie/<name>  the same with the Secure attribute
  anything else       {"path": ..., "host": <the Host header>, "connection": <its number>,
                       "request": <its number on that connection>, "cookie": <the Cookie header>}
"""

import http.server
import json
import socketserver
import sys
import threading
import time

import server_support

lock = threading.Lock()
counts = {"connections": 0, "requests": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        with lock:
            counts["connections"] += 1
            self.connection_number = counts["connections"]
        self.requests_here = 0

    def address_string(self):
        return "unix"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.requests_here += 1
        with lock:
            counts["requests"] += 1
            snapshot = dict(counts)
        if self.path.startswith("/delay/"):
            try:
                time.sleep(min(float(self.path.split("/")[2]), 10.0))
            except ValueError:
                pass
        if self.path == "/stats":
            body = snapshot
        else:
            body = {"path": self.path, "host": self.headers.get("Host"),
                    "connection": self.connection_number, "request": self.requests_here,
                    "cookie": self.headers.get("Cookie")}
        set_cookie = None
        for prefix, attributes in (("/set-cookie/", "; Path=/"), ("/set-secure-cookie/", "; Path=/; Secure")):
            if self.path.startswith(prefix):
                name = self.path[len(prefix):]
                set_cookie = name + "=s3cr3t-" + name + attributes
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if set_cookie:
            self.send_header("Set-Cookie", set_cookie)
        self.end_headers()
        self.wfile.write(data)


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 refuses a burst of concurrent connections


def main():
    path = sys.argv[1]
    server_support.remove(path)  # a file an earlier run left there
    server = Server(path, Handler)
    # A socket file outlives its process: remove it at the stop.
    server_support.serve(server, cleanup=lambda: server_support.remove(path))


if __name__ == "__main__":
    sys.exit(main())
