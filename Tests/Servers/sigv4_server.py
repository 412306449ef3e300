#!/usr/bin/env python3
"""A server that checks AWS Signature V4 with botocore, run by the .venv's Python.

    .venv/bin/python sigv4_server.py --key AKID:SECRET [--key ...]

Prints ``PORT <n>`` once it listens on 127.0.0.1 (``--host ::1`` for IPv6) and serves HTTP/1.1
until its stdin reaches EOF (the rule of test_server.py). Every request, any method and path, is
verified: the headers its Authorization names (SignedHeaders), its method, its path and query as
received, its body, and its X-Amz-Date go to botocore's own signer (``S3SigV4Auth`` for the
service ``s3``, else ``SigV4Auth``) with the secret of the access key named in its Credential.
It answers 200 when botocore's signature equals the request's, else 403; the body is JSON:
``{"verified", "expected", "received", "canonicalRequest", "service", "region", "path", "query",
"bodyLength", "answer"}``, ``answer`` counting the server's answers from 1. A verified answer for a
path under ``/cacheable/`` carries ``Cache-Control: max-age=60``; one under ``/slow/`` comes after
half a second.
"""

import argparse
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler

from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

import server_support

KEYS = {}
ANSWERS = [0]
LOCK = threading.Lock()
AUTHORIZATION = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
    r"SignedHeaders=([a-z0-9;\-]+), Signature=([0-9a-f]{64})$")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        if self.path.startswith("/slow/"):
            time.sleep(0.5)
        with LOCK:
            ANSWERS[0] += 1
            body["answer"] = ANSWERS[0]
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if status == 200 and self.path.startswith("/cacheable/"):
            self.send_header("Cache-Control", "max-age=60")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        body = b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path, _, query = self.path.partition("?")
        match = AUTHORIZATION.match(self.headers.get("Authorization", ""))
        if not match:
            return self.answer(401, {"verified": False, "error": "no SigV4 Authorization",
                                     "authorization": self.headers.get("Authorization")})
        key, day, region, service, signed, received = match.groups()
        if key not in KEYS:
            return self.answer(403, {"verified": False, "error": "unknown access key"})
        request = AWSRequest(method=self.command, url=f"http://{self.headers['Host']}{self.path}", data=body)
        for name in signed.split(";"):
            for value in self.headers.get_all(name) or []:
                request.headers[name] = value
        request.context["timestamp"] = self.headers.get("X-Amz-Date", "")
        credentials = Credentials(key, KEYS[key], self.headers.get("X-Amz-Security-Token"))
        signer = (S3SigV4Auth if service == "s3" else SigV4Auth)(credentials, service, region)
        canonical = signer.canonical_request(request)
        expected = signer.signature(signer.string_to_sign(request, canonical), request)
        verified = expected == received and request.context["timestamp"].startswith(day)
        self.answer(200 if verified else 403, {
            "verified": verified, "expected": expected, "received": received, "canonicalRequest": canonical,
            "service": service, "region": region, "path": path, "query": query, "bodyLength": len(body),
        })

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_any


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--key", action="append", default=[], help="ACCESS_KEY_ID:SECRET")
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    for pair in args.key:
        key, _, secret = pair.partition(":")
        KEYS[key] = secret
    server_support.serve(server_support.LoopbackHTTPServer(Handler, host=args.host))


if __name__ == "__main__":
    main()
