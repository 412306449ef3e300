#!/usr/bin/env bash
# Runs `make demo` as a new user would and checks what it printed: the verbose log of a mocked
# request and the decoded iTunes result.
set -euo pipefail
cd "$(dirname "$0")/.."
output=$(make --no-print-directory demo 2>&1)
expect() {
    if ! grep -qF -- "$1" <<<"$output"; then
        echo "make demo: expected to see: $1" >&2
        echo "--- it printed:" >&2
        echo "$output" >&2
        exit 1
    fi
}
expect "→ GET https://itunes.apple.com/search?limit=3&term=Dream%20Theater [MOCK]"
expect "← 200 GET https://itunes.apple.com/search?limit=3&term=Dream%20Theater"
expect '"collectionName" : "Images and Words"'
expect "3 results"
expect "Dream Theater — Images and Words (9.99)"
# The streaming demo: a chat-style answer from MockResponses/ChatCompletionStream.sse, token by token.
output=$(make --no-print-directory demo ARGS="--stream" 2>&1)
expect "→ POST https://api.example.com/v1/chat/completions [MOCK]"
expect "ms, streaming [MOCK]"
expect "Assistant: Hello! I'm streaming this answer token by token, straight from MockResponses/ChatCompletionStream.sse."
expect "⇣ stream of POST https://api.example.com/v1/chat/completions ended after"
echo "make demo: OK (mocked iTunes search printed with its log; --stream printed the streamed answer)"
