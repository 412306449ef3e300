#!/usr/bin/env python3
"""Echo server for the copy-as-curl replay tests: hypercorn (from the .venv), any method.

    .venv/bin/python echo_server.py [--cert CHAIN --key KEY] [--unix PATH]

It listens on 127.0.0.1 (a port the kernel picks; with --unix on that socket instead), prints
``PORT <n>`` (``PORT 0`` for a socket) once listening, and exits when its stdin reaches EOF.
With --cert and --key it speaks TLS and offers h2 and http/1.1 by ALPN; without, HTTP/1.1 and
HTTP/2 with prior knowledge (h2c).

Every request is answered 200 with what the server received, as JSON:
{"method", "path" (raw, percent-encoded as sent), "query" (raw), "headers" ([[name, value], ...]
in the order received, names lowercased), "body" (base64), "http_version"}; the same JSON,
base64-encoded, is also the response header ``x-echo`` (a HEAD response has no body).
``?gzip=1`` with an Accept-Encoding that allows gzip sends the body gzip-compressed.
"""

import argparse
import asyncio
import base64
import gzip
import json
import os
import socket
import sys
import threading
import time

from hypercorn.asyncio import serve
from hypercorn.config import Config


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    headers = [[name.decode("latin-1").lower(), value.decode("latin-1")] for name, value in scope["headers"]]
    query = scope.get("query_string", b"").decode("latin-1")
    echo = json.dumps({
        "method": scope["method"],
        "path": scope.get("raw_path", scope["path"].encode()).decode("latin-1").split("?")[0],
        "query": query,
        "headers": headers,
        "body": base64.b64encode(bytes(body)).decode("ascii"),
        "http_version": scope.get("http_version", ""),
    }).encode()
    response_headers = [(b"content-type", b"application/json"), (b"x-echo", base64.b64encode(echo))]
    accepted = dict(headers).get("accept-encoding", "")
    if "gzip=1" in query.split("&") and "gzip" in accepted:
        echo = gzip.compress(echo)
        response_headers.append((b"content-encoding", b"gzip"))
    response_headers.append((b"content-length", str(len(echo)).encode()))
    await send({"type": "http.response.start", "status": 200, "headers": response_headers})
    await send({"type": "http.response.body", "body": echo})


def main():
    parser = argparse.ArgumentParser(description="Echo server for the replay tests.")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--unix")
    args = parser.parse_args()

    config = Config()
    if args.unix:
        if os.path.exists(args.unix):
            os.unlink(args.unix)
        config.bind = [f"unix:{args.unix}"]
        port = 0
    else:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        listener.set_inheritable(True)
        config.bind = [f"fd://{listener.fileno()}"]
        port = listener.getsockname()[1]
    if args.cert:
        config.certfile = args.cert
        config.keyfile = args.key
        config.alpn_protocols = ["h2", "http/1.1"]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 0.1

    loop = asyncio.new_event_loop()
    stopped = asyncio.Event()

    def wait_for_stdin_eof():
        try:
            while sys.stdin.buffer.read(1024):
                pass
        except (OSError, ValueError):
            pass
        loop.call_soon_threadsafe(stopped.set)
        # hypercorn's shutdown waits for open connections, and the client keeps its idle ones.
        time.sleep(0.5)
        if args.unix and os.path.exists(args.unix):
            os.unlink(args.unix)
        os._exit(0)

    threading.Thread(target=wait_for_stdin_eof, daemon=True).start()

    async def announce_when_listening():
        # A socket exists only once hypercorn binds it: wait for the file before saying so.
        while args.unix and not os.path.exists(args.unix):
            await asyncio.sleep(0.01)
        print(f"PORT {port}", flush=True)

    loop.create_task(announce_when_listening())
    loop.run_until_complete(serve(app, config, shutdown_trigger=stopped.wait))


if __name__ == "__main__":
    main()
