#!/usr/bin/env python3
"""`make instructions`: instructions per request (scenarios 1 and 2) and per event (scenario 6), counted by
callgrind, for NetworkLayer's benchmark client and the C libcurl-multi client; fails when scenario 2 grows
more than 3 % over the budget in Benchmarks/instructions-budget.json (issue 49). Benchmarks/README.md,
"Instructions per request, checked in CI", says how to read it.

What it does, in order:
  1. builds Benchmarks' bench-networklayer in release from Benchmarks/InstructionClient (the same sources, in a
     package that depends on the library alone, with no trait: nothing else is resolved or compiled) into
     .build-instructions, and the C client as Benchmarks/run.py builds it;
  2. copies both without their debug information (valgrind 3.19 cannot read Swift 6.3's DWARF);
  3. writes the small JSON object and the event stream and starts nginx on 127.0.0.1 (run.py's fixtures
     and server: the numbers are those of `make bench`'s scenarios);
  4. runs every client under `valgrind --tool=callgrind` at two counts per scenario and takes the
     difference: per request = (5,000-request run − 1,000-request run) / 4,000, which leaves out the
     process's start-up; per event = (one stream of 100,000 events − one small GET) / 100,000. Scenario 2
     (32 in flight) moves from run to run with how the engine's rounds fall, so it takes the median of
     several pairs (--pairs, default 3);
  5. prints the table and checks scenario 2 against the budget: exit status 1 past +3 %.

Options: --pairs N (scenario 2), --no-build, --record [--reason TEXT] (write this measurement as the budget),
--profile FILE (scenario 2's median pair by library and by function, per request, then callgrind_annotate's
own output), --keep (the temporary directory: fixtures, nginx's log, the callgrind files).

--steps [NAME ...] (default: every name bench-networklayer's `--step` accepts) measures, instead of the
table and the budget, scenarios 1 and 2 (the median of --pairs pairs) with no step on and then with each
built-in step on alone, and prints each one's instructions per request, its difference from none and its
ratio to the C client (issue 49: every step says its cost when on). Hedges reach nginx as requests of
their own: they are counted there and shown; the figure includes them.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Benchmarks"))
import run as bench  # noqa: E402  Benchmarks/run.py: the C client's build, the fixtures, nginx

CLIENT_PACKAGE = ROOT / "Benchmarks" / "InstructionClient"
SCRATCH = ROOT / ".build-instructions"
BUDGET = ROOT / "Benchmarks" / "instructions-budget.json"
TOLERANCE = 0.03              # scenario 2 may measure this much over the budget
SMALL, LARGE = 1_000, 5_000   # the two request counts of a pair
CALLGRIND_TIMEOUT = 900       # seconds one run may take under callgrind (about 50 times slower than without)
CLIENTS = {"networklayer": "NetworkLayer", "curl": "C libcurl-multi"}


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def build(skip: bool) -> dict:
    """Builds both clients (unless `skip`) and returns their binaries by client."""
    swift = os.environ.get("SWIFT", "swift")
    if not skip:
        log("building bench-networklayer (swift build -c release, Benchmarks/InstructionClient)")
        subprocess.run([swift, "build", "-c", "release", "--package-path", str(CLIENT_PACKAGE),
                        "--scratch-path", str(SCRATCH), "--product", "bench-networklayer"], check=True)
    bench.build(True, ["curl"])       # the C client only; rebuilt when its source is newer
    binaries = {"networklayer": SCRATCH / "release" / "bench-networklayer", "curl": bench.C_BINARY}
    for binary in binaries.values():
        if not binary.exists():
            sys.exit(f"{binary} is missing: run without --no-build")
    return binaries


def stripped(binaries: dict, work: Path) -> dict:
    """Copies of the binaries without debug information (the symbols stay, for callgrind_annotate)."""
    copies = {}
    for client, binary in binaries.items():
        copy = work / binary.name
        shutil.copy2(binary, copy)
        subprocess.run(["objcopy", "--strip-debug", str(copy)], check=True)
        copies[client] = copy
    return copies


@dataclass
class Count:
    instructions: int
    out: Path          # the callgrind file
    extra: int = 0     # requests nginx served beyond those asked for (hedges, with --step hedging)


class Runner:
    def __init__(self, binaries: dict, nginx, fixtures, work: Path):
        self.binaries, self.nginx, self.fixtures, self.work = binaries, nginx, fixtures, work
        self.runs = 0
        self.seconds = 0.0     # under callgrind, in all

    def count(self, client: str, requests: int, concurrency: int = 1, events: bool = False,
              borrowed: bool = False, steps: tuple = ()) -> Count:
        """One run of `client` under callgrind (with `borrowed`, its events read as views; with `steps`,
        those of bench-networklayer's `--step`s on); exits when a response failed its check."""
        self.runs += 1
        out = self.work / f"callgrind-{self.runs:02d}-{client}-{'events' if events else f'{requests}x{concurrency}'}.out"
        command = [str(self.binaries[client]), "--requests", str(requests), "--concurrency", str(concurrency)]
        if events:
            command += ["--url", self.nginx.url("/events.sse"), "--events", "--expect-bytes",
                        str(self.fixtures.sizes["events"]), "--expect-items", str(self.fixtures.event_count),
                        "--expect-data", str(self.fixtures.event_data_bytes)] + (["--borrowed"] if borrowed else [])
        else:
            command += ["--url", self.nginx.url("/small.json"), "--expect-bytes", str(self.fixtures.sizes["small"])]
        for step in steps:
            command += ["--step", step]
        served_before = self.nginx.counters()[1]
        # In this process's session, not one of its own (as run.py's runs): CI stops the session while a
        # test that measures runs (NETWORKLAYER_PAUSE_WHILE_MEASURING), the client with it.
        started = time.monotonic()
        try:
            done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + command,
                                  capture_output=True, text=True, timeout=CALLGRIND_TIMEOUT)
            output, errors, status = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired:
            output, errors, status = "", f"timed out after {CALLGRIND_TIMEOUT} s", -1
        self.seconds += time.monotonic() - started
        served = self.nginx.counters()[1] - served_before - 1     # the reading itself is one request
        line = next((l for l in output.splitlines() if l.startswith("{")), None)
        result = json.loads(line) if line else {}
        total = re.search(r"^totals: (\d+)$", out.read_text(), re.MULTILINE) if out.exists() else None
        hedged = "hedging" in steps and served > requests      # a hedge is a request nginx serves
        if status != 0 or result.get("ok") != requests or (served != requests and not hedged) or not total:
            sys.exit(f"{' '.join(command)} under callgrind: exit {status}, {result.get('ok', 0)} of {requests} "
                     f"requests ok, nginx served {served}\n" + "\n".join(errors.strip().splitlines()[-8:]))
        what = f"100,000 events{' (views)' * borrowed}" if events else f"{requests:,} request{'s' * (requests != 1)}, {concurrency} in flight"
        log(f"  {client:<13} {what:<30}"
            f" {int(total.group(1)):>15,} instructions" + "".join(f" --step {step}" for step in steps)
            + (f", {served - requests} hedge(s) served" if hedged else ""))
        return Count(int(total.group(1)), out, served - requests)


