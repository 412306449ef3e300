#!/usr/bin/env python3
"""HTTP/2 server (cleartext, prior knowledge) that counts the PING frames its clients send, for
the keepalive tests. Needs the `h2` package (hypercorn's dependency, in the .venv).

    .venv/bin/python h2_ping_server.py

It listens on 127.0.0.1 (a port the kernel picks), prints ``PORT <n>`` once listening, and exits
when its stdin reaches EOF. Every connection is served on its own thread.

  /ok                        200, "ok"
  /sse?count=&interval=      `count` events (default 3) `interval` ms apart (default 0), as
                             text/event-stream, then the end of the stream
  /silent?seconds=           200 text/event-stream, one event, then silence for `seconds`
                             (default 10), then the end
  /pings                     {"pings": PING frames received (not ACKs), "connections": accepted}
"""

import json
import socket
import threading
import time
import urllib.parse

import h2.config
import h2.connection
import h2.events

import server_support

LOCK = threading.Lock()
COUNTS = {"pings": 0, "connections": 0}


def count(name):
    with LOCK:
        COUNTS[name] += 1


class Connection:
    def __init__(self, sock):
        self.sock = sock
        self.conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
        self.lock = threading.Lock()
        self.open = True

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def respond(self, stream_id, status, content_type, body=b"", end=True):
        with self.lock:
            self.conn.send_headers(stream_id, [(":status", str(status)), ("content-type", content_type),
                                               ("cache-control", "no-cache")], end_stream=not body and end)
            if body:
                self.conn.send_data(stream_id, body, end_stream=end)
            self.flush()

    def send(self, stream_id, data, end=False):
        with self.lock:
            if not self.open:
                return False
            try:
                self.conn.send_data(stream_id, data, end_stream=end)
                self.flush()
            except Exception:
                return False
            return True

    def stream(self, stream_id, events, interval, silence=0.0):
        self.respond(stream_id, 200, "text/event-stream", end=False)
        for index in range(1, events + 1):
            if not self.send(stream_id, b"id: %d\ndata: {\"n\":%d}\n\n" % (index, index)):
                return
            if interval:
                time.sleep(interval)
        if silence:
            time.sleep(silence)
        self.send(stream_id, b"", end=True)

    def request(self, stream_id, headers):
        path = dict(headers).get(b":path", b"/").decode()
        parsed = urllib.parse.urlparse(path)
        query = {k: v[-1] for k, v in urllib.parse.parse_qs(parsed.query).items()}
        if parsed.path == "/ok":
            self.respond(stream_id, 200, "text/plain", b"ok")
        elif parsed.path == "/pings":
            with LOCK:
                body = json.dumps(COUNTS).encode()
            self.respond(stream_id, 200, "application/json", body)
        elif parsed.path == "/sse":
            threading.Thread(target=self.stream, daemon=True,
                             args=(stream_id, int(query.get("count", "3")), float(query.get("interval", "0")) / 1000)).start()
        elif parsed.path == "/silent":
            threading.Thread(target=self.stream, daemon=True,
                             args=(stream_id, 1, 0, float(query.get("seconds", "10")))).start()
        else:
            self.respond(stream_id, 404, "text/plain", b"not found")

    def serve(self):
        with self.lock:
            self.conn.initiate_connection()
            self.flush()
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                with self.lock:
                    events = self.conn.receive_data(data)
                    self.flush()
                for event in events:
                    if isinstance(event, h2.events.PingReceived):
                        count("pings")
                    elif isinstance(event, h2.events.RequestReceived):
                        self.request(event.stream_id, event.headers)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        return
        except OSError:
            pass
        finally:
            with self.lock:
                self.open = False
            self.sock.close()


def main():
    listener = server_support.listen(backlog=64, reuse_address=True)

    def handle(sock):
        count("connections")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        Connection(sock).serve()

    server_support.accept_in_background(listener, handle)
    server_support.wait_for_stop(server_support.port_of(listener))
    server_support.exit_now()


if __name__ == "__main__":
    main()
