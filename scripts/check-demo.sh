#!/usr/bin/env bash
# Runs the demos as a new user would (`make demo`, `make demo-github`, `make demo-chat`, `make demo-ws`) and checks
# what they printed; then the examples' other paths through the programs just built (faster than
# make): GitHubClient's log and its handled errors, ChatClient's deadline and Ctrl-C, and a live
# stream from a loopback chat server (Tests/Servers/chat_server.py), interrupted too.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

work=$(mktemp -d)
server_pid=
cleanup() {
    exec 3>&- 2>/dev/null || true   # the chat server's stdin: its end stops it
    [[ -n $server_pid ]] && wait "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# run NAME STATUS COMMAND…: runs COMMAND, keeps its output (both streams) for expect/refuse, and
# checks its exit status.
run() {
    name=$1 wanted=$2
    shift 2
    status=0
    output=$("$@" 2>&1) || status=$?
    if [[ $status -ne $wanted ]]; then
        echo "$name: exited with $status, expected $wanted" >&2
        echo "--- it printed:" >&2
        echo "$output" >&2
        exit 1
    fi
}
expect() {
    if ! grep -qF -- "$1" <<<"$output"; then
        echo "$name: expected to see: $1" >&2
        echo "--- it printed:" >&2
        echo "$output" >&2
        exit 1
    fi
}
refuse() {
    if grep -qF -- "$1" <<<"$output"; then
        echo "$name: printed what it must not: $1" >&2
        echo "--- it printed:" >&2
        echo "$output" >&2
        exit 1
    fi
}

# --- make demo: the iTunes search, from MockResponses/, with its log. As a first try on a machine
# with no network: the core alone must build, with no trait, no Swift package and no Python. So it
# runs without a network (unshare, where the kernel allows it) and without the system's git
# settings (which point github.com at a local package mirror here): a package to resolve would fail it.
offline=()
unshare -n true 2>/dev/null && offline=(unshare -n)
run "make demo" 0 env GIT_CONFIG_NOSYSTEM=1 "${offline[@]}" make --no-print-directory demo
refuse "Creating .venv"
refuse "Fetching "
if grep -q '"remoteSourceControl"' .build-demo/workspace-state.json 2>/dev/null; then
    echo "make demo: it resolved Swift packages (.build-demo/workspace-state.json): the core demos must need none" >&2
    exit 1
fi
expect "→ GET https://itunes.apple.com/search?limit=3&term=Dream%20Theater [MOCK]"
expect "← 200 GET https://itunes.apple.com/search?limit=3&term=Dream%20Theater"
expect '"collectionName" : "Images and Words"'
expect "3 results"
expect "Dream Theater — Images and Words (9.99)"

# --- make demo-github: octocat's repositories from the mock GitHub, walked twice.
run "make demo-github" 0 make --no-print-directory demo-github
expect "page 1: 200 OK, 3 repositories; rate limit 4999 of 5000 left, resets in 60 min"
expect "page 2: 200 OK, 3 repositories; rate limit 4998 of 5000 left"
expect "page 3: 200 OK, 2 repositories; rate limit 4997 of 5000 left"
expect "8 repositories:"
expect "13100 ★  This repo is for demonstration purposes only."
# The second walk: the unchanged pages are 304s (free), the page whose repository got a star is sent again.
expect "page 1: 304 Not Modified, the 3 repositories kept with its ETag; rate limit 4997 of 5000 left"
expect "page 2: 200 OK, 3 repositories; rate limit 4996 of 5000 left"
expect "page 3: 304 Not Modified, the 2 repositories kept with its ETag; rate limit 4996 of 5000 left"
expect "2 of 3 pages unchanged"
# Server text never reaches the terminal raw: the mock's escape sequence is shown, not sent.
expect 'octocat/test-repo1'
expect '\u{1B}[31mA red description\u{1B}[0m'
refuse $'\e'
# Quiet unless asked (this is a debug build, where the library's log is on by default), and the token never shows.
refuse "[NetworkLayer"
refuse "mock-token-4d1f0c9b7e52"

bin=.build-demo/debug     # where the Makefile builds the core demos (DEMO_BUILD)

name="GitHubClient --verbose"
run "$name" 0 "$bin/GitHubClient" --verbose
expect "→ GET https://api.github.com/users/octocat/repos?per_page=3 [MOCK]"
# Page 2 by the absolute URL the Link header gave, with the token (same origin).
expect "→ GET https://api.github.com/user/583231/repos?per_page=3&page=2 [MOCK]"
expect "Authorization: <redacted>"
expect 'If-None-Match: W/"'
expect "← 304 GET https://api.github.com/users/octocat/repos?per_page=3"
refuse "mock-token-4d1f0c9b7e52"

run "GitHubClient nobody" 1 "$bin/GitHubClient" nobody
expect 'GitHub has no user "nobody" (GitHub says: Not Found).'

run "GitHubClient --token (wrong)" 1 "$bin/GitHubClient" --token wrong-token-5e8a --verbose
expect "GitHub refused the token (GitHub says: Bad credentials)."
refuse "wrong-token-5e8a"

run "GitHubClient --mock-remaining 2" 1 "$bin/GitHubClient" --mock-remaining 2
expect "page 2: 200 OK, 3 repositories; rate limit 0 of 5000 left"
expect "The rate limit is used up for 60 min (GitHub says: API rate limit exceeded for user ID 583231.). Wait for the reset."

run "GitHubClient ../x" 2 "$bin/GitHubClient" ../x
expect '"../x" is neither an option nor a GitHub user name'

# --- make demo-chat: the answer streamed from Examples/ChatClient/MockResponses, paced.
answer="Assistant: Server-sent events are a plain HTTP response that does not end: the server keeps the connection open and writes one \`data:\` line per event, with a blank line after each, whenever it has something to say. A chat API streams its answer this way, a few tokens per event, so the first words show while the rest is still being written."
run "make demo-chat" 0 make --no-print-directory demo-chat
expect "You: What are server-sent events?"
expect "$answer"
expect ", finish_reason stop]"
refuse "[NetworkLayer"

run "ChatClient --timeout 0.5" 124 "$bin/ChatClient" --timeout 0.5
expect ": no complete answer within 0.5 s]"
refuse "still being written."

# interrupt NAME FILE COMMAND…: starts COMMAND, waits for the first piece of the answer, sends it
# SIGINT (Ctrl-C) and checks it stops with 130 before the answer's end.
interrupt() {
    name=$1 file=$2
    shift 2
    "$@" >"$file" 2>&1 &
    local pid=$! i
    for ((i = 0; i < 400; i++)); do
        grep -qs "Assistant: Server" "$file" && break
        sleep 0.05
    done
    kill -INT "$pid"
    status=0
    wait "$pid" || status=$?
    output=$(cat "$file")
    if [[ $status -ne 130 ]]; then
        echo "$name: exited with $status after Ctrl-C, expected 130" >&2
        echo "$output" >&2
        exit 1
    fi
    expect "Assistant: Server"
    expect ": interrupted]"
    refuse "still being written."
}
interrupt "ChatClient, Ctrl-C" "$work/interrupted.txt" "$bin/ChatClient"

# --- A live stream: the same events from a loopback server, as an OpenAI-compatible one sends them.
mkfifo "$work/server-in"
python3 Tests/Servers/chat_server.py --sse Examples/ChatClient/MockResponses/ChatCompletionStream.sse \
    --key live-key-93c1 --interval 0.02 <"$work/server-in" >"$work/server-out" &
server_pid=$!
exec 3>"$work/server-in"
for ((i = 0; i < 200; i++)); do
    port=$(awk '/^PORT/ { print $2 }' "$work/server-out")
    [[ -n $port ]] && break
    sleep 0.05
done
[[ -n $port ]] || { echo "Tests/Servers/chat_server.py did not start" >&2; exit 1; }
host="http://127.0.0.1:$port"

run "ChatClient --host (live)" 0 env OPENAI_API_KEY=live-key-93c1 "$bin/ChatClient" --host "$host" --verbose
expect "$answer"
expect "→ POST $host/v1/chat/completions"
expect "← 200 POST $host/v1/chat/completions"
refuse "live-key-93c1"

run "ChatClient --host (wrong key)" 1 env OPENAI_API_KEY=wrong-key-77ab "$bin/ChatClient" --host "$host"
expect "The API refused the key: check OPENAI_API_KEY (it is never printed)."
refuse "wrong-key-77ab"   # the server quotes it; the library redacts it

interrupt "ChatClient --host (live), Ctrl-C" "$work/interrupted-live.txt" env OPENAI_API_KEY=live-key-93c1 "$bin/ChatClient" --host "$host"
# The cancellation reached the transfer: the server saw its client go (at its next write).
for ((i = 0; i < 100; i++)); do
    stats=$(curl -sS "$host/stats")
    grep -qF '"abandoned": 1' <<<"$stats" && break
    sleep 0.05
done
if ! grep -qF '"abandoned": 1' <<<"$stats"; then
    echo "ChatClient --host (live), Ctrl-C: the server kept streaming to it: $stats" >&2
    exit 1
fi

# --- make demo-ws: a chat over a WebSocket, from the scripted mock MockResponses/ChatSocket.ws.
run "make demo-ws" 0 make --no-print-directory demo-ws
expect "connected to #general over chat.v2"
expect "<grace> Hi Ada! Did the socket connect?"
expect "<ada> It did: through libcurl, pinned and logged."
expect "<grace> Bye for now!"
expect "the server closed the room: 1000 (normal closure) room closed"
# The server's escape sequence is shown, not sent to the terminal.
expect '<grace> \u{1B}[31mThis line tried to paint your terminal red'
refuse $'\e'
run "WebSocketChat --verbose" 0 "$bin/WebSocketChat" --verbose
# The handshake is logged as the socket it opens, with what it offered and what was accepted, and no
# copy-as-curl line (curl would not open the socket).
expect "→ WebSocket wss://chat.example.com/rooms/general/ws [MOCK]"
expect "Upgrade: websocket"
expect "offers subprotocol chat.v2, extension permessage-deflate"
expect "← 101 WebSocket wss://chat.example.com/rooms/general/ws"
expect "accepted subprotocol chat.v2, no extension"
refuse '$ curl'
expect '↑ text 28 bytes: {"name":"ada","type":"join"}'
expect "↓ text 55 bytes"
expect 'WebSocket closed by the server with 1000 (normal closure), reason "room closed"'
refuse $'\e'

echo "make demo: OK (iTunes search with its log, built offline with no trait, no package and no Python; GitHubClient: Link pagination, ETag/304, rate limit, three handled errors, no token printed; ChatClient: streamed from a mock and a loopback server, deadline and Ctrl-C; WebSocketChat: a scripted chat, its log)"
