#!/usr/bin/env python3
"""A loopback OpenAI-style chat server for the ChatClient example's live check (standard library only).

    python3 chat_server.py --sse FILE [--key KEY] [--interval SECONDS] [--port 0]

It listens on 127.0.0.1, prints ``PORT <n>`` once listening, and serves HTTP/1.1 until its stdin
reaches EOF (give it a pipe or a FIFO) or SIGTERM/SIGINT. It replays FILE, a text/event-stream body such as the
example's MockResponses/ChatCompletionStream.sse, the way a live chat API streams it: one event
per chunked write, TCP_NODELAY, `--interval` seconds apart.

  POST /v1/chat/completions   the body must be JSON with "stream": true and a non-empty
                              "messages" list (else 400); with --key, 401 and OpenAI's error body
                              unless "Authorization: Bearer <key>"; else 200 and the events
  GET /stats                  {"streams": streams begun, "completed": written to the end,
                              "abandoned": ended because the client went away}
"""

import argparse
import http.server
import json
import socket
import threading
import time

import server_support


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.values = {"streams": 0, "completed": 0, "abandoned": 0}

    def add(self, name):
        with self.lock:
            self.values[name] += 1

    def snapshot(self):
        with self.lock:
            return dict(self.values)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port, events, key, interval):
        super().__init__(("127.0.0.1", port), Handler)
        self.events = events
        self.key = key
        self.interval = interval
        self.stats = Stats()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send_json(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/stats":
            self.send_json(200, self.server.stats.snapshot())
        else:
            self.send_json(404, {"error": {"message": "Not found", "type": "invalid_request_error"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(min(length, 1 << 20))
        if self.path != "/v1/chat/completions":
            self.send_json(404, {"error": {"message": "Unknown endpoint " + self.path[:100], "type": "invalid_request_error"}})
            return
        if self.server.key is not None and self.headers.get("Authorization") != "Bearer " + self.server.key:
            # OpenAI quotes part of the key it refused; the client must not print it.
            sent = (self.headers.get("Authorization") or "")[7:]
            self.send_json(401, {"error": {"message": "Incorrect API key provided: " + sent + ".",
                                           "type": "invalid_request_error", "code": "invalid_api_key"}})
            return
        try:
            request = json.loads(body)
            valid = request.get("stream") is True and isinstance(request.get("messages"), list) and request["messages"]
        except (ValueError, AttributeError):
            valid = False
        if not valid:
            self.send_json(400, {"error": {"message": "Expected a JSON body with \"stream\": true and messages",
                                           "type": "invalid_request_error"}})
            return
        self.server.stats.add("streams")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for index, event in enumerate(self.server.events):
                if index:
                    time.sleep(self.server.interval)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            self.server.stats.add("completed")
        except (BrokenPipeError, ConnectionResetError):
            self.server.stats.add("abandoned")
            self.close_connection = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sse", required=True)
    parser.add_argument("--key")
    parser.add_argument("--interval", type=float, default=0.03)
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    with open(arguments.sse, "rb") as file:
        text = file.read().replace(b"\r\n", b"\n")
    events = [block + b"\n\n" for block in text.split(b"\n\n") if block.strip()]
    server_support.serve(Server(arguments.port, events, arguments.key, arguments.interval))


if __name__ == "__main__":
    main()
