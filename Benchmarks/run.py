#!/usr/bin/env python3
"""The benchmark of issue 7: NetworkLayer against URLSession, AsyncHTTPClient, plain C libcurl and
the load generators, side by side in one run. `make bench` runs it; see Benchmarks/README.md.

What it does, in order:
  1. builds the Swift clients it runs (`swift build -c release --product …` in Benchmarks/) and the C client (cc -O2);
  2. writes the fixtures into a temporary directory: a ~300 B JSON object, a 100 KB JSON array of
     small objects with a known count, a 100 MB file, a text/event-stream of 100,000 small events,
     when scenario 6b or 6bv runs one of 10,000 events of 4 KB, when scenario 7 runs a 1 GiB file
     (deleted with the directory unless --keep);
  3. starts nginx (Debian's nginx-light) on 127.0.0.1 with one worker: HTTP/1.1 in clear on one
     free port, HTTP/2 over TLS (the repository's test certificate) on another;
  4. runs every scenario: each client at least 3 times, interleaved in an order that changes from
     round to round (A, B, C, then B, A, C, then C, A, B...: round_order), each
     run under /usr/bin/time -v for its CPU time and peak RSS, with nginx's stub_status read
     before and after to count the TCP connections the client opened and the requests it sent;
  5. stops nginx (also on Ctrl-C or a failure) and prints a markdown table of the medians.

Options: --quick (fewer requests, one run each), --scenarios 1,2 (6 runs 6v, 6b, 6bv with it; 6v,6b runs
those alone), --clients networklayer,curl, --runs N, --no-build, --save FILE (the table and the machine it
ran on), --keep (the temp dir), --serve (only start nginx with the fixtures, to profile a client by hand).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CERTS = ROOT / "Certificates"
C_SOURCE = BENCH / "c" / "curl_multi_bench.c"
C_BINARY = BENCH / ".build" / "curl-multi-bench"

BIG_SIZE = 100 * 1024 * 1024          # scenario 4's file: 100 MiB
HUGE_SIZE = 1024 * 1024 * 1024        # scenario 7's stream: 1 GiB
EVENT_COUNT = 100_000                 # scenario 6's server-sent events
LARGE_EVENT_COUNT = 10_000            # scenario 6b's, each about LARGE_EVENT_DATA bytes of data
LARGE_EVENT_DATA = 4_000
ITEMS_TARGET = 100 * 1024             # scenario 3's array: the first item count past 100 KiB
MB = 1_000_000                        # MB/s in the table are 10^6 bytes per second
RUN_TIMEOUT = 900                     # seconds one client run may take before it counts as failed


@dataclass
class Scenario:
    key: str             # what --scenarios selects ("4" selects 4m and 4f)
    label: str           # the label in result lines
    title: str
    path: str
    requests: int
    quick_requests: int
    concurrency: int
    fixture: str         # "small", "items", "big", "events", "events-4k", "huge" or "greeting"
    decode: bool = False
    decode_object: bool = False   # decode the small body into a Decodable (issue 16: "with a small Decodable")
    only: tuple = ()              # the clients that run it (empty: all)
    to_file: bool = False
    stream: bool = False          # read the body as a stream, counting its bytes (scenario 7)
    events: bool = False          # read the body as server-sent events, counting them (scenarios 6, 6b)
    borrowed: bool = False        # with `events`: NetworkLayer reads them through `forEachEvent`, as views
                                  # (`--borrowed`, given to BORROWING_CLIENTS only): `only` must name no
                                  # other Swift client, which would make strings; the C client's --events
                                  # makes none either way
    min_runs: int = 0             # runs per client at least (default 3), for scenarios over in milliseconds
    https: bool = False
    http2: bool = False
    loadgen_seconds: float = 5.0
    cache: str = ""               # NetworkLayer's response cache, "memory" or "disk" (scenario 8): nginx sees one request

    @property
    def throughput(self) -> bool:
        """Scenarios 4 and 7 are measured in MB/s, 6 and its variants in events per second, the others in requests
        per second."""
        return self.fixture in ("big", "huge")


SCENARIOS = [
    Scenario("1", "s1", "1. sequential small GET", "/small.json", 5_000, 500, 1, "small"),
    Scenario("2", "s2", "2. small GET, 32 concurrent", "/small.json", 20_000, 2_000, 32, "small"),
    Scenario("3", "s3", "3. 100 KB JSON → [Item], 8 concurrent", "/items.json", 2_000, 200, 8, "items",
             decode=True),
    Scenario("4", "s4-memory", "4. 100 MB download into memory", "/big.bin", 1, 1, 1, "big"),
    Scenario("4", "s4-file", "4. 100 MB download into a file", "/big.bin", 1, 1, 1, "big", to_file=True),
    Scenario("5", "s5", "5. HTTPS small GET, 32 concurrent, HTTP/2", "/small.json", 20_000, 2_000, 32, "small",
             https=True, http2=True),
    # The small GETs again, the body decoded into a small Decodable (NetworkLayer; the C client only
    # transfers, as its reference).
    Scenario("1", "s1-decoded", "1d. sequential small GET → Decodable", "/small.json", 5_000, 500, 1, "small",
             decode_object=True,
             only=("networklayer", "networklayer-executor", "curl")),
    Scenario("2", "s2-decoded", "2d. small GET → Decodable, 32 concurrent", "/small.json", 20_000, 2_000, 32, "small",
             decode_object=True,
             only=("networklayer", "networklayer-executor", "curl")),
    Scenario("5", "s5-decoded", "5d. HTTPS small GET → Decodable, 32 concurrent, HTTP/2", "/small.json", 20_000, 2_000,
             32, "small", https=True, http2=True, decode_object=True,
             only=("networklayer", "networklayer-executor", "curl")),
    # Streaming (issue 14): one response read while it arrives. URLSession on Linux has no
    # bytes(for:): its client streams through the delegate API (URLSessionDataDelegate).
    Scenario("6", "s6", "6. 100,000 server-sent events, streamed", "/events.sse", 1, 1, 1, "events",
             events=True, min_runs=5),
    # The borrowing API (issue 50): NetworkLayer's `forEachEvent` lends each event as a view of the bytes it
    # arrived in, no string made, as the C client counts them; against C only (the other clients make strings).
    # "6" selects these too; "6v", "6b" (with 6bv) or a label selects them alone.
    Scenario("6", "s6-views", "6v. 100,000 server-sent events, read as views", "/events.sse", 1, 1, 1, "events",
             events=True, borrowed=True, min_runs=5, only=("networklayer", "curl")),
    # LLM-sized chunks: 10,000 events of one 4 KB data line each (scenario 6's per-event costs matter less,
    # the bytes per event more), read by every client of scenario 6, then by NetworkLayer as views.
    Scenario("6", "s6b", "6b. 10,000 server-sent events of 4 KB, streamed", "/events-4k.sse", 1, 1, 1, "events-4k",
             events=True, min_runs=5),
    Scenario("6", "s6b-views", "6bv. 10,000 server-sent events of 4 KB, read as views", "/events-4k.sse", 1, 1, 1,
             "events-4k", events=True, borrowed=True, min_runs=5, only=("networklayer", "curl")),
    Scenario("7", "s7", "7. 1 GiB streamed, counted per chunk", "/huge.bin", 1, 1, 1, "huge",
             stream=True, min_runs=5),
    # The response cache (issue 26): the small GET of scenario 1, fresh for an hour, answered by the
    # cache after one priming request. Compared with scenario 1 (a loopback request) in the targets.
    Scenario("8", "s8-memory", "8. sequential small GET, hits of a memory cache", "/cached.json", 10_000, 1_000, 1,
             "small", cache="memory", only=("networklayer",)),
    Scenario("8", "s8-disk", "8d. sequential small GET, hits of a disk cache", "/cached.json", 10_000, 1_000, 1,
             "small", cache="disk", only=("networklayer",)),
    # A generated client (issue 34): Examples/OpenAPIClient's `getGreeting` (a small JSON object
    # decoded into its schema's type) over three transports in one process each; the URL is the
    # client's server URL.
    Scenario("9", "s9", "9. generated OpenAPI client's small GET, 32 concurrent", "/v1", 20_000, 2_000, 32,
             "greeting", only=("openapi-networklayer", "openapi-ahc", "openapi-urlsession")),
]

# The clients, in the order they run and appear in the table.
CLIENTS = ["networklayer", "networklayer-executor", "networklayer-observed", "urlsession", "ahc", "curl", "loadgen",
           "openapi-networklayer", "openapi-ahc", "openapi-urlsession"]
SWIFT_BINARIES = {"networklayer": "bench-networklayer", "networklayer-executor": "bench-networklayer",
                  "networklayer-observed": "bench-networklayer",
                  "urlsession": "bench-urlsession", "ahc": "bench-ahc",
                  "openapi-networklayer": "bench-openapi", "openapi-ahc": "bench-openapi",
                  "openapi-urlsession": "bench-openapi"}
# The generated client's transports (scenario 9 only): `bench-openapi --transport <the rest of the name>`.
OPENAPI_CLIENTS = ("openapi-networklayer", "openapi-ahc", "openapi-urlsession")
# NetworkLayer with its requests sent from a task preferring NetworkManager.engineExecutor (the libcurl
# thread as a task executor, `--engine-executor`): the small-request scenarios only.
EXECUTOR_SCENARIOS = ("s1", "s2", "s5", "s1-decoded", "s2-decoded", "s5-decoded")
# The clients that take `--borrowed` (a scenario's `borrowed`): NetworkLayer's.
BORROWING_CLIENTS = ("networklayer", "networklayer-executor", "networklayer-observed")
# NetworkLayer with TracingMiddleware and MetricsMiddleware on the no-op backends (`--observe`, issue 33):
# scenario 2 only, against plain NetworkLayer.
OBSERVED_SCENARIOS = ("s2",)
CLIENT_NAMES = {"networklayer": "NetworkLayer", "networklayer-executor": "NetworkLayer on engineExecutor",
                "networklayer-observed": "NetworkLayer with tracing and metrics middleware",
                "urlsession": "URLSession", "ahc": "AsyncHTTPClient",
                "curl": "C libcurl-multi", "loadgen": "load generator",
                "openapi-networklayer": "NetworkLayerTransport", "openapi-ahc": "AsyncHTTPClientTransport",
                "openapi-urlsession": "URLSessionTransport"}


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Building


def build(skip_swift: bool, clients: list) -> Path:
    """Builds the Swift clients in release mode and the C client; returns the Swift bin directory."""
    swift = os.environ.get("SWIFT", "swift")
    swift_clients = [c for c in clients if c in SWIFT_BINARIES]
    if swift_clients and not skip_swift:
        # Only the clients asked for: AsyncHTTPClient's first release build alone takes minutes.
        products = sorted({SWIFT_BINARIES[c] for c in swift_clients})
        log(f"building {', '.join(products)} (swift build -c release"
            + ("; the first build of AsyncHTTPClient takes minutes)" if "ahc" in swift_clients else ")"))
        for product in products:
            subprocess.run([swift, "build", "-c", "release", "--product", product], cwd=BENCH, check=True)
    bin_dir = BENCH / ".build" / "release"      # SwiftPM's link to .build/<triple>/release
    for binary in (SWIFT_BINARIES[c] for c in swift_clients):
        if not (bin_dir / binary).exists():
            sys.exit(f"{bin_dir / binary} is missing: build without --no-build")
    if not C_BINARY.exists() or C_BINARY.stat().st_mtime < C_SOURCE.stat().st_mtime:
        C_BINARY.parent.mkdir(parents=True, exist_ok=True)
        cc = os.environ.get("CC", "cc")
        log(f"building {C_BINARY.name} ({cc} -O2)")
        subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-o", str(C_BINARY), str(C_SOURCE), "-lcurl"], check=True)
    return bin_dir


# ---------------------------------------------------------------------------------------------
# Fixtures and nginx


@dataclass
class Fixtures:
    sizes: dict            # fixture name -> body size in bytes
    item_count: int
    event_count: int = 0       # scenario 6: the events in events.sse
    event_data_bytes: int = 0  # and the UTF-8 size of their data fields, joined (the clients' checksum)
    events: dict = field(default_factory=dict)   # every event fixture written -> (events, bytes of their data)

    def events_of(self, fixture: str) -> tuple:
        """(events, bytes of their data) of an event fixture ("events", "events-4k"); (0, 0) for another."""
        return self.events.get(fixture, (0, 0))


TOKENS = [" The", " stream", "ing", " answer", " of", " a", " language", " model", ",", " one", " token",
          " at", " a", " time", ".", " Ünïcödé", " 🙂", "\\n"]


def write_events(path: Path) -> tuple:
    """Scenario 6's text/event-stream: EVENT_COUNT small events shaped like an LLM API's token stream
    (`data: {"i":N,"token":"…",…}`, 60–80 bytes), an `id:` on every 10th, a comment line every
    1,000th and a two-line `data` every 5,000th; LF line ends. Returns (events, bytes of their data)."""
    parts, data_bytes = [], 0
    for i in range(EVENT_COUNT):
        data = json.dumps({"i": i, "token": TOKENS[i % len(TOKENS)], "model": "bench-1", "finish": None},
                          separators=(",", ":"), ensure_ascii=False)
        lines = [data, "[continued]"] if i % 5000 == 4999 else [data]
        if i % 1000 == 0:
            parts.append(": keep-alive\n")
        if i % 10 == 0:
            parts.append(f"id: {i}\n")
        parts.append("".join(f"data: {line}\n" for line in lines) + "\n")
        data_bytes += len("\n".join(lines).encode())
    path.write_text("".join(parts), encoding="utf-8")
    return EVENT_COUNT, data_bytes


def write_large_events(path: Path) -> tuple:
    """Scenario 6b's text/event-stream: LARGE_EVENT_COUNT events shaped like an LLM API's larger chunks, each
    one `data:` line of JSON, `{"i":N,"token":"…"}` of about LARGE_EVENT_DATA bytes (3,988 to 4,000; the
    token: scenario 6's tokens run together from one of their 18 starts, some of them non-ASCII); valid
    UTF-8, no other fields, LF line ends; 1.5 s to write. Returns (events, bytes of their data)."""
    sizes = [len(json.dumps(word, ensure_ascii=False).encode()) - 2 for word in TOKENS]   # in JSON, in UTF-8
    tokens = []             # the token of an event starting at each word: there are only len(TOKENS)
    for first in range(len(TOKENS)):
        words, size, k = [], 0, first
        while size < LARGE_EVENT_DATA - 30:            # {"i":N,"token":""} and the last word fill the rest
            words.append(TOKENS[k % len(TOKENS)])
            size += sizes[k % len(TOKENS)]
            k += 1
        tokens.append("".join(words))
    parts, data_bytes = [], 0
    for i in range(LARGE_EVENT_COUNT):
        data = json.dumps({"i": i, "token": tokens[i % len(TOKENS)]}, separators=(",", ":"), ensure_ascii=False)
        parts.append(f"data: {data}\n\n")
        data_bytes += len(data.encode())
    path.write_text("".join(parts), encoding="utf-8")
    return LARGE_EVENT_COUNT, data_bytes


def write_fixtures(www: Path, huge: bool = False, big: bool = True, large_events: bool = False) -> Fixtures:
    """Writes the fixtures into `www`: scenario 4's 100 MiB file unless `big` is false (scripts/instructions.py
    needs only the small object and the events), scenario 6b's 4 KB events only when `large_events`,
    scenario 7's 1 GiB only when `huge`."""
    www.mkdir()
    small = {"id": 42, "name": "NetworkLayer benchmark", "email": "bench@example.com", "active": True,
             "score": 98.5, "tags": ["swift", "linux", "libcurl"], "created": "2024-01-01T00:00:00Z",
             "address": {"street": "1 Loopback Road", "city": "Localhost", "zip": "12700"},
             "notes": "A small JSON object of about three hundred bytes, like a typical API answer."}
    (www / "small.json").write_text(json.dumps(small, separators=(",", ":")))

    items, text = [], "[]"
    while len(text) < ITEMS_TARGET:
        n = len(items)
        items.append({"id": n, "name": f"item-{n:05d}", "price": round(1 + (n * 7 % 1000) / 4, 2),
                      "active": n % 3 != 0, "tags": ["red", "small"] if n % 2 else ["blue"]})
        text = json.dumps(items, separators=(",", ":"))
    (www / "items.json").write_text(text)

    block = os.urandom(1024 * 1024)
    if big:
        with open(www / "big.bin", "wb") as out:
            for _ in range(BIG_SIZE // len(block)):
                out.write(block)
    events = {"events": write_events(www / "events.sse")}
    if large_events:
        events["events-4k"] = write_large_events(www / "events-4k.sse")
    if huge:     # 1 GiB of the same 1 MiB block: a few seconds; only when scenario 7 runs
        with open(www / "huge.bin", "wb") as out:
            for _ in range(HUGE_SIZE // len(block)):
                out.write(block)
    # Scenario 9: the example's Greeting schema, a message of about the small object's size.
    message = "Hello, Ada! " + "A greeting from the benchmark's nginx, as long as a typical short answer. " * 3
    (www / "greeting.json").write_text(json.dumps({"message": message.strip()}, separators=(",", ":")))
    sizes = {name: (www / f"{name}.{ext}").stat().st_size
             for name, ext in (("small", "json"), ("items", "json"), ("big", "bin"), ("events", "sse"),
                               ("events-4k", "sse"), ("huge", "bin")) if (www / f"{name}.{ext}").exists()}
    # The generated client hands back the decoded message, not the body: its UTF-8 size is what it counts.
    sizes["greeting"] = len(message.strip().encode())
    return Fixtures(sizes=sizes, item_count=len(items), event_count=events["events"][0],
                    event_data_bytes=events["events"][1], events=events)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    """nginx with one worker: HTTP/1.1 in clear and HTTP/2 over TLS on 127.0.0.1, access log off."""

    def __init__(self, prefix: Path, www: Path):
        self.prefix = prefix
        self.http_port = free_port()
        self.https_port = free_port()
        self.probe_log = prefix / "probe.log"
        self.conf = prefix / "nginx.conf"
        locations = f"""
        root {www};
        # Counts connections and requests (read before and after each run).
        location = /nginx_status {{ stub_status; }}
        # The only logged URL: which protocol a client speaks (one probe request per client).
        location = /probe.json {{ access_log {self.probe_log} probe; alias {www}/small.json; }}
        # Scenario 8: the small object, fresh for an hour (a response cache may answer it).
        location = /cached.json {{ alias {www}/small.json; add_header Cache-Control "max-age=3600"; }}
        # Scenario 9: the generated client's getGreeting (GET /greet?name=Ada) under its server URL /v1.
        location = /v1/greet {{ alias {www}/greeting.json; default_type application/json; }}"""
        self.conf.write_text(f"""# Written by Benchmarks/run.py.
worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    log_format probe '$server_protocol $connection';
    types {{ application/json json; application/octet-stream bin; text/event-stream sse; }}
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 1000000;
    keepalive_timeout 65;
    server {{
        listen 127.0.0.1:{self.http_port};{locations}
    }}
    server {{
        listen 127.0.0.1:{self.https_port} ssl http2;
        ssl_certificate {CERTS / 'localhost-chain.pem'};
        ssl_certificate_key {CERTS / 'localhost.key'};
        ssl_protocols TLSv1.2 TLSv1.3;{locations}
    }}
}}
""")
        self.process = None

    def start(self) -> None:
        self.process = subprocess.Popen(["nginx", "-c", str(self.conf), "-p", f"{self.prefix}/"],
                                        stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"nginx exited at start: see {self.prefix / 'error.log'}\n"
                         + (self.prefix / "error.log").read_text(errors="replace"))
            try:
                for port in (self.http_port, self.https_port):
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                log(f"nginx {self.process.pid}: http://127.0.0.1:{self.http_port}  "
                    f"https://127.0.0.1:{self.https_port}")
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        sys.exit("nginx did not start listening within 10 s")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()           # SIGTERM: fast shutdown of master and worker
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def url(self, path: str, https: bool = False) -> str:
        return (f"https://127.0.0.1:{self.https_port}" if https else f"http://127.0.0.1:{self.http_port}") + path

    def counters(self) -> tuple:
        """(accepted connections, requests) so far, from stub_status; this read itself counts as one of each."""
        with urllib.request.urlopen(self.url("/nginx_status"), timeout=10) as response:
            text = response.read().decode()
        accepts, _handled, requests = map(int, text.splitlines()[2].split())
        return accepts, requests


# ---------------------------------------------------------------------------------------------
# Running one client once


@dataclass
class Run:
    rate: float = 0.0          # requests/s, MB/s for scenarios 4 and 7, events/s for scenario 6 and its variants
    mbps: float = 0.0          # scenario 6 and its variants: MB/s besides the events/s
    window_cpu: float = 0.0    # the client's own CPU time from its first request to its last response
    cpu: float = 0.0           # user + system seconds
    rss_mb: float = 0.0        # peak resident set size
    connections: int = 0       # TCP connections nginx accepted during the run
    done: int = 0              # requests completed (wrk's count depends on its duration)
    ok: bool = False
    problem: str = ""
    note: str = ""


def time_v(path: Path) -> tuple:
    """(CPU seconds, peak RSS in MB) from a /usr/bin/time -v report."""
    text = path.read_text(errors="replace")
    def number(name):
        found = re.search(rf"{re.escape(name)}: ([0-9.]+)", text)
        return float(found.group(1)) if found else 0.0
    return (number("User time (seconds)") + number("System time (seconds)"),
            number("Maximum resident set size (kbytes)") / 1024)


def namespace_prefix(https: bool, client: str, work: Path) -> list:
    """URLSession on Linux can only trust the system's CA bundle: give it a private mount namespace
    in which the test CA is bind-mounted over that bundle (nothing outside the process sees it)."""
    if not (https and client == "urlsession"):
        return []
    bundle = "/etc/ssl/certs/ca-certificates.crt"
    script = f'mount --bind "{CERTS / "TestCABundle.pem"}" {bundle} && exec "$@"'
    return ["unshare", "--mount", "sh", "-c", script, "sh"]


def client_command(client: str, scenario: Scenario, requests: int, nginx: Nginx, fixtures: Fixtures,
                   bin_dir: Path, work: Path, path: str = None) -> list:
    url = nginx.url(path or scenario.path, scenario.https)
    size = fixtures.sizes[scenario.fixture]
    if client == "loadgen":
        if scenario.http2:   # h2load: the same request count; C streams on one connection
            return ["h2load", "-n", str(requests), "-c", "1", "-m", str(scenario.concurrency), "-t", "1", url]
        # wrk runs for a duration, not a count; one thread, C connections
        return ["wrk", "-t", "1", "-c", str(scenario.concurrency), "-d", f"{scenario.loadgen_seconds:g}s",
                "--timeout", "60s", url]
    binary = str(C_BINARY) if client == "curl" else str(bin_dir / SWIFT_BINARIES[client])
    command = [binary, "--url", url, "--requests", str(requests), "--concurrency", str(scenario.concurrency),
               "--label", scenario.label, "--expect-bytes", str(size)]
    if scenario.decode:
        command += ["--decode", "--expect-items", str(fixtures.item_count)]
    if scenario.decode_object:
        command += ["--decode-object"]
    if client == "networklayer-executor":
        command += ["--engine-executor"]
    if client == "networklayer-observed":
        command += ["--observe"]
    if client in OPENAPI_CLIENTS:
        command += ["--transport", client.removeprefix("openapi-")]
    if scenario.stream:
        command += ["--stream"]
    if scenario.events:
        event_count, data_bytes = fixtures.events_of(scenario.fixture)
        command += ["--events", "--expect-items", str(event_count), "--expect-data", str(data_bytes)]
        if scenario.borrowed and client in BORROWING_CLIENTS:
            command += ["--borrowed"]
    if scenario.to_file:
        command += ["--output", str(work / f"download-{client}.bin")]
    if scenario.https:
        command += ["--cacert", str(CERTS / "TestCABundle.pem")]
    if scenario.http2:
        command += ["--http2"]
    if scenario.cache:
        command += ["--cache", scenario.cache]
    return namespace_prefix(scenario.https, client, work) + command


def parse_loadgen(output: str, scenario: Scenario, size: int, run: Run, events: int = 0) -> None:
    if scenario.http2:
        finished = re.search(r"finished in ([0-9.]+)(m?s), ([0-9.]+) req/s", output)
        counts = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded", output)
        if not (finished and counts):
            run.problem = "h2load printed no result"
            return
        run.rate = float(finished.group(3))
        total, succeeded = int(counts.group(1)), int(counts.group(3))
        run.done = succeeded
        run.ok = total == succeeded
        run.problem = "" if run.ok else f"{total - succeeded} of {total} failed"
        run.note = "h2load"
        return
    rps = re.search(r"Requests/sec:\s+([0-9.]+)", output)
    done = re.search(r"(\d+) requests in", output)
    if not (rps and done):
        run.problem = "wrk printed no result"
        return
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    bad = (sum(map(int, errors.groups())) if errors else 0) + (int(non2xx.group(1)) if non2xx else 0)
    run.rate = float(rps.group(1)) * (size / MB if scenario.throughput else events if scenario.events else 1)
    run.mbps = float(rps.group(1)) * size / MB
    run.done = int(done.group(1)) * (events if scenario.events else 1)
    run.ok = bad == 0
    run.problem = "" if run.ok else f"{bad} errors"
    run.note = f"wrk, {done.group(1)} requests in {scenario.loadgen_seconds:g} s"


def run_command(command: list, timeout: float = RUN_TIMEOUT) -> tuple:
    """Runs `command` in its own process group, so that a timeout or Ctrl-C ends the client too and not
    only /usr/bin/time; returns (stdout, stderr, exit status)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        output, errors = process.communicate(timeout=timeout)
        return output, errors, process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return "", f"timed out after {timeout:g} s", -1
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise


def round_order(clients, index):
    """The clients' order in round `index`: the listed order and its reverse in turn, each rotated by the
    round's number, so that every client runs first, last and after each of the others about as often:
    a client's speed depends on what ran just before it (Benchmarks/RESULTS.md, "The order of the runs")."""
    order = clients if index % 2 == 0 else clients[::-1]
    shift = index % len(order) if order else 0
    return order[shift:] + order[:shift]


def run_once(client: str, scenario: Scenario, requests: int, nginx: Nginx, fixtures: Fixtures, bin_dir: Path,
             work: Path) -> Run:
    command = client_command(client, scenario, requests, nginx, fixtures, bin_dir, work)
    time_file = work / "time.txt"
    accepts_before, requests_before = nginx.counters()
    output, errors, status = run_command(["/usr/bin/time", "-v", "-o", str(time_file)] + command)
    accepts_after, requests_after = nginx.counters()
    run = Run()
    run.connections = accepts_after - accepts_before - 1
    served = requests_after - requests_before - 1
    if time_file.exists():
        run.cpu, run.rss_mb = time_v(time_file)
        time_file.unlink()
    size = fixtures.sizes[scenario.fixture]

    if client == "loadgen":
        parse_loadgen(output, scenario, size, run, fixtures.events_of(scenario.fixture)[0])
    else:
        line = next((l for l in output.splitlines() if l.startswith("{")), None)
        if line is None:
            run.problem = f"no result line (exit {status}): " + " ".join(errors.strip().splitlines()[-3:])[:200]
            return run
        result = json.loads(line)
        seconds = result["seconds"]
        run.rate = result["bytes"] / seconds / MB if scenario.throughput else result["rps"]
        run.mbps = result["bytes"] / seconds / MB
        run.window_cpu = result.get("cpu", 0.0)
        run.note = result.get("note", "")
        run.done = result["ok"]
        if scenario.events:      # a stream that passed its check had exactly the fixture's events
            event_count = fixtures.events_of(scenario.fixture)[0]
            run.rate = result["ok"] * event_count / seconds
            run.done = result["ok"] * event_count
        expected_bytes = requests * size
        problems = []
        if result["ok"] != requests:
            problems.append(f"{requests - result['ok']} of {requests} failed")
        if result["bytes"] != expected_bytes:
            problems.append(f"{result['bytes']} of {expected_bytes} bytes")
        if served != (1 if scenario.cache else requests):   # a cache scenario: only the priming request
            problems.append(f"server answered {served} requests")
        if scenario.to_file:
            written = work / f"download-{client}.bin"
            if not written.exists() or written.stat().st_size != size:
                problems.append("the file is incomplete")
            written.unlink(missing_ok=True)
        run.ok = not problems
        run.problem = "; ".join(problems)
        if errors.strip() and not run.ok:
            run.problem += " (" + " ".join(errors.strip().splitlines()[:2])[:160] + ")"
    return run


def probe_protocol(client: str, scenario: Scenario, nginx: Nginx, fixtures: Fixtures, bin_dir: Path,
                   work: Path) -> str:
    """The protocol a client speaks to the HTTPS server: two requests to the one logged URL."""
    if client == "loadgen":
        return "HTTP/2.0"
    nginx.probe_log.write_text("")
    command = client_command(client, scenario, 2, nginx, fixtures, bin_dir, work, path="/probe.json")
    run_command(command, timeout=120)
    time.sleep(0.2)      # nginx writes the log line when the request ends
    lines = nginx.probe_log.read_text().split()
    return lines[0] if lines else "?"


# ---------------------------------------------------------------------------------------------
# The table


def fmt_rate(value: float, throughput: bool, mbps: float = 0.0) -> str:
    """The throughput cell: req/s, MB/s, or with `mbps` (scenario 6 and its variants) events/s and MB/s."""
    if value <= 0:
        return "—"
    if mbps > 0:
        return f"{value:,.0f} events/s, {mbps:,.0f} MB/s"
    return f"{value:,.0f} MB/s" if throughput else f"{value:,.0f}"


def cpu_per_request(runs: list, events: bool = False) -> str:
    """Median CPU time per completed request: µs for small requests, ms for a whole download or
    stream. Per event in scenario 6 and its variants, from the client's own CPU time while it streamed (the
    process's start-up would outweigh 100,000 events; the load generator's whole process), in µs with two decimals."""
    values = [(r.window_cpu if events and r.window_cpu else r.cpu) / r.done for r in runs if r.done]
    if not values:
        return "—"
    value = statistics.median(values)
    if events:
        return f"{value * 1e6:.2f} µs"
    return f"{value * 1e6:,.0f} µs" if value < 0.01 else f"{value * 1e3:,.0f} ms"


def ratio(value: float, reference: float) -> str:
    return f"{value / reference:.2f}×" if value > 0 and reference > 0 else "—"


def table(results: dict, scenarios: list, clients: list, protocols: dict) -> str:
    rows = ["| Scenario | Client | req/s (MB/s, events/s) | × C libcurl | × load gen | CPU s | CPU/req (/event) "
            "| Peak RSS MB | TCP conns | Check |",
            "|---|---|--:|--:|--:|--:|--:|--:|--:|---|"]
    for scenario in scenarios:
        medians = {c: statistics.median([r.rate for r in results[(scenario.label, c)]])
                   for c in clients if results.get((scenario.label, c))}
        for client in clients:
            runs = results.get((scenario.label, client))
            if not runs:
                continue
            rate = medians[client]
            loadgen = medians.get("loadgen", 0)
            if scenario.to_file and results.get(("s4-memory", "loadgen")):   # wrk only downloads into memory
                loadgen = statistics.median([r.rate for r in results[("s4-memory", "loadgen")]])
            failed = [r for r in runs if not r.ok]
            check = "✓" if not failed else "✗ " + failed[0].problem
            name = CLIENT_NAMES[client]
            if client == "loadgen":
                name = "h2load" if scenario.http2 else "wrk"
            notes = []
            if scenario.https and protocols.get(client):
                notes.append(protocols[client])
            note = next((r.note for r in runs if r.note and client != "loadgen"), "")
            if note:
                notes.append(note)
            if notes:
                name += f" ({'; '.join(notes)})"
            rows.append("| {} | {} | {} | {} | {} | {:.2f} | {} | {:.0f} | {} | {} |".format(
                scenario.title, name,
                fmt_rate(rate, scenario.throughput,
                         statistics.median([r.mbps for r in runs]) if scenario.events else 0.0),
                ratio(rate, medians.get("curl", 0)), ratio(rate, loadgen),
                statistics.median([r.cpu for r in runs]), cpu_per_request(runs, scenario.events),
                statistics.median([r.rss_mb for r in runs]),
                "/".join(sorted({str(r.connections) for r in runs}, key=int)), check))
    return "\n".join(rows)


def targets(results: dict) -> str:
    """The issues' targets for NetworkLayer, from the medians of this run (each line names its issue)."""
    def median(label, client, attribute="rate"):
        runs = results.get((label, client))
        return statistics.median([getattr(r, attribute) for r in runs]) if runs else None
    lines = []
    def target(text, value, goal, higher_is_better=True):
        if value is None or goal is None:
            return
        met = value >= goal if higher_is_better else value <= goal
        lines.append(f"- {'✓' if met else '✗'} {text}")
    # The ratio to the C client each scenario aims at, and the issue that set it: issue 29 for the
    # scenarios it named (2, 4, 6, 7), issue 50 for 6b (LLM-sized events; its views too), issue 16 for the rest.
    goals = {"s1": (0.9, 16), "s2": (0.8, 29), "s4-memory": (0.95, 29), "s4-file": (0.95, 29), "s5": (0.9, 16),
             "s1-decoded": (0.9, 16), "s2-decoded": (0.9, 16), "s5-decoded": (0.9, 16), "s6": (0.7, 29), "s7": (0.9, 29),
             "s6b": (0.9, 50), "s6b-views": (0.9, 50)}
    for label, title in (("s1", "1"), ("s2", "2"), ("s4-memory", "4 (memory)"), ("s4-file", "4 (file)"), ("s5", "5"),
                         ("s1-decoded", "1 → Decodable"), ("s2-decoded", "2 → Decodable"), ("s5-decoded", "5 → Decodable"),
                         ("s6", "6 (events)"), ("s6b", "6b (4 KB events)"), ("s6b-views", "6bv (4 KB events as views)"),
                         ("s7", "7 (1 GiB stream)")):
        goal, issue = goals[label]
        nl, c = median(label, "networklayer"), median(label, "curl")
        if nl is not None and c:
            target(f"scenario {title}: NetworkLayer {nl / c:.2f}× C libcurl (target ≥ {goal}×, issue {issue})", nl / c, goal)
        executor = median(label, "networklayer-executor")
        if executor is not None and c:
            target(f"scenario {title}: NetworkLayer on engineExecutor {executor / c:.2f}× C libcurl "
                   f"(target ≥ {goal}×, issue {issue})", executor / c, goal)
    plain, observed = median("s2", "networklayer"), median("s2", "networklayer-observed")
    if plain and observed:
        target(f"scenario 2: NetworkLayer with TracingMiddleware + MetricsMiddleware (no-op backends) {observed / plain:.3f}× "
               f"of none (target ≥ 0.97×, issue 33)", observed / plain, 0.97)
    for ours in ("networklayer", "networklayer-executor"):
        nl = median("s2", ours)
        for client, goal, issue in (("ahc", 2, 29), ("urlsession", 15, 16)):   # issue 16 asked 2× AsyncHTTPClient too
            other = median("s2", client)
            if nl and other:
                target(f"scenario 2: {CLIENT_NAMES[ours]} {nl / other:.1f}× {CLIENT_NAMES[client]} (target ≥ {goal}×, issue {issue})",
                       nl / other, goal)
    nl = median("s3", "networklayer")
    for client in ("ahc", "urlsession"):
        other = median("s3", client)
        if nl and other:
            target(f"scenario 3 (decoding): NetworkLayer {nl / other:.1f}× {CLIENT_NAMES[client]} (target ≥ 2×)",
                   nl / other, 2)
    # The generated client (issue 34): NetworkLayerTransport against the other transports.
    nl = median("s9", "openapi-networklayer")
    for client, goal in (("openapi-ahc", 1.2), ("openapi-urlsession", None)):
        other = median("s9", client)
        if nl and other:
            if goal:
                target(f"scenario 9: {CLIENT_NAMES['openapi-networklayer']} {nl / other:.2f}× {CLIENT_NAMES[client]} "
                       f"(target ≥ {goal}×, issue 34)", nl / other, goal)
            else:
                lines.append(f"- ℹ scenario 9: {CLIENT_NAMES['openapi-networklayer']} {nl / other:.2f}× {CLIENT_NAMES[client]}")
    rss = median("s4-file", "networklayer", "rss_mb")
    if rss:
        target(f"scenario 4 into a file: peak RSS {rss:.0f} MB (target < 32 MB)", rss, 32, False)
    rss = median("s4-memory", "networklayer", "rss_mb")
    if rss:
        limit = 2.5 * BIG_SIZE / 1024 / 1024
        target(f"scenario 4 into memory: peak RSS {rss:.0f} MB (target < {limit:.0f} MB, 2.5× the body)",
               rss, limit, False)
    # The response cache (issue 26): a hit costs at most a tenth of a loopback request (scenario 1),
    # and 10,000 hits do not grow memory.
    loopback = median("s1", "networklayer")
    for label, kind in (("s8-memory", "memory"), ("s8-disk", "disk")):
        hits = median(label, "networklayer")
        if hits and loopback:
            target(f"scenario 8 ({kind} cache): a hit costs {loopback / hits:.3f} of a loopback request "
                   f"({1e6 / hits:.1f} µs against {1e6 / loopback:.1f} µs; target ≤ 0.1)", loopback / hits, 0.1, False)
        for run in results.get((label, "networklayer"), [])[:1]:
            growth = re.search(r"rss growth (-?\d+) KB", run.note or "")
            if growth:
                target(f"scenario 8 ({kind} cache): resident size {int(growth.group(1)):+d} KB from the 1,000th hit to the last "
                       "(target ≤ 1024 KB)", int(growth.group(1)), 1024, False)
    # Streaming: the ratios to every client, CPU and memory (issue 29's and 50's ratio targets are checked above;
    # issue 29's memory bound, peak RSS ≤ 40 MB, is in the line). 6v has no target of its own: its line compares
    # the views with C, and with scenario 6's loop.
    for label, title in (("s6", "6 (100,000 events)"), ("s6-views", "6v (100,000 events as views)"),
                         ("s6b", "6b (10,000 events of 4 KB)"), ("s6b-views", "6bv (10,000 events of 4 KB as views)"),
                         ("s7", "7 (1 GiB stream)")):
        nl = median(label, "networklayer")
        if nl is None:
            continue
        parts = [f"{nl / other:.2f}× {CLIENT_NAMES[client]}" for client in ("curl", "ahc", "urlsession")
                 if (other := median(label, client))]
        loop = median(label.removesuffix("-views"), "networklayer") if label.endswith("-views") else None
        if loop:    # events/s across two scenarios' rounds: a rough ratio, CPU per event is the steadier one
            parts.append(f"{nl / loop:.2f}× its `for try await` loop (scenario {title.split()[0].removesuffix('v')})")
        peers = ("networklayer", "ahc", "urlsession", "curl")
        rss = {client: median(label, client, "rss_mb") for client in peers}
        memory = ", ".join(f"{CLIENT_NAMES[c]} {v:.0f} MB" for c, v in rss.items() if v)
        # CPU time is steadier than a wall clock on a shared machine: per event while streaming (6 and its
        # variants), the whole process's for the 1 GiB (7).
        events = label.startswith("s6")
        cpu = {client: cpu_per_request(results[(label, client)], events)
               for client in peers if results.get((label, client))}
        lines.append(f"- ℹ scenario {title}: NetworkLayer {', '.join(parts)}; "
                     f"CPU {'per event' if events else 'for the stream'} "
                     + ", ".join(f"{CLIENT_NAMES[c]} {v}" for c, v in cpu.items())
                     + f"; peak RSS {memory}")
    return "\n".join(lines)


def machine() -> str:
    def out(command):
        try:
            return subprocess.run(command, capture_output=True, text=True, shell=True).stdout.strip()
        except OSError:
            return "?"
    model = out("lscpu | grep 'Model name' | sed 's/Model name:[[:space:]]*//'")
    wrk = out("dpkg-query -W -f='${Version}' wrk")
    commit = out(f"git -C {ROOT} describe --always --dirty=' with uncommitted changes'")
    return "\n".join([
        f"- NetworkLayer at commit {commit}",
        f"- CPU: {model}, `nproc` = {out('nproc')}",
        f"- kernel: {out('uname -sr')}",
        f"- {out('swift --version 2>&1 | head -1')}",
        f"- {out('curl --version | head -1')}",
        f"- {out('nginx -v 2>&1')} (one worker process), wrk {wrk}, {out('h2load --version 2>&1 | head -1')}",
    ])


# ---------------------------------------------------------------------------------------------


def selected(scenario: Scenario, wanted: set) -> bool:
    """Whether --scenarios names `scenario`: by its key ("4": 4 in memory and into a file; "6": 6, 6v, 6b, 6bv),
    by its number in the title and any letters after it ("6b": 6b and 6bv; "1d": 1d only) or by its label."""
    number = scenario.title.split(".", 1)[0]
    return (scenario.key in wanted or scenario.label in wanted
            or any(re.fullmatch(re.escape(w) + "[a-z]*", number) for w in wanted if w))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests, one run each (a smoke run)")
    parser.add_argument("--scenarios", default="1,2,3,4,5,6,7,8,9",
                        help="which scenarios, e.g. 1,2 (default: all); a number selects its variants too "
                             "(6: 6, 6v, 6b, 6bv), a number with its letter one variant and those after it "
                             "(6b: 6b, 6bv), a label one scenario (s6-views)")
    parser.add_argument("--clients", default=",".join(CLIENTS),
                        help=f"which clients (default: {','.join(CLIENTS)}; curl is the C client)")
    parser.add_argument("--runs", type=int, help="runs per client and scenario (default 3, --quick 1)")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already built")
    parser.add_argument("--save", metavar="FILE", help="also write the table and the machine to FILE")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (fixtures, nginx logs)")
    parser.add_argument("--serve", action="store_true",
                        help="only start nginx with the fixtures and wait for Ctrl-C (to profile a client by hand)")
    args = parser.parse_args()

    wanted = set(args.scenarios.split(","))
    scenarios = [s for s in SCENARIOS if selected(s, wanted)]
    clients = [c for c in CLIENTS if c in set(args.clients.split(","))]
    unknown = set(args.clients.split(",")) - set(CLIENTS)
    if unknown or not scenarios or not clients:
        parser.error(f"unknown client {', '.join(sorted(unknown))}" if unknown else "nothing selected")
    runs = args.runs or (1 if args.quick else 3)

    bin_dir = build(args.no_build or args.serve, [] if args.serve else clients)
    work = Path(tempfile.mkdtemp(prefix="networklayer-bench-"))
    work.chmod(0o755)                # nginx's worker runs as nobody
    nginx = None

    def terminate(signum, frame):
        raise KeyboardInterrupt
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, terminate)
    results, protocols = {}, {}
    try:
        log(f"writing fixtures into {work}")
        fixtures = write_fixtures(work / "www", huge=args.serve or any(s.fixture == "huge" for s in scenarios),
                                  large_events=args.serve or any(s.fixture == "events-4k" for s in scenarios))
        log(f"fixtures: small {fixtures.sizes['small']} B, items {fixtures.sizes['items']} B "
            f"({fixtures.item_count} items), big {fixtures.sizes['big']} B, events {fixtures.sizes['events']} B "
            f"({fixtures.event_count} events, {fixtures.event_data_bytes} B of data)"
            + (f", events-4k {fixtures.sizes['events-4k']} B ({fixtures.events_of('events-4k')[0]} events, "
               f"{fixtures.events_of('events-4k')[1]} B of data)" if "events-4k" in fixtures.sizes else "")
            + (f", huge {fixtures.sizes['huge']} B" if "huge" in fixtures.sizes else ""))
        nginx = Nginx(work, work / "www")
        nginx.start()
        if args.serve:
            print(f"serving {', '.join('/' + p.name for p in sorted((work / 'www').iterdir()))} on "
                  f"{nginx.url('/')} and {nginx.url('/', https=True)} (CA: {CERTS / 'TestCABundle.pem'}); "
                  "Ctrl-C stops", flush=True)
            while True:
                time.sleep(3600)
        can_unshare = subprocess.run(["unshare", "--mount", "true"], capture_output=True).returncode == 0

        for scenario in scenarios:
            requests = scenario.quick_requests if args.quick else scenario.requests
            if args.quick:
                scenario.loadgen_seconds = 2.0
            runnable = [c for c in clients
                        if not (scenario.to_file and c == "loadgen")
                        and (not scenario.only or c in scenario.only)
                        and (c != "networklayer-executor" or scenario.label in EXECUTOR_SCENARIOS)
                        and (c != "networklayer-observed" or scenario.label in OBSERVED_SCENARIOS)
                        and (c not in OPENAPI_CLIENTS or scenario.label == "s9")
                        and not (scenario.https and c == "urlsession" and not can_unshare)]
            if scenario.https:
                for client in runnable:
                    protocols[client] = probe_protocol(client, scenario, nginx, fixtures, bin_dir, work)
            scenario_runs = runs if args.quick or args.runs else max(runs, scenario.min_runs)
            log(f"\n{scenario.title}: {requests:,} requests, {scenario_runs} run(s) per client")
            for index in range(scenario_runs):
                for client in round_order(runnable, index):
                    run = run_once(client, scenario, requests, nginx, fixtures, bin_dir, work)
                    results.setdefault((scenario.label, client), []).append(run)
                    log(f"  run {index + 1}/{scenario_runs} {client:<21} {fmt_rate(run.rate, scenario.throughput, run.mbps if scenario.events else 0):>12}"
                        f"  cpu {run.cpu:6.2f} s  rss {run.rss_mb:6.0f} MB  conns {run.connections:>5}"
                        f"  {'ok' if run.ok else 'FAILED: ' + run.problem}")
            if scenario.https and "urlsession" in clients and not can_unshare:
                log("  urlsession skipped: it trusts only the system CA bundle and `unshare --mount` is not allowed")
    except KeyboardInterrupt:
        if args.serve:
            return 0
        log("interrupted")
        return 130
    finally:
        if nginx:
            nginx.stop()
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    report = [table(results, scenarios, clients, protocols), "", targets(results)]
    text = "\n".join(report).rstrip() + "\n"
    print()
    print(text)
    if args.save:
        shown, skip = [], False
        for argument in sys.argv[1:]:       # the command that reproduces the run, without --save
            if skip or argument.startswith("--save"):
                skip = argument == "--save" and not skip
                continue
            shown.append(argument)
        command = "make bench" + (f" BENCH_ARGS=\"{' '.join(shown)}\"" if shown else "")
        more = [s for s in scenarios if s.min_runs > runs and not args.quick and not args.runs]
        more_keys = list(dict.fromkeys(s.key for s in more))    # 6's variants share its key
        header = ["# Benchmark results", "",
                  f"`{command}` on {time.strftime('%Y-%m-%d')}: {runs} run(s) per client and scenario"
                  + (f" ({more[0].min_runs} for scenario{'s' if len(more_keys) > 1 else ''} "
                     f"{' and '.join(more_keys)}, which last milliseconds to seconds)" if more else "")
                  + ", interleaved; the table shows medians. Only ratios within one run compare: the machine "
                  "is shared, and wall-clock numbers move from run to run.", "", machine(), ""]
        Path(args.save).write_text("\n".join(header) + "\n" + text)
        log(f"saved to {args.save}")
    failed = any(not r.ok for runs_ in results.values() for r in runs_)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
