#!/usr/bin/env python3
"""A frame-level WebSocket server for the bad-input tests (Python 3 standard library only): it
answers the handshake, then writes exactly the bytes a scenario names, however wrong, and
records what the client answers.

    python3 websocket_frames_server.py

It listens on 127.0.0.1, prints ``PORT <n>``, and serves until its stdin reaches EOF.

Handshake paths (GET with Upgrade; `id` names the connection for /results):
  /frames/<scenario>?id=     the scenario's bytes after a correct 101 (permessage-deflate accepted
                             when offered, without parameters), then reads the client's frames: the
                             first close frame is recorded and answered (unless the scenario is
                             "noclose"); pings are recorded and answered unless "nopong"
  /slow-handshake            reads the request, answers nothing for 30 s
  /bad-accept                a 101 whose Sec-WebSocket-Accept is wrong
  /garbage                   bytes that are not HTTP
  /bad-subprotocol           a 101 choosing a subprotocol that was not offered
  /bad-extension             a 101 accepting an extension that was not offered
  /reject                    403 with a JSON body
Plain GET:
  /results?id=               {"close": [code, reason] or null, "pings": n, "written": bytes the
                             scenario managed to write, "stalled": seconds a flood last wrote nothing, "frames": the client's data frames as
                             [[fin, rsv1, opcode, length], ...]}

Scenarios: see SCENARIOS below; each is a list of frames (or raw bytes) to send, or a function
making one (the large ones, made when asked for).
"""

import base64
import hashlib
import json
import socket
import struct
import threading
import time
import urllib.parse
import zlib

import server_support

RESULTS = {}
LOCK = threading.Lock()
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def frame(opcode, payload=b"", fin=True, rsv=0, masked=False, length=None):
    head = bytes([(0x80 if fin else 0) | (rsv << 4) | opcode])
    n = len(payload) if length is None else length
    mask_bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([mask_bit | n])
    elif n < 65536:
        head += bytes([mask_bit | 126]) + struct.pack(">H", n)
    else:
        head += bytes([mask_bit | 127]) + struct.pack(">Q", n)
    if masked:
        key = b"\x01\x02\x03\x04"
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        head += key
    return head + payload


def close_frame(code, reason=b""):
    return frame(8, struct.pack(">H", code) + reason)


def deflated(data):
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    out = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    return out[:-4]


