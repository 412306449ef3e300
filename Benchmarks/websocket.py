#!/usr/bin/env python3
"""The WebSocket scenario of `make bench`: NetworkLayer's WebSocket against Vapor's websocket-kit
client, both talking to Hummingbird's echo server (SwiftNIO) on 127.0.0.1, in one run.

    python3 Benchmarks/websocket.py [--quick] [--runs 3]

Workloads: 100,000 text messages of 32 bytes, and 1 GiB in 64 KiB binary messages; each client
sends from one task while it reads the echoes, compression off. Clients run interleaved, `--runs`
times each (default 3); the table gives the median. Builds the three products in release first.
"""

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SWIFT = os.environ.get("SWIFT", "swift")
CLIENTS = {"NetworkLayer": "bench-ws-networklayer", "websocket-kit": "bench-ws-kit"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="a tenth of the messages, one run each")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    scale = 10 if args.quick else 1
    workloads = [("100,000 messages of 32 B", 100_000 // scale, 32), ("1 GiB in 64 KiB messages", 16_384 // scale, 65_536)]
    for product in ["bench-ws-echo-server", *CLIENTS.values()]:
        subprocess.run([SWIFT, "build", "-c", "release", "--package-path", str(ROOT), "--product", product], check=True)
    binaries = Path(subprocess.run([SWIFT, "build", "-c", "release", "--package-path", str(ROOT), "--show-bin-path"],
                                   check=True, capture_output=True, text=True).stdout.strip())
    server = subprocess.Popen([str(binaries / "bench-ws-echo-server"), "0"], stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        while line and not line.startswith("PORT "):   # Hummingbird's own log lines come first
            line = server.stdout.readline()
        port = int(line.split()[1])
        rows = []
        for title, count, size in workloads:
            results = {name: [] for name in CLIENTS}
            for _ in range(runs):
                for name, product in CLIENTS.items():
                    output = subprocess.run([str(binaries / product), "--port", str(port), "--messages", str(count), "--size", str(size)],
                                            capture_output=True, text=True, timeout=600)
                    result = [l for l in output.stdout.splitlines() if l.startswith("RESULT ")]
                    if output.returncode != 0 or not result:
                        sys.exit(f"{name} failed on {title}: {output.stdout}{output.stderr}")
                    _, seconds, rate, mbps = result[0].split()
                    results[name].append((float(seconds), float(rate), float(mbps)))
            for name in CLIENTS:
                seconds = statistics.median(r[0] for r in results[name])
                rate = statistics.median(r[1] for r in results[name])
                mbps = statistics.median(r[2] for r in results[name])
                rows.append((title, name, seconds, rate, mbps))
        print("| Workload | Client | Time (s) | Messages/s | MB/s (one way) |")
        print("|---|---|--:|--:|--:|")
        for title, name, seconds, rate, mbps in rows:
            print(f"| {title} | {name} | {seconds:.2f} | {rate:,.0f} | {mbps:,.1f} |")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
