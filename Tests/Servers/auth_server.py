#!/usr/bin/env python3
"""Loopback server for the authentication schemes libcurl speaks, run by the .venv's Python.

    .venv/bin/python auth_server.py [--ntlm-user-file FILE]

Prints ``PORT <n>`` once it listens on 127.0.0.1 and serves HTTP/1.1 with keep-alive until its
stdin reaches EOF (the rule of test_server.py). Endpoints:

  /ntlm            NTLM (pyspnego's acceptor, credentials from --ntlm-user-file, lines
                   ``DOMAIN:user:password``): the handshake runs on one connection, as NTLM
                   requires; 200 {"user": "DOMAIN\\user", "connection": n} once it completes,
                   401 with ``WWW-Authenticate: NTLM`` before, 401 without a challenge when the
                   credentials are wrong; with ``?cacheable`` the 200 carries
                   ``Cache-Control: max-age=60`` and ``"answer"``, the server's count of requests
  /negotiate       401 ``WWW-Authenticate: Negotiate`` to any request without a token (no KDC
                   here: a client without a Kerberos ticket cannot answer)
  /digest-stale    401 with a fresh Digest challenge marked stale=true to every request: a
                   server that never accepts a nonce
  /digest-absurd?kind=
                   401 with a malformed Digest challenge: huge (a 64 KB nonce), unknown
                   (algorithm=MD7, qop=auth-int only), broken (unterminated quotes) or
                   no-nonce (realm, qop and algorithm, no nonce)
  /digest          Digest (MD5, qop=auth, user ``ada``, password ``s3cret-Passw0rd``) checked here:
                   401 with a challenge (one nonce for the server's life) without a valid answer,
                   else 200 {"user", "nc", "connection"}
  /digest-count    {"challenges", "answered", "connections"}: the 401s /digest sent, the requests it
                   accepted, and the connections those came on
  /count           how many requests the server has received
"""

import argparse
import base64
import hashlib
import json
import os
import secrets
import threading
from http.server import BaseHTTPRequestHandler

import spnego

import server_support

requests_seen = 0
DIGEST_NONCE = secrets.token_hex(16)
digest_counts = {"challenges": 0, "answered": 0, "connections": set()}
lock = threading.Lock()
connections = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        global connections
        super().setup()
        with lock:
            connections += 1
            self.connection_number = connections
        self.ntlm = None

    def send(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        global requests_seen
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        with lock:
            requests_seen += 1
        path = self.path.split("?")[0]
        if path == "/ntlm":
            return self.ntlm_step()
        if path == "/negotiate":
            return self.send(401, {"error": "negotiate"}, [("WWW-Authenticate", "Negotiate")])
        if path == "/digest-stale":
            nonce = secrets.token_hex(16)
            challenge = f'Digest realm="stale", nonce="{nonce}", qop="auth", algorithm=MD5, stale=true'
            return self.send(401, {"error": "stale"}, [("WWW-Authenticate", challenge)])
        if path == "/digest-absurd":
            kind = self.path.partition("kind=")[2]
            challenges = {
                "huge": f'Digest realm="r", nonce="{"n" * 65536}", qop="auth"',
                "unknown": 'Digest realm="r", nonce="abc", algorithm=MD7, qop="auth-int"',
                "broken": 'Digest realm="r, nonce="abc, qop=',
                "no-nonce": 'Digest realm="r", qop="auth", algorithm=MD5',
            }
            return self.send(401, {"error": kind}, [("WWW-Authenticate", challenges.get(kind, "Digest"))])
        if path == "/digest":
            return self.digest()
        if path == "/digest-count":
            with lock:
                counts = dict(digest_counts, connections=len(digest_counts["connections"]))
            return self.send(200, counts)
        if path == "/count":
            return self.send(200, {"count": requests_seen})
        self.send(404, {"error": "not found"})

    do_POST = do_GET

    def digest(self):
        def md5(text):
            return hashlib.md5(text.encode()).hexdigest()
        header = self.headers.get("Authorization", "")
        fields = {}
        if header.startswith("Digest "):
            for part in header[7:].split(","):
                name, _, value = part.strip().partition("=")
                fields[name] = value.strip('"')
        expected = None
        if fields.get("username") == "ada" and fields.get("nonce") == DIGEST_NONCE and fields.get("qop") == "auth":
            ha1 = md5("ada:digest:s3cret-Passw0rd")
            ha2 = md5(f"{self.command}:{fields.get('uri', '')}")
            expected = md5(f"{ha1}:{DIGEST_NONCE}:{fields.get('nc', '')}:{fields.get('cnonce', '')}:auth:{ha2}")
        if expected is None or fields.get("response") != expected:
            with lock:
                digest_counts["challenges"] += 1
            challenge = f'Digest realm="digest", nonce="{DIGEST_NONCE}", qop="auth", algorithm=MD5'
            return self.send(401, {"error": "digest"}, [("WWW-Authenticate", challenge)])
        with lock:
            digest_counts["answered"] += 1
            digest_counts["connections"].add(self.connection_number)
        self.send(200, {"user": "ada", "nc": fields.get("nc"), "connection": self.connection_number})

    def ntlm_step(self):
        header = self.headers.get("Authorization", "")
        if not header.startswith("NTLM "):
            self.ntlm = None
            return self.send(401, {"error": "ntlm required"}, [("WWW-Authenticate", "NTLM")])
        token = base64.b64decode(header[5:])
        if self.ntlm is None:
            self.ntlm = spnego.server(protocol="ntlm")
        try:
            answer = self.ntlm.step(token)
        except Exception as error:  # wrong credentials: the handshake ends
            self.ntlm = None
            return self.send(401, {"error": str(error).splitlines()[0]})
        if not self.ntlm.complete:
            value = "NTLM " + base64.b64encode(answer).decode()
            return self.send(401, {"error": "continue"}, [("WWW-Authenticate", value)])
        user = self.ntlm.client_principal
        self.ntlm = None
        if self.path.endswith("?cacheable"):
            return self.send(200, {"user": user, "connection": self.connection_number, "answer": requests_seen},
                             [("Cache-Control", "max-age=60")])
        self.send(200, {"user": user, "connection": self.connection_number})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ntlm-user-file")
    args = parser.parse_args()
    if args.ntlm_user_file:
        os.environ["NTLM_USER_FILE"] = args.ntlm_user_file
    server_support.serve(server_support.LoopbackHTTPServer(Handler))


if __name__ == "__main__":
    main()
