#!/usr/bin/env python3
"""Echo server for the copy-as-curl replay tests: hypercorn (from the .venv), any method.

    .venv/bin/python echo_server.py [--cert CHAIN --key KEY] [--unix PATH]

It listens on 127.0.0.1 (a port the kernel picks; with --unix on that socket instead), prints
``PORT <n>`` (``PORT 0`` for a socket) once listening, and exits at SIGTERM/SIGINT or when its
stdin reaches EOF (removing the socket file).
With --cert and --key it speaks TLS and offers h2 and http/1.1 by ALPN; without, HTTP/1.1 and
HTTP/2 with prior knowledge (h2c).

Every request is answered 200 with what the server received, as JSON:
{"method", "path" (raw, percent-encoded as sent), "query" (raw), "headers" ([[name, value], ...]
in the order received, names lowercased), "body" (base64), "http_version"}; the same JSON,
base64-encoded, is also the response header ``x-echo`` (a HEAD response has no body).
``?gzip=1`` with an Accept-Encoding that allows gzip sends the body gzip-compressed.
"""

import argparse
import base64
import gzip
import json

import server_support


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
    if args.unix:
        # A socket file outlives its process: remove it at the stop.
        server_support.serve_asgi(app, server_support.listen_unix(args.unix), args.cert, args.key,
                                  cleanup=lambda: server_support.remove(args.unix))
    else:
        server_support.serve_asgi(app, server_support.listen(reuse_address=True), args.cert, args.key)


if __name__ == "__main__":
    main()
