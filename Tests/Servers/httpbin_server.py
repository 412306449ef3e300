#!/usr/bin/env python3
"""httpbin on 127.0.0.1 for the Swift test suite, run by the .venv's Python (make deps).

    .venv/bin/python httpbin_server.py

It listens on a port the kernel picks, prints exactly one line ``PORT <n>`` to stdout once it
is listening, and serves httpbin (threaded werkzeug) until its stdin reaches EOF, so it cannot
outlive the test process that started it (the same rule as test_server.py).
"""

import logging
import os
import sys
import threading
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

from httpbin import app  # noqa: E402  (after the warning filters: httpbin warns on import)
from werkzeug.serving import make_server  # noqa: E402


def watch_stdin():
    while os.read(0, 65536):
        pass
    os._exit(0)


def main():
    threading.Thread(target=watch_stdin, daemon=True).start()
    server = make_server("127.0.0.1", 0, app, threaded=True)
    print("PORT", server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
