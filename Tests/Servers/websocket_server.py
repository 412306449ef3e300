#!/usr/bin/env python3
"""WebSocket server for the WebSocket conformance tests, on `websockets` (PyPI, pinned in
scripts/requirements-test.txt): a strict, widely used implementation as the peer.

    .venv/bin/python websocket_server.py [--compression none|deflate|deflate-no-context|deflate-window-10]
                                         [--tls CERT KEY] [--unix PATH]

It listens on 127.0.0.1 (or the Unix socket PATH), prints ``PORT <n>`` once listening (0 for a
Unix socket), and serves until its stdin reaches EOF.

Paths:
  /echo                      echoes every message, as it came (text or binary)
  /echo-fragmented?size=     echoes every message in fragments of `size` bytes (default 7); a text's
                             fragments split its UTF-8 bytes, code points included
  /headers                   sends the request's headers as a JSON text, then echoes
  /subprotocol               sends the subprotocol it chose (chat.v2 over chat.v1) as text, then echoes
  /close?code=&reason=       closes at once with that code and reason (`status=` for `code=`: the log
                             redacts the value of a query item named `code`, wherever it appears)
  /ping?size=                pings (with `size` bytes, 0-125, if given), waits for the pong with the
                             same payload, sends "pong received", then echoes
  /count?id=                 counts the messages and bytes it receives
  /record                    sends "welcome <Authorization> <the query's api_key>", then echoes; answers
                             "later" with "late" after 0.2 s, "bye" with a close 4001 "see you", and
                             "drop" by dropping the connection without a close frame
  /reject                    answers 403 with the body "no entry for you"
  /redirect                  answers 302 to /echo
  /set-cookie                (plain HTTP) sets the cookie session=abc123
  /stats?id=                 (plain HTTP) {"code": the close code the client sent, "reason": its
                             reason, "messages": count, "bytes": count} for the connection `id`
"""

import argparse
import asyncio
import json
import ssl
import urllib.parse

from websockets.asyncio.server import serve, unix_serve
from websockets.datastructures import Headers
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.http11 import Response

import server_support

STATS = {}


def query(path):
    parsed = urllib.parse.urlsplit(path)
    return parsed.path, dict(urllib.parse.parse_qsl(parsed.query))


def plain(status, reason, body, headers=()):
    data = body.encode()
    # websockets closes the connection after any answer that is not a handshake, so the answer says
    # so: without it a client may reuse the connection before the close arrives, and fail.
    all_headers = Headers([("Content-Type", "application/json"), ("Content-Length", str(len(data))),
                           ("Connection", "close")] + list(headers))
    return Response(status, reason, all_headers, data)


async def process_request(connection, request):
    path, params = query(request.path)
    if path == "/stats":
        return plain(200, "OK", json.dumps(STATS.get(params.get("id"), {})))
    if path == "/reject":
        return plain(403, "Forbidden", '{"error": "no entry for you"}')
    if path == "/set-cookie":
        return plain(200, "OK", "{}", [("Set-Cookie", "session=abc123; Path=/")])
    if path == "/redirect":
        return plain(302, "Found", "{}", [("Location", "/echo")])
    return None


def select_subprotocol(connection, offered):
    for choice in ("chat.v2", "chat.v1"):
        if choice in offered:
            return choice
    return None


async def handler(ws):
    path, params = query(ws.request.path)
    stats = STATS.setdefault(params.get("id", ""), {"messages": 0, "bytes": 0})
    try:
        if path == "/echo":
            async for message in ws:
                await ws.send(message)
        elif path == "/echo-fragmented":
            size = int(params.get("size", "7"))
            async for message in ws:
                data = message.encode() if isinstance(message, str) else message
                await ws.send([data[i:i + size] for i in range(0, len(data), size)] or [data], text=isinstance(message, str))
        elif path == "/headers":
            await ws.send(json.dumps(dict(ws.request.headers.raw_items())))
            async for message in ws:
                await ws.send(message)
        elif path == "/subprotocol":
            await ws.send(ws.subprotocol or "none")
            async for message in ws:
                await ws.send(message)
        elif path == "/close":
            await ws.close(int(params.get("status", params.get("code", "1000"))), params.get("reason", ""))
        elif path == "/record":
            await ws.send(f"welcome {ws.request.headers.get('Authorization', '')} {params.get('api_key', '')}")
            async for message in ws:
                if message == "later":
                    await asyncio.sleep(0.2)
                    await ws.send("late")
                elif message == "bye":
                    await ws.close(4001, "see you")
                elif message == "drop":
                    ws.transport.abort()
                else:
                    await ws.send(message)
        elif path == "/ping":
            size = params.get("size")
            pong = await ws.ping(bytes(i % 256 for i in range(int(size))) if size is not None else b"are you there")
            await asyncio.wait_for(pong, 5)
            await ws.send("pong received")
            async for message in ws:
                await ws.send(message)
        elif path == "/count":
            async for message in ws:
                stats["messages"] += 1
                stats["bytes"] += len(message)
    finally:
        stats["code"] = ws.close_code
        stats["reason"] = ws.close_reason


def extensions(name):
    if name == "none":
        return None, None
    if name == "deflate-no-context":
        return [ServerPerMessageDeflateFactory(server_no_context_takeover=True, client_no_context_takeover=True)], None
    if name == "deflate-window-10":
        return [ServerPerMessageDeflateFactory(server_max_window_bits=10, client_max_window_bits=10)], None
    return None, "deflate"


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compression", default="deflate")
    parser.add_argument("--tls", nargs=2)
    parser.add_argument("--unix")
    args = parser.parse_args()
    factories, compression = extensions(args.compression)
    options = dict(process_request=process_request, select_subprotocol=select_subprotocol, max_size=64 << 20,
                   ping_interval=None, compression=compression, extensions=factories, max_queue=4)
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls[0], args.tls[1])
        options["ssl"] = context
    if args.unix:
        server = await unix_serve(handler, args.unix, **options)
        port = 0
    else:
        server = await serve(handler, "127.0.0.1", 0, **options)
        port = server.sockets[0].getsockname()[1]
    loop = asyncio.get_running_loop()
    stopped = asyncio.Event()
    server_support.on_stop(lambda: loop.call_soon_threadsafe(stopped.set))
    server_support.announce(port)
    await stopped.wait()
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
