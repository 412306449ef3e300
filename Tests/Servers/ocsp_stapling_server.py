#!/usr/bin/env python3
"""HTTPS server that staples an OCSP response, for the OCSP stapling tests (standard library and
the `openssl` CLI only).

    python3 ocsp_stapling_server.py --certificates DIR --stapling good|revoked|none [--record FILE]

Makes, in a temporary directory, an OCSP response for DIR/localhost.pem signed by its issuer
DIR/TestIntermediateCA.pem (`openssl ocsp` answering a request from an index in `openssl ca`'s
format: good, or revoked), then runs `openssl s_server` presenting localhost.pem with the
intermediate as its chain (libcurl verifies a stapled response only with an issuer the server
sent) and that response as its `-status_file` (none: no -status_file, nothing stapled).

It serves `GET /stapling.json` (`{"stapling": "<good|revoked|none>"}`, s_server's -WWW, one
HTTP/1.0 answer per connection). With --record FILE it answers nothing: s_server echoes what each
client sends into FILE, so a test can see whether a request reached it.

Same launch contract as test_server.py: 127.0.0.1, a port the kernel picks, one line ``PORT <n>``
once it listens, and it stops (killing s_server, which also dies with it) at SIGTERM/SIGINT or
when its stdin reaches EOF.
"""

import argparse
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

import server_support

PR_SET_PDEATHSIG = 1


def openssl(*arguments, cwd):
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def x509_field(certificate, field):
    out = subprocess.run(["openssl", "x509", "-in", certificate, "-noout", f"-{field}", "-nameopt", "compat"],
                         check=True, capture_output=True, text=True).stdout.strip()
    return out.split("=", 1)[1]


def make_response(certificates, stapling, directory):
    """Writes directory/response.der: `stapling` ("good" or "revoked") for localhost.pem."""
    leaf = os.path.join(certificates, "localhost.pem")
    issuer = os.path.join(certificates, "TestIntermediateCA.pem")
    issuer_key = os.path.join(certificates, "TestIntermediateCA.key")
    serial = x509_field(leaf, "serial")
    subject = x509_field(leaf, "subject")
    # `openssl ca`'s index: status, expiry, revocation time (R only), serial, file, subject.
    revoked = stapling == "revoked"
    line = "\t".join(["R" if revoked else "V", "21231231235959Z", "240101000000Z,keyCompromise" if revoked else "",
                      serial, "unknown", subject])
    with open(os.path.join(directory, "index.txt"), "w") as index:
        index.write(line + "\n")
    openssl("ocsp", "-issuer", issuer, "-cert", leaf, "-no_nonce", "-reqout", "request.der", cwd=directory)
    openssl("ocsp", "-index", "index.txt", "-CA", issuer, "-rsigner", issuer, "-rkey", issuer_key,
            "-reqin", "request.der", "-respout", "response.der", "-ndays", "1", cwd=directory)


def die_with_parent():
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--certificates", required=True)
    parser.add_argument("--stapling", choices=["good", "revoked", "none"], required=True)
    parser.add_argument("--record")
    args = parser.parse_args()
    certificates = os.path.abspath(args.certificates)

    directory = tempfile.mkdtemp(prefix="ocsp-stapling-")
    server = None

    def cleanup():
        if server and server.poll() is None:
            server.kill()
            server.wait()
        shutil.rmtree(directory, ignore_errors=True)

    try:
        with open(os.path.join(directory, "stapling.json"), "w") as body:
            body.write('{"stapling": "%s"}\n' % args.stapling)
        command = ["openssl", "s_server", "-accept", f"{server_support.LOOPBACK}:0",
                   "-cert", os.path.join(certificates, "localhost.pem"),
                   "-key", os.path.join(certificates, "localhost.key"),
                   "-cert_chain", os.path.join(certificates, "TestIntermediateCA.pem")]
        if args.stapling != "none":
            make_response(certificates, args.stapling, directory)
            command += ["-status_file", "response.der"]
        if not args.record:
            command += ["-WWW"]
        # stdin stays open (never written): in echo mode s_server ends a connection at its EOF.
        server = subprocess.Popen(command, cwd=directory, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
        port = None
        for line in server.stdout:  # "ACCEPT 127.0.0.1:<port>" once it listens
            if line.startswith(b"ACCEPT "):
                port = int(line.rsplit(b":", 1)[1])
                break
        if port is None:
            raise RuntimeError("openssl s_server did not start")
    except Exception as error:
        cleanup()
        print(f"FAILED {error}", flush=True)
        sys.exit(1)

    def copy_output():
        record = open(args.record, "ab", buffering=0) if args.record else None
        for chunk in iter(lambda: server.stdout.read1(65536), b""):
            if record:
                record.write(chunk)

    threading.Thread(target=copy_output, daemon=True).start()
    server_support.wait_for_stop(port)
    server_support.exit_now(cleanup)


if __name__ == "__main__":
    main()