EURO = "€".encode()
SCENARIOS = {
    "rsv2": [frame(1, b"a", rsv=0b010)],
    "rsv1-uncompressed": [frame(1, b"a", rsv=0b100)],
    "opcode3": [frame(3, b"")],
    "opcode11": [frame(11, b"")],
    "masked": [frame(1, b"hi", masked=True)],
    "ping-fragmented": [frame(9, b"", fin=False)],
    "ping-126": [frame(9, b"x" * 126)],
    "continuation-first": [frame(0, b"a")],
    "utf8-invalid": [frame(1, b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited")],
    "utf8-invalid-first-fragment": [frame(1, b"\xed\xa0\x80", fin=False)],
    "length-2-63": [frame(2, b"", length=1 << 63)],
    "too-big": lambda: [frame(2, b"x" * (2 << 20))],
    "bomb": lambda: [frame(2, deflated(b"\0" * (64 << 20)), rsv=0b100)],
    "close-1005": [close_frame(1005)],
    "close-1006": [close_frame(1006)],
    "close-1004": [close_frame(1004)],
    "close-1015": [close_frame(1015)],
    "close-999": [close_frame(999)],
    "close-5000": [close_frame(5000)],
    "close-4001": [close_frame(4001, b"custom")],
    "close-bad-reason": [close_frame(1000, b"\xff")],
    "close-1-byte": [frame(8, b"\x03")],
    "split-utf8-with-ping": [frame(1, b"caf" + EURO[:1], fin=False), frame(9, b"between"),
                             frame(0, EURO[1:2], fin=False), frame(0, EURO[2:] + b"!", fin=True), close_frame(1000)],
    "no-close-frame": [frame(1, b"bye"), "eof"],
    "noclose": [],
    "nopong": [],
    "flood": ["flood"],
    "sink": ["sleep"],
    "compressed-fragments": [frame(1, deflated(b"Hello, " * 100)[:10], fin=False, rsv=0b100),
                             frame(0, deflated(b"Hello, " * 100)[10:], fin=True)],
}


def accept(key):
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return None, {}, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return lines[0].split(" ")[1], headers, rest


def recv_exact(conn, n, buffer):
    while len(buffer) < n:
        chunk = conn.recv(65536)
        if not chunk:
            raise EOFError
        buffer += chunk
    return buffer[:n], buffer[n:]


def read_frames(conn, record, scenario, rest):
    buffer = rest
    while True:
        head, buffer = recv_exact(conn, 2, buffer)
        fin, rsv1, opcode = head[0] >> 7, (head[0] >> 6) & 1, head[0] & 0x0F
        n = head[1] & 0x7F
        if n == 126:
            ext, buffer = recv_exact(conn, 2, buffer)
            n = struct.unpack(">H", ext)[0]
        elif n == 127:
            ext, buffer = recv_exact(conn, 8, buffer)
            n = struct.unpack(">Q", ext)[0]
        key, buffer = (recv_exact(conn, 4, buffer) if head[1] & 0x80 else (b"\0\0\0\0", buffer))
        payload, buffer = recv_exact(conn, n, buffer)
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
        with LOCK:
            if not head[1] & 0x80:
                record["unmasked"] = True
            if opcode == 9:
                record["pings"] += 1
            elif opcode == 10:
                record["pongs"] += 1
            elif opcode in (0, 1, 2):
                record["frames"].append([fin, rsv1, opcode, n])
        if opcode == 9 and scenario != "nopong":
            conn.sendall(frame(10, payload))
        if opcode == 8:
            code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
            with LOCK:
                if record["close"] is None:
                    record["close"] = [code, payload[2:].decode("utf-8", "replace")]
            if scenario != "noclose":
                conn.sendall(payload and close_frame(code) or frame(8))
                return
            time.sleep(30)
            return


def serve(conn):
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    path, headers, rest = read_head(conn)
    if path is None:
        return
    parsed = urllib.parse.urlsplit(path)
    params = dict(urllib.parse.parse_qsl(parsed.query))
    if "upgrade" not in headers:
        body = b"{}"
        if parsed.path == "/results":
            with LOCK:
                body = json.dumps(RESULTS.get(params.get("id"), {})).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        return
    key = headers.get("sec-websocket-key", "")
    if parsed.path == "/slow-handshake":
        time.sleep(30)
        return
    if parsed.path == "/garbage":
        conn.sendall(b"\x00\x01garbage that is not HTTP\r\n\r\n")
        time.sleep(1)
        return
    if parsed.path == "/reject":
        body = b'{"error": "no entry"}'
        conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        return
    answer = accept(key) if parsed.path != "/bad-accept" else accept(key + "x")
    lines = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: " + answer]
    if parsed.path == "/bad-subprotocol":
        lines.append("Sec-WebSocket-Protocol: not.offered")
    if parsed.path == "/bad-extension":
        lines.append("Sec-WebSocket-Extensions: x-unknown")
    if "permessage-deflate" in headers.get("sec-websocket-extensions", ""):
        lines.append("Sec-WebSocket-Extensions: permessage-deflate")
    conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    if not parsed.path.startswith("/frames/"):
        time.sleep(1)
        return
    scenario = parsed.path[len("/frames/"):]
    record = {"close": None, "pings": 0, "pongs": 0, "written": 0, "frames": []}
    with LOCK:
        RESULTS[params.get("id", "")] = record
    items = SCENARIOS.get(scenario, [])
    for item in (items() if callable(items) else items):
        if item == "eof":
            conn.shutdown(socket.SHUT_WR)
            time.sleep(1)
            return
        if item == "sleep":
            time.sleep(30)
            return
        if item == "flood":
            conn.setblocking(False)
            # Whole frames: what a send left is sent before the next frame starts.
            message = frame(2, b"x" * 65536)
            pending = message
            deadline = time.time() + 3
            progress = time.time()
            while time.time() < deadline and record["written"] < (512 << 20):
                try:
                    sent = conn.send(pending)
                    progress = time.time()
                    with LOCK:
                        record["written"] += sent
                    if sent < len(pending):
                        time.sleep(0.05)
                        pending = pending[sent:]
                    else:
                        pending = message
                except BlockingIOError:
                    time.sleep(0.05)
            with LOCK:
                record["stalled"] = time.time() - progress
            conn.setblocking(True)
            continue
        conn.sendall(item)
    try:
        read_frames(conn, record, scenario, rest)
    except (EOFError, OSError):
        pass


def main():
    listener = server_support.listen(backlog=64, reuse_address=True)

    def handle(conn):
        try:
            serve(conn)
        except OSError:
            pass
        finally:
            conn.close()

    server_support.accept_in_background(listener, handle)
    server_support.wait_for_stop(server_support.port_of(listener))
    server_support.exit_now()


if __name__ == "__main__":
    main()