@dataclass
class Pair:
    small: Count
    large: Count
    per: float         # instructions per request (or per event)


def per_request(runner: Runner, client: str, concurrency: int, steps: tuple = ()) -> Pair:
    small = runner.count(client, SMALL, concurrency, steps=steps)
    large = runner.count(client, LARGE, concurrency, steps=steps)
    return Pair(small, large, (large.instructions - small.instructions) / (LARGE - SMALL))


def per_event(runner: Runner, client: str, borrowed: bool = False) -> Pair:
    stream = runner.count(client, 1, events=True, borrowed=borrowed)
    request = runner.count(client, 1)
    return Pair(request, stream, (stream.instructions - request.instructions) / runner.fixtures.event_count)


def median_pair(pairs: list) -> Pair:
    return sorted(pairs, key=lambda p: p.per)[len(pairs) // 2]


def versions() -> dict:
    def first_line(command):
        try:
            text = subprocess.run(command, capture_output=True, text=True).stdout + ""
        except OSError:
            return "?"
        return text.strip().splitlines()[0] if text.strip() else "?"
    return {"swift": first_line([os.environ.get("SWIFT", "swift"), "--version"]),
            "libcurl": first_line(["curl-config", "--version"]) if shutil.which("curl-config")
            else first_line(["dpkg-query", "-W", "-f=${Version}", "libcurl4"]),
            "glibc": first_line(["ldd", "--version"]),
            "valgrind": first_line(["valgrind", "--version"])}


def commit() -> str:
    """HEAD, and whether the tree differs from it (the budget file aside: --record writes it)."""
    def git(*arguments):
        return subprocess.run(["git", "-C", str(ROOT), *arguments], capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "?"
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", f":!{BUDGET.relative_to(ROOT)}")
    return head + (" with uncommitted changes" if changed else "")


def kilo(value: float) -> str:
    return f"{value / 1000:,.1f} k"


# ---------------------------------------------------------------------------------------------
# The profile (--profile): scenario 2's median pair, the difference per request, by library and by function


def annotate(out: Path, inclusive: bool) -> str:
    return subprocess.run(["callgrind_annotate", "--threshold=100", f"--inclusive={'yes' if inclusive else 'no'}",
                           str(out)], capture_output=True, text=True, check=True).stdout


LINE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S.*?)(?: \[(.+)\])?$")


def functions(text: str, merge_recursion: bool) -> dict:
    """{(object, function): instructions} from callgrind_annotate's function list. A line without its
    object is glibc code inlined from another of its files (`./malloc/arena.c:free`): libc, or ld.so
    for `./elf/`. `merge_recursion` adds a function's recursion levels (`f'2`) to it: right for
    exclusive counts, not for inclusive ones (each level includes the next)."""
    found = {}
    for line in text.splitlines():
        match = LINE.match(line)
        if not match or "PROGRAM TOTALS" in line:
            continue
        where, obj = match.group(2), match.group(3)
        source, _, function = where.partition(":") if ":" in where else ("", "", where)
        if obj is None:
            obj = "ld-linux-x86-64.so.2" if source.startswith("./elf/") else "libc.so.6" if source else "?"
        if merge_recursion:
            function = re.sub(r"'\d+$", "", function)
        key = (obj, function)
        found[key] = found.get(key, 0) + int(match.group(1).replace(",", ""))
    return found


MALLOC = re.compile(r"^(_int_|__libc_)?(malloc|free|calloc|realloc|cfree|memalign|posix_memalign)\b|^malloc_|"
                    r"^tcache|^unlink_chunk|^_int_")
RETAIN = re.compile(r"^swift_(unknownObject|bridgeObject|nonatomic_)?(retain|release)|doDecrementSlow|"
                    r"^swift_arrayDestroy")
EXCLUSIVITY = re.compile(r"^swift_(begin|end)Access|AccessSet::")
ALLOCATION = re.compile(r"^swift_(allocObject|slowAlloc|slowDealloc|deallocObject|deallocClassInstance|"
                        r"deallocUninitializedObject|initStackObject|allocBox|deallocBox)")
ROWS = ["libcurl", "libc malloc/free", "libc other", "NetworkLayer's own code",
        "NetworkLayer's allocation functions for libcurl (nl_malloc, nl_free: buffer_cache.c)",
        "Swift runtime retain/release", "Swift runtime allocation", "Swift runtime exclusivity checks",
        "stdlib (libswiftCore) and the rest of the runtime", "stdlib, specialised into the binary",
        "the binary's other Swift code (outlined helpers, thunks)", "concurrency", "Dispatch", "Foundation",
        "dynamic linking (ld.so: thread-local variables)", "the benchmark client", "other"]


def library(obj: str, function: str, client: str = "bench-networklayer") -> str:
    """The row of ROWS a function's instructions go to."""
    name = Path(obj).name
    if name.startswith("libcurl"):
        return "libcurl"
    if name.startswith("libc.so"):
        return "libc malloc/free" if MALLOC.search(function) else "libc other"
    if name.startswith("libswiftCore"):
        for pattern, row in ((RETAIN, "Swift runtime retain/release"), (ALLOCATION, "Swift runtime allocation"),
                             (EXCLUSIVITY, "Swift runtime exclusivity checks")):
            if pattern.search(function):
                return row
        return "stdlib (libswiftCore) and the rest of the runtime"
    if name.startswith("libswift_Concurrency"):
        return "concurrency"
    if name.startswith("libdispatch"):
        return "Dispatch"
    if name.startswith(("libFoundation", "lib_Foundation")):
        return "Foundation"
    if name.startswith("ld-linux"):
        return "dynamic linking (ld.so: thread-local variables)"
    if name == client:
        if re.match(r"nl_(malloc|free|realloc|strdup|calloc)$", function):
            return "NetworkLayer's allocation functions for libcurl (nl_malloc, nl_free: buffer_cache.c)"
        if function.startswith(("$s12NetworkLayer", "$s8FastJSON", "nl_")):
            return "NetworkLayer's own code"
        if function.startswith(("$s12BenchSupport", "$s17BenchNetworkLayer", "main")):
            return "the benchmark client"
        if function.startswith(("$sS", "$ss")):
            return "stdlib, specialised into the binary"
        if function.startswith("$s10Foundation"):
            return "Foundation"
        return "the binary's other Swift code (outlined helpers, thunks)"
    if name == "curl-multi-bench":
        return "the benchmark client"
    return "other"


def demangle(names: list) -> list:
    """Simplified Swift names; an async function's partial functions (`TQ4_`, `TY6_`) and callgrind's
    recursion levels (`'2`), which the simplified names would merge, keep a tag."""
    plain = [re.sub(r"'\d+$", "", name) for name in names]
    swift = os.environ.get("SWIFT", "swift")
    result = subprocess.run([swift, "demangle", "--simplified"], input="\n".join(plain) + "\n",
                            capture_output=True, text=True)
    lines = result.stdout.splitlines()
    if result.returncode != 0 or len(lines) != len(names):
        return names
    tagged = []
    for name, line in zip(names, lines):
        part = re.search(r"T[QY](\d+)_(?:'\d+)?$", name)
        level = re.search(r"('\d+)$", name)
        tagged.append(line + (f" (partial function {part.group(1)})" if part else "") + (level.group(1) if level else ""))
    return tagged


def profile(pair: Pair, c_pair: Pair, path: Path) -> None:
    """Writes scenario 2's median pair per request: by library (NetworkLayer and the C client), the
    top 30 NetworkLayer and Swift functions exclusive and inclusive, then callgrind_annotate's output."""
    requests = LARGE - SMALL
    sections = [f"Scenario 2 (32 concurrent small GETs), per request: ({LARGE:,}-request run − {SMALL:,}-request run) / "
                f"{requests:,}, the median pair of `make instructions` at {commit()}, {datetime.date.today()}.", ""]

    def difference(p: Pair, inclusive: bool) -> dict:
        large = functions(annotate(p.large.out, inclusive), not inclusive)
        small = functions(annotate(p.small.out, inclusive), not inclusive)
        return {key: (large.get(key, 0) - small.get(key, 0)) / requests for key in set(large) | set(small)}

    exclusive, c_exclusive = difference(pair, False), difference(c_pair, False)
    rows = {row: [0.0, 0.0] for row in ROWS}
    for table, column in ((exclusive, 0), (c_exclusive, 1)):
        for (obj, function), value in table.items():
            rows[library(obj, function)][column] += value
    width = max(map(len, ROWS))
    sections += ["By library (exclusive instructions per request):", "",
                 f"{'':<{width}} {'NetworkLayer':>13} {'C client':>13}"]
    sections += [f"{name:<{width}} {ours:>13,.0f} {theirs:>13,.0f}" for name, (ours, theirs) in rows.items()
                 if round(ours) or round(theirs)]
    sections += [f"{'total':<{width}} {pair.per:>13,.0f} {c_pair.per:>13,.0f}", ""]

    def swift_code(obj: str, function: str) -> bool:
        return not library(obj, function).startswith(("libc", "libcurl", "dynamic", "other", "Foundation"))

    def in_the_library(obj: str, function: str) -> bool:
        """Inclusively, the runtime's functions (a task's resumption, a Dispatch worker) hold everything."""
        return library(obj, function).startswith(("NetworkLayer", "stdlib, specialised", "the binary's"))

    for title, table, wanted in (("exclusive", exclusive, swift_code),
                                 ("inclusive", difference(pair, True), in_the_library)):
        top = sorted(((value, key) for key, value in table.items() if wanted(*key)), reverse=True)[:30]
        names = demangle([function for _, (_, function) in top])
        sections += [f"Top 30 {'NetworkLayer and Swift functions' if title == 'exclusive' else 'functions of the binary (NetworkLayer, specialised stdlib)'}, "
                     f"{title} instructions per request"
                     + (" (an async function's partial functions and callgrind's recursion levels `'2` overlap:"
                        " a resumed task's work is counted under each)" if title == "inclusive" else "") + ":", ""]
        sections += [f"{value:>9,.0f}  {name}  [{Path(obj).name}]" for (value, (obj, _)), name in zip(top, names)]
        sections.append("")
    for title, out in ((f"{LARGE:,} requests", pair.large.out), (f"{SMALL:,} requests", pair.small.out)):
        for inclusive in (False, True):
            sections += [f"==== callgrind_annotate --inclusive={'yes' if inclusive else 'no'}, NetworkLayer, {title} "
                         "(demangled) ====", ""]
            text = annotate(out, inclusive)
            demangled = subprocess.run([os.environ.get("SWIFT", "swift"), "demangle", "--simplified"], input=text,
                                       capture_output=True, text=True).stdout or text
            sections.append(demangled)
    path.write_text("\n".join(sections))
    log(f"profile of scenario 2 written to {path}")


# ---------------------------------------------------------------------------------------------
# Each built-in step's cost when on (--steps)


STEP_NAMES = ["limit", "adaptive", "breaker", "hedging", "events", "middleware", "network-middleware", "retry",
              "log", "log-entries", "sigv4"]     # Options.stepNames in Benchmarks/Sources/BenchSupport/Options.swift


def measure_steps(runner: Runner, names: list, pairs: int) -> None:
    """Scenarios 1 and 2 with no step on, then with each of `names` on alone; prints the table."""
    log("the C client, scenarios 1 and 2")
    c1 = per_request(runner, "curl", 1).per
    c2 = median_pair([per_request(runner, "curl", 32) for _ in range(pairs)]).per
    measured = {}
    for name in [None] + names:
        steps = (name,) if name else ()
        log(f"{'no step' if name is None else f'--step {name}'}: scenario 1, then scenario 2 ({pairs} pair(s))")
        one = per_request(runner, "networklayer", 1, steps)
        two = [per_request(runner, "networklayer", 32, steps) for _ in range(pairs)]
        hedges = sum(p.small.extra + p.large.extra for p in [one] + two)
        measured[name] = (one.per, median_pair(two).per, hedges, (SMALL + LARGE) * (1 + pairs))
    off1, off2, _, _ = measured[None]
    print()
    print(f"Each built-in step on alone, instructions per request counted by callgrind, at {commit()} "
          f"({datetime.date.today()}); scenario 2 the median of {pairs} pair(s):")
    print()
    print("| step | 1. sequential | Δ off | × C | 2. 32 concurrent | Δ off | × C |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for name, (one, two, hedges, requests) in measured.items():
        title = "none (off)" if name is None else f"`{name}`"
        if hedges:
            title += f" ({hedges:,} hedges in {requests:,} requests)"
        delta = lambda value, off: "" if name is None else f"{value - off:+,.0f}"
        print(f"| {title} | {one:,.0f} | {delta(one, off1)} | {one / c1:.2f}× | {two:,.0f} | {delta(two, off2)} | "
              f"{two / c2:.2f}× |")
    print(f"| C libcurl-multi | {c1:,.0f} | | | {c2:,.0f} | | |")
    print()
    print(f"{runner.runs} runs under callgrind, {runner.seconds:.0f} s in all")


# ---------------------------------------------------------------------------------------------
# The budget


def check_budget(measured: float, c_measured: float, pairs: list, record: bool, reason: str) -> int:
    """Compares scenario 2 with the budget (or records it); returns the exit status."""
    budget = json.loads(BUDGET.read_text()) if BUDGET.exists() else None
    if record:
        if budget and measured > budget["instructions_per_request"] and not reason:
            sys.exit("raising the budget needs a reason: --reason \"what the instructions buy\"")
        BUDGET.write_text(json.dumps({
            "what": "scenario 2 (32 concurrent GETs of a 323-byte object from nginx on 127.0.0.1): NetworkLayer's "
                    "bench-networklayer, release, instructions per request counted by callgrind; "
                    f"({LARGE:,}-request run - {SMALL:,}-request run) / {LARGE - SMALL:,}, the median of "
                    f"{len(pairs)} pairs (scripts/instructions.py)",
            "instructions_per_request": round(measured),
            "tolerance_percent": round(TOLERANCE * 100),
            "pairs": [round(p) for p in pairs],
            "c_client_per_request": round(c_measured),
            "measured": str(datetime.date.today()),
            "commit": commit(),
            "versions": versions(),
            "reason": reason or (budget or {}).get("reason", ""),
        }, indent=2, ensure_ascii=False) + "\n")
        print(f"recorded the budget: {measured:,.0f} instructions per request in {BUDGET.relative_to(ROOT)}; "
              "commit it with this output")
        return 0
    if budget is None:
        print(f"no budget yet ({BUDGET.relative_to(ROOT)}): record one with `make instructions INSTRUCTIONS_ARGS=--record`")
        return 1
    allowed = budget["instructions_per_request"] * (1 + budget.get("tolerance_percent", 3) / 100)
    change = measured / budget["instructions_per_request"] - 1
    summary = (f"scenario 2: {measured:,.0f} instructions per request, {change:+.1%} against the budget of "
               f"{budget['instructions_per_request']:,} ({BUDGET.relative_to(ROOT)}, measured {budget['measured']} "
               f"at {budget['commit']}; at most {allowed:,.0f} passes)")
    now, then = versions(), budget.get("versions", {})
    changed = [f"{name}: {then[name]} then, {now[name]} now" for name in now if then.get(name) not in (None, now[name])]
    if changed:
        summary += ("\n  measured with other versions than the budget, which move the count by themselves: "
                    + "; ".join(changed))
    if measured > allowed:
        print(f"✗ {summary}\n"
              "  Find the cost: `make instructions INSTRUCTIONS_ARGS=\"--profile FILE\"` on this commit and on the one\n"
              "  before the change, and compare the functions per request (Benchmarks/README.md, \"Instructions per\n"
              "  request, checked in CI\"). If the cost is wanted, raise the budget in a commit of its own with this\n"
              "  measurement and its reason: `make instructions INSTRUCTIONS_ARGS='--record --reason \"…\"'`.")
        return 1
    print(f"✓ {summary}")
    if change < -TOLERANCE:
        print("  That is below the budget by more than its tolerance: lower it in a commit with this measurement,\n"
              "  `make instructions INSTRUCTIONS_ARGS=--record`, so the next growth is caught.")
    return 0


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=3, help="scenario 2's pairs of runs per client (default 3)")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already built")
    parser.add_argument("--record", action="store_true", help="write this measurement as the budget")
    parser.add_argument("--reason", default="", help="with --record: why the budget moves (needed to raise it)")
    parser.add_argument("--profile", metavar="FILE", help="write scenario 2's profile per request to FILE")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--steps", nargs="*", metavar="NAME", choices=STEP_NAMES,
                        help="instead of the budget check: scenarios 1 and 2 with each built-in step on "
                             f"(default all: {' '.join(STEP_NAMES)})")
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error("--pairs is at least 1")
    if args.steps is not None and (args.record or args.profile):
        parser.error("--steps measures no budget and writes no profile")
    for tool in ("valgrind", "nginx", "objcopy", "callgrind_annotate"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing: `scripts/deps.sh instructions` installs it")

    binaries = build(args.no_build)
    work = Path(tempfile.mkdtemp(prefix="networklayer-instructions-"))
    work.chmod(0o755)                # nginx's worker runs as nobody
    nginx = None

    def terminate(signum, frame):     # nginx and the temporary directory go with this process
        raise KeyboardInterrupt
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, terminate)
    try:
        binaries = stripped(binaries, work)
        fixtures = bench.write_fixtures(work / "www", big=False)
        nginx = bench.Nginx(work, work / "www")
        nginx.start()
        runner = Runner(binaries, nginx, fixtures, work)
        if args.steps is not None:
            measure_steps(runner, args.steps or STEP_NAMES, args.pairs)
            return 0
        log("scenario 1, sequential small GETs")
        s1 = {client: per_request(runner, client, 1) for client in CLIENTS}
        log(f"scenario 2, 32 concurrent small GETs, {args.pairs} pair(s) per client")
        s2 = {client: [] for client in CLIENTS}
        for _ in range(args.pairs):
            for client in CLIENTS:
                s2[client].append(per_request(runner, client, 32))
        log("scenario 6, 100,000 server-sent events")
        s6 = {client: per_event(runner, client) for client in CLIENTS}
        log("scenario 6, the same events read as views (EventStream.forEachEvent)")
        s6_views = per_event(runner, "networklayer", borrowed=True)
        if args.profile:
            profile(median_pair(s2["networklayer"]), median_pair(s2["curl"]), Path(args.profile).resolve())
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    finally:
        if nginx:
            nginx.stop()
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    def spread(pairs: list) -> str:
        values = [p.per for p in pairs]
        if len(values) < 2:
            return f": {kilo(values[0])}"
        median = statistics.median(values)
        return (f"; pairs {', '.join(kilo(v) for v in values)}: "
                f"{(min(values) / median - 1):+.1%} to {(max(values) / median - 1):+.1%} of the median")

    s2_median = {client: median_pair(pairs).per for client, pairs in s2.items()}
    rows = [("1. sequential small GET, per request", s1["networklayer"].per, s1["curl"].per, kilo, ""),
            (f"2. small GET, 32 concurrent, per request (median of {args.pairs})", s2_median["networklayer"],
             s2_median["curl"], kilo, ""),
            ("6. 100,000 server-sent events, per event", s6["networklayer"].per, s6["curl"].per,
             lambda v: f"{v:,.0f}", ""),
            ("6. the same, read as views (`forEachEvent`), per event", s6_views.per, s6["curl"].per,
             lambda v: f"{v:,.0f}", "")]
    print()
    print(f"Instructions counted by callgrind, at {commit()} ({datetime.date.today()}):")
    print()
    print("| scenario | NetworkLayer | C libcurl-multi | × C |")
    print("|---|--:|--:|--:|")
    for title, ours, theirs, shown, _ in rows:
        print(f"| {title} | {shown(ours)} | {shown(theirs)} | {ours / theirs:.2f}× |")
    print()
    for client in CLIENTS:
        print(f"scenario 2, {CLIENTS[client]}{spread(s2[client])}")
    print(f"{runner.runs} runs under callgrind, {runner.seconds:.0f} s in all")
    print()
    return check_budget(s2_median["networklayer"], s2_median["curl"], [p.per for p in s2["networklayer"]],
                        args.record, args.reason)


if __name__ == "__main__":
    sys.exit(main())
