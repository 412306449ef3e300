#!/usr/bin/env python3
"""A server that turns slow, fails and recovers, for the circuit breaker and hedging tests.

    python3 outage_server.py

It listens on 127.0.0.1 (a port the kernel picks), prints ``PORT <n>``, and exits at
SIGTERM/SIGINT or when its stdin reaches EOF. HTTP/1.1, keep-alive, a thread per connection.

  /control?mode=ok|fail|slow|slow-fail[&retry_after=<text>][&delay=<seconds>]
                 sets what /work answers (not counted)
  /stats         200 {"requests": r, "cancelled": c}: requests counted, and slow answers whose
                 client closed the connection before they were sent (not counted)
  /reset         sets the counters to zero (not counted)
  /work          mode ok: 200 {"ok": true}; fail: 503, with Retry-After when set; slow: the
                 same 200 after `delay` seconds; slow-fail: 503 after `delay` seconds
  /status?code=<n>  that status with {"ok": false}
  /hedge?every=<n>&delay=<seconds>
                 200 {"ok": true}; the n-th, 2n-th… request to /hedge waits `delay` seconds first,
                 watching its connection: when the client closes it, the answer is never sent
                 and it counts as cancelled
"""

import http.server
import json
import select
import socket
import threading
import time
from urllib.parse import parse_qs, urlsplit

import server_support

lock = threading.Lock()
state = {"mode": "ok", "retry_after": None, "delay": 1.0, "requests": 0, "cancelled": 0, "hedged": 0}


def count(name):
    with lock:
        state[name] += 1
        return state[name]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # the head and the body go in two writes: no 40 ms delayed ACK between

    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def closed_within(self, seconds):
        """Waits `seconds`; True as soon as the client closes the connection."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], left)
            if readable:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
                time.sleep(min(left, 0.01))
        return False

    def do_GET(self):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/control":
            with lock:
                state["mode"] = query.get("mode", "ok")
                state["retry_after"] = query.get("retry_after")
                state["delay"] = float(query.get("delay", "1"))
            return self.answer(200, {"ok": True})
        if url.path == "/stats":
            with lock:
                return self.answer(200, {"requests": state["requests"], "cancelled": state["cancelled"]})
        if url.path == "/reset":
            with lock:
                state.update(requests=0, cancelled=0, hedged=0)
            return self.answer(200, {"ok": True})
        count("requests")
        if url.path == "/work":
            with lock:
                mode, retry_after, delay = state["mode"], state["retry_after"], state["delay"]
            if mode in ("fail", "slow-fail"):
                if mode == "slow-fail":
                    time.sleep(delay)
                headers = [("Retry-After", retry_after)] if retry_after is not None else []
                return self.answer(503, {"ok": False}, headers)
            if mode == "slow":
                time.sleep(delay)
            return self.answer(200, {"ok": True})
        if url.path == "/status":
            return self.answer(int(query.get("code", "500")), {"ok": False})
        if url.path == "/hedge":
            number = count("hedged")
            every = int(query.get("every", "20"))
            if number % every == 0 and self.closed_within(float(query.get("delay", "1"))):
                count("cancelled")
                self.close_connection = True
                return
            return self.answer(200, {"ok": True})
        return self.answer(404, {"error": "not found"})

    do_HEAD = do_GET
    do_POST = do_GET  # the tests' POSTs carry no body


if __name__ == "__main__":
    server_support.serve(server_support.LoopbackHTTPServer(Handler))
