#!/usr/bin/env python3
"""A DNS over HTTPS resolver (RFC 8484) for the tests: HTTPS on 127.0.0.1, POST or GET of
``application/dns-message``. Every name's A record is 127.0.0.1; AAAA has no record (NODATA).

The path picks how it answers, so that one server serves every case:

    /dns-query          correct answers
    /random             random bytes
    /truncated          7 bytes of a header
    /wrong-id           a correct answer under another ID
    /ancount-65535      a header announcing 65535 answers, and no answer
    /pointer-loop       a CNAME whose name is a compression pointer to itself
    /cname-only         a CNAME and no address
    /huge               a 10 MB body
    /hang               reads the query and never answers (the events file says when the client goes)
    /fuzz/<seed>/<n>    answer n of a seeded sequence of mutated answers (see mutate)

Every query is written to the events file as ``<path> <type> <name>``. A fuzz answer is never one
that libcurl's decoder (mirrored in decode) would read as an address other than 127.0.0.1: the
tests must not send packets to random addresses.
Standard library only; server_support's launch contract (``PORT <n>``, stops at stdin's EOF).
"""

import argparse
import base64
import http.server
import random
import ssl
import struct
import threading

import server_support

TYPE_A, TYPE_CNAME, TYPE_AAAA = 1, 5, 28
LOOPBACK4 = bytes([127, 0, 0, 1])
HUGE = 10 * 1024 * 1024

arguments = argparse.ArgumentParser()
arguments.add_argument("--cert", required=True)
arguments.add_argument("--key", required=True)
arguments.add_argument("--events", required=True)
options = arguments.parse_args()
events_lock = threading.Lock()


def question(query):
    """(id, name, type, question bytes) of a query; raises on a malformed one."""
    index, labels = 12, []
    while query[index]:
        length = query[index]
        labels.append(query[index + 1:index + 1 + length].decode("ascii", "replace"))
        index += 1 + length
    end = index + 5
    qtype = struct.unpack(">H", query[index + 1:index + 3])[0]
    return query[:2], ".".join(labels), qtype, query[12:end]


def answer(qid, qtype, qbytes):
    records = []
    if qtype == TYPE_A:
        records.append(b"\xc0\x0c" + struct.pack(">HHIH", TYPE_A, 1, 60, 4) + LOOPBACK4)
    header = qid + b"\x81\x80" + struct.pack(">HHHH", 1, len(records), 0, 0)
    return header + qbytes + b"".join(records)


def skip_name(message, index):
    """libcurl 7.88's skipqname: labels up to a zero or a pointer (not followed)."""
    while True:
        if index + 1 > len(message):
            raise ValueError("out of range")
        length = message[index]
        if length & 0xC0 == 0xC0:
            if index + 2 > len(message):
                raise ValueError("out of range")
            return index + 2
        if length & 0xC0:
            raise ValueError("bad label")
        if index + 1 + length > len(message):
            raise ValueError("out of range")
        index += 1 + length
        if length == 0:
            return index


def decode(message, qtype):
    """The addresses libcurl 7.88's doh_decode takes from `message`, or ValueError."""
    if len(message) < 12 or message[0] or message[1] or message[3] & 0x0F:
        raise ValueError("header")
    qdcount, ancount, nscount, arcount = struct.unpack(">HHHH", message[4:12])
    index, addresses = 12, []
    for _ in range(qdcount):
        index = skip_name(message, index) + 4
        if index > len(message):
            raise ValueError("out of range")
    for section, count in ((0, ancount), (1, nscount), (2, arcount)):
        for _ in range(count):
            index = skip_name(message, index)
            if index + 10 > len(message):
                raise ValueError("out of range")
            rtype, rclass, _, rdlength = struct.unpack(">HHIH", message[index:index + 10])
            if section == 0 and rtype not in (TYPE_CNAME, 39, qtype):
                raise ValueError("type")
            if section == 0 and rclass != 1:
                raise ValueError("class")
            index += 10
            if index + rdlength > len(message):
                raise ValueError("out of range")
            if section == 0 and rtype == qtype:
                addresses.append(message[index:index + rdlength])
            index += rdlength
    if index != len(message):
        raise ValueError("malformed")
    return addresses


