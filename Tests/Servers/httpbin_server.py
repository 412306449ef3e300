#!/usr/bin/env python3
"""httpbin on 127.0.0.1 for the Swift test suite, run by the .venv's Python (make deps).

    .venv/bin/python httpbin_server.py

It listens on a port the kernel picks, prints exactly one line ``PORT <n>`` to stdout once it
is listening, and serves httpbin (threaded werkzeug) until SIGTERM/SIGINT or its stdin's EOF, so it cannot
outlive the test process that started it (the same rule as test_server.py).
"""

import logging
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

from httpbin import app  # noqa: E402  (after the warning filters: httpbin warns on import)
from werkzeug.serving import make_server  # noqa: E402

import server_support  # noqa: E402


def main():
    server_support.serve(make_server("127.0.0.1", 0, app, threaded=True))


if __name__ == "__main__":
    sys.exit(main())
