#!/usr/bin/env bash
# `make cache-conformance`: runs the public HTTP cache conformance suite cache-tests
# (https://github.com/http-tests/cache-tests, the suite behind https://cache-tests.fyi) against
# NetworkLayer's response cache, and prints how many of its private-cache cases pass beside the
# browsers' published results on the same cases. Not part of `make test` or CI: it needs node (18 or
# later) and, without a checkout given, the network. See README.md in this folder.
#
#     Tests/CacheConformance/run.sh [path-to-cache-tests-checkout]
#
# Without a path it uses (cloning it the first time) .build-conformance/cache-tests. The suite's
# server (node) answers on one free port, proxy.py on another: a reverse proxy whose cache is the
# worker of this package (NetworkLayer with a memory cache); the suite's client (run.mjs) sends
# every case to the proxy. Everything generated goes to .build-conformance/ (ignored by git).
set -euo pipefail
given=${1:-}
if [[ -n $given ]]; then
    [[ -d $given ]] || { echo "cache-conformance: no directory $given" >&2; exit 1; }
    given=$(cd "$given" && pwd)
fi
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
SWIFT=${SWIFT:-swift}
out=.build-conformance
mkdir -p "$out"

for tool in node python3; do
    command -v $tool >/dev/null || { echo "cache-conformance: needs $tool on PATH (node 18 or later)" >&2; exit 1; }
done

# --- The suite.
upstream=https://github.com/http-tests/cache-tests
if [[ -n $given ]]; then
    suite=$given
else
    suite=$out/cache-tests
    if [[ ! -d $suite ]]; then
        echo "cache-conformance: cloning $upstream into $suite"
        if ! git clone -q --depth 1 "$upstream" "$suite"; then
            rm -rf "$suite"
            cat >&2 <<EOF
cache-conformance: could not clone $upstream (no network?).
Get the suite where the network allows it, with
    git clone $upstream
and pass the checkout's path: Tests/CacheConformance/run.sh /path/to/cache-tests
(a copy of its test-engine/, tests/ and results/ folders is enough).
EOF
            exit 1
        fi
    fi
fi
for file in tests/index.mjs test-engine/client/test.mjs test-engine/server/server.mjs results/chrome.json; do
    [[ -f $suite/$file ]] || { echo "cache-conformance: $suite has no $file: not a cache-tests checkout" >&2; exit 1; }
done
revision=$(git -C "$suite" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")
echo "cache-conformance: cache-tests in $suite ($revision)"

selection=$(node "$here/export.mjs" "$suite" "$out/tests.json")
interim=${selection##*interim=}
# The server and the client use only Node's own modules, except `undici`, which the client imports
# for the cases that expect interim (1xx) responses; none is a private-cache case today.
if [[ $interim != 0 ]] && ! (cd "$suite" && node -e "import('undici')" 2>/dev/null); then
    echo "cache-conformance: $interim cases need the suite's undici: npm install in $suite"
    (cd "$suite" && npm install --omit=dev --no-audit --no-fund)
fi

# --- The worker.
scratch=$out/worker
worker=$scratch/debug/CacheConformanceWorker
echo "cache-conformance: building the worker (Tests/CacheConformance, the library in debug) in $scratch"
# SwiftPM keeps the build plan of a path dependency across builds and does not notice files added to
# or removed from the library; dropping the cached plan makes it plan again (see check-examples.sh).
find "$scratch" -path '*/debug/description.json' -delete 2>/dev/null || true
if ! "$SWIFT" build -c debug --package-path Tests/CacheConformance --scratch-path "$scratch" >"$out/build.log" 2>&1; then
    cat "$out/build.log" >&2
    echo "cache-conformance: the worker did not build" >&2
    exit 1
fi
grep -E "warning:" "$out/build.log" >&2 || true

# --- The run.
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
await_port() { # port, process id, what, log
    for ((i = 0; i < 200; i++)); do
        (: <"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        kill -0 "$2" 2>/dev/null || break
        sleep 0.05
    done
    echo "cache-conformance: $3 did not start; see $4" >&2
    cat "$4" >&2
    exit 1
}

server_port=$(free_port)
npm_config_protocol=http npm_config_port=$server_port npm_config_pidfile=$out/server.pid \
    node "$suite/test-engine/server/server.mjs" >"$out/server.log" 2>&1 &
pids+=($!)
await_port "$server_port" "$!" "the suite's server" "$out/server.log"

proxy_port=$(free_port)
python3 "$here/proxy.py" "$proxy_port" "http://127.0.0.1:$server_port" "$worker" >"$out/proxy.log" 2>&1 &
pids+=($!)
await_port "$proxy_port" "$!" "proxy.py" "$out/proxy.log"

echo "cache-conformance: running the private-cache cases ($selection) through the proxy on port $proxy_port"
node "$here/run.mjs" "$suite" "$out/tests.json" "http://127.0.0.1:$proxy_port" "$out/results.json" "$out/failures.txt"
echo "cache-conformance: each case's result in $out/results.json, the failures in $out/failures.txt"
