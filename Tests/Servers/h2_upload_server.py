#!/usr/bin/env python3
"""HTTP/2 upload server for the streamed-body tests: hypercorn (from the .venv) over TLS.

    .venv/bin/python h2_upload_server.py --cert CHAIN --key KEY

It listens on 127.0.0.1 (a port the kernel picks), prints ``PORT <n>`` once listening, offers h2
and http/1.1 by ALPN, and exits at SIGTERM/SIGINT or stdin EOF. Every request's body is read whole
and answered with JSON: {"size", "sha256", "chunked", "chunks", "pattern", "http_version"}, where
"chunks" counts the pieces the server received, "chunked" whether the request said
Transfer-Encoding: chunked, and "pattern" whether byte i of the body was i % 256.
"""

import argparse
import hashlib
import json

import server_support

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
    server_support.serve_asgi(app, server_support.listen(reuse_address=True), args.cert, args.key)


if __name__ == "__main__":
    main()
