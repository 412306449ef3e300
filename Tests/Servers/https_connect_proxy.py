#!/usr/bin/env python3
"""An HTTPS proxy (TLS to the proxy itself, then CONNECT tunnels) for the Swift test suite.

    .venv/bin/python https_connect_proxy.py DIRECTORY

Run by the .venv's Python (trustme). It makes a CA of its own and a certificate for the IP
address 127.0.0.1 only (not for "localhost", so that it can never pass for an origin server
tested under that name), writes the CA to DIRECTORY/proxy-ca.pem, listens on 127.0.0.1 on a port
the kernel picks, prints exactly one line ``PORT <n>`` once listening, and serves until its
stdin reaches EOF or SIGTERM/SIGINT. Every connection is TLS; each request must be ``CONNECT host:port``, which is
answered 200 and tunnelled byte for byte; anything else gets 405. DIRECTORY/connects.log gets
one line per CONNECT (its target).
"""

import os
import select
import socket
import socketserver
import ssl
import sys
import threading

import trustme

import server_support

directory = sys.argv[1]
ca = trustme.CA()
ca.cert_pem.write_to_path(os.path.join(directory, "proxy-ca.pem"))
certificate = ca.issue_cert("127.0.0.1")
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
certificate.configure_cert(context)
log_lock = threading.Lock()


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        try:
            connection = context.wrap_socket(self.request, server_side=True)
        except (ssl.SSLError, OSError):
            return  # the client refused our certificate
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = connection.recv(4096)
            if not chunk:
                return
            head += chunk
            if len(head) > 65536:
                return
        line = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        if len(line) < 2 or line[0] != "CONNECT":
            connection.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        host, _, port = line[1].rpartition(":")
        with log_lock, open(os.path.join(directory, "connects.log"), "a") as log:
            log.write(line[1] + "\n")
        try:
            upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
        except (OSError, ValueError):
            connection.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        rest = head.split(b"\r\n\r\n", 1)[1]
        if rest:
            upstream.sendall(rest)
        pump(connection, upstream)


def pump(client, upstream):
    sockets = [client, upstream]
    try:
        while True:
            # TLS may hold decrypted bytes that select() cannot see.
            ready = [client] if client.pending() else select.select(sockets, [], [], 30)[0]
            if not ready:
                return
            for source in ready:
                data = source.recv(65536)
                if not data:
                    return
                (upstream if source is client else client).sendall(data)
    except OSError:
        return
    finally:
        upstream.close()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


def main():
    server_support.serve(Server(("127.0.0.1", 0), Handler))


if __name__ == "__main__":
    sys.exit(main())
