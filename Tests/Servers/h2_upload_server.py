#!/usr/bin/env python3
"""HTTP/2 upload server for the streamed-body tests: hypercorn (from the .venv) over TLS.

    .venv/bin/python h2_upload_server.py --cert CHAIN --key KEY

It listens on 127.0.0.1 (a port the kernel picks), prints ``PORT <n>`` once listening, offers h2
and http/1.1 by ALPN, and exits when its stdin reaches EOF. Every request's body is read whole
and answered with JSON: {"size", "sha256", "chunked", "chunks", "pattern", "http_version"}, where
"chunks" counts the pieces the server received, "chunked" whether the request said
Transfer-Encoding: chunked, and "pattern" whether byte i of the body was i % 256.
"""

import argparse
import asyncio
import hashlib
import json
import os
import socket
import sys
import threading
import time

from hypercorn.asyncio import serve
from hypercorn.config import Config

PATTERN = bytes(range(256)) * 1024


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
    digest = hashlib.sha256()
    size = 0
    chunks = 0
    pattern = True
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
        body = message.get("body", b"")
        if body:
            chunks += 1
            if pattern:
                offset = 0
                while offset < len(body) and pattern:
                    start = (size + offset) % 256
                    piece = body[offset:offset + len(PATTERN) - 256]
                    pattern = piece == PATTERN[start:start + len(piece)]
                    offset += len(piece)
            digest.update(body)
            size += len(body)
        if not message.get("more_body", False):
            break
    headers = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
    answer = json.dumps({
        "size": size, "sha256": digest.hexdigest(), "chunks": chunks, "pattern": pattern,
        "chunked": headers.get("transfer-encoding", "").lower() == "chunked",
        "http_version": scope.get("http_version", ""),
    }).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]})
    await send({"type": "http.response.body", "body": answer})


def main():
    parser = argparse.ArgumentParser(description="HTTP/2 upload server for the tests.")
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    args = parser.parse_args()

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    listener.set_inheritable(True)
    config = Config()
    config.bind = [f"fd://{listener.fileno()}"]
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
        os._exit(0)

    threading.Thread(target=wait_for_stdin_eof, daemon=True).start()
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    loop.run_until_complete(serve(app, config, shutdown_trigger=stopped.wait))


if __name__ == "__main__":
    main()