def mutate(rng, base, qend):
    """One hostile answer made from the correct one `base`: one of several kinds of damage."""
    kind = rng.randrange(9)
    message = bytearray(base)
    if kind == 0:  # random bytes, of any length a DoH body may have
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 700)))
    if kind == 1:  # bytes flipped anywhere
        for _ in range(rng.randrange(1, 8)):
            message[rng.randrange(len(message))] ^= 1 << rng.randrange(8)
    elif kind == 2:  # cut short
        del message[rng.randrange(len(message)):]
    elif kind == 3:  # counts that lie
        message[4:12] = bytes(rng.getrandbits(8) for _ in range(8))
    elif kind == 4:  # compression pointers to anywhere (themselves, past the end, into the header)
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(12, len(message) - 1)
            message[at:at + 2] = struct.pack(">H", 0xC000 | rng.randrange(0, len(message) + 8))
    elif kind == 5:  # an rdlength that lies
        message[-6:-4] = struct.pack(">H", rng.choice([0, 3, 5, 16, 255, 65535]))
    elif kind == 6:  # many records, some of other types and classes
        count = rng.randrange(1, 400)
        records = b""
        for _ in range(count):
            rtype = rng.choice([TYPE_A, TYPE_CNAME, TYPE_AAAA, 2, 16, 65535])
            records += b"\xc0\x0c" + struct.pack(">HHIH", rtype, rng.choice([1, 1, 3]), 60, 4) + LOOPBACK4
        message = bytearray(base[:6] + struct.pack(">H", count) + base[8:qend] + records)
    elif kind == 7:  # a CNAME chain whose names point back into themselves
        name = bytearray()
        for _ in range(rng.randrange(1, 30)):
            name += bytes([rng.randrange(0, 64)]) + bytes(rng.getrandbits(8) for _ in range(3))
        name += struct.pack(">H", 0xC000 | rng.randrange(12, len(base) + len(name)))
        cname = b"\xc0\x0c" + struct.pack(">HHIH", TYPE_CNAME, 1, 60, len(name)) + bytes(name)
        message = bytearray(base[:6] + struct.pack(">H", 1 + (len(base) > qend)) + base[8:qend] + cname + base[qend:])
    else:  # labels longer than 63, or past the end
        at = 12 + rng.randrange(0, 10)
        message[at] = rng.choice([64, 0x80, 0xBF, 255])
    return bytes(message)


def fuzz_answer(seed, number, qid, qtype, qbytes):
    base = answer(qid, qtype, qbytes)
    rng = random.Random(f"{seed}/{number}/{qtype}")
    while True:
        candidate = mutate(rng, base, 12 + len(qbytes))
        try:
            addresses = decode(candidate, qtype)
        except (ValueError, struct.error, IndexError):
            return candidate  # libcurl refuses it too: safe
        if all(address == LOOPBACK4 for address in addresses):
            return candidate


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def do_GET(self):
        path, _, query = self.path.partition("?")
        fields = dict(part.split("=", 1) for part in query.split("&") if "=" in part)
        encoded = fields.get("dns", "")
        self.resolve(path, base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.resolve(self.path, self.rfile.read(length))

    def resolve(self, path, query):
        try:
            qid, name, qtype, qbytes = question(query)
        except (IndexError, struct.error):
            self.send_error(400)
            return
        with events_lock, open(options.events, "a") as events:
            events.write(f"{path} {qtype} {name}\n")
        if path == "/hang":  # until the client goes, which the events file then says
            self.connection.settimeout(120)
            try:
                while self.connection.recv(1):
                    pass
            except (OSError, ssl.SSLError):
                pass
            with events_lock, open(options.events, "a") as events:
                events.write(f"{path} {qtype} {name} closed\n")
            return
        if path == "/huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/dns-message")
            self.send_header("Content-Length", str(HUGE))
            self.end_headers()
            chunk = b"\0" * 65536
            for _ in range(HUGE // len(chunk)):
                self.wfile.write(chunk)
            return
        body = answer(qid, qtype, qbytes)
        if path == "/random":
            body = random.Random(len(query)).randbytes(300)
        elif path == "/truncated":
            body = body[:7]
        elif path == "/wrong-id":
            body = b"\x12\x34" + body[2:]
        elif path == "/ancount-65535":
            body = body[:6] + b"\xff\xff" + body[8:12] + qbytes
        elif path == "/pointer-loop":  # a CNAME whose name is a pointer to itself
            at = 12 + len(qbytes) + 12
            body = body[:6] + b"\x00\x01" + body[8:12] + qbytes + b"\xc0\x0c" \
                + struct.pack(">HHIH", TYPE_CNAME, 1, 60, 2) + struct.pack(">H", 0xC000 | at)
        elif path == "/cname-only":  # an alias and no address
            target = b"\x05alias\x07invalid\x00"
            body = body[:6] + b"\x00\x01" + body[8:12] + qbytes + b"\xc0\x0c" \
                + struct.pack(">HHIH", TYPE_CNAME, 1, 60, len(target)) + target
        elif path.startswith("/fuzz/"):
            _, _, seed, number = path.split("/")
            body = fuzz_answer(seed, number, qid, qtype, qbytes)
        self.send_response(200)
        self.send_header("Content-Type", "application/dns-message")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(server_support.LoopbackHTTPServer):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)

    def finish_request(self, request, client_address):
        # The handshake on the connection's own thread: a client that stalls in it holds no other.
        try:
            request = self.context.wrap_socket(request, server_side=True)
        except (OSError, ssl.SSLError):
            return
        super().finish_request(request, client_address)


Server.context.load_cert_chain(options.cert, options.key)
server_support.serve(Server(Handler))
