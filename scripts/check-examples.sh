#!/usr/bin/env bash
# Builds and runs Examples/SwiftLogBridge, a package of its own that depends on swift-log (the
# library depends on nothing). Its dependency comes from the network the first time: when it
# cannot be resolved (a fresh machine offline), this says so and skips it instead of failing.
# Scratch path: .build-examples/ (ignored by git, like .build/).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
example=Examples/SwiftLogBridge
scratch=.build-examples/SwiftLogBridge
mkdir -p .build-examples
log=.build-examples/SwiftLogBridge-resolve.log

if ! timeout 300 "$SWIFT" package --package-path "$example" --scratch-path "$scratch" resolve >"$log" 2>&1; then
    echo "make test: SKIPPED $example: its dependency swift-log could not be resolved (no network?); see $log"
    exit 0
fi
# SwiftPM keeps the build plan of a path dependency (the library, here) across builds and does not
# notice files added to or removed from it: a renamed library file would then be a "missing input".
# Dropping the cached plan makes it plan again (about a second); compiled objects stay cached.
find "$scratch" -path '*/debug/description.json' -delete 2>/dev/null || true
"$SWIFT" build --package-path "$example" --scratch-path "$scratch" 2>&1 | grep -E "warning:|error:" && {
    echo "make test: $example built with warnings or errors" >&2
    exit 1
}
"$SWIFT" build --package-path "$example" --scratch-path "$scratch" >/dev/null
# `scripts/check-examples.sh --build-only`: CI builds the example while something else runs.
[[ ${1:-} == --build-only ]] && { echo "make test: $example built"; exit 0; }
output=$("$scratch/debug/SwiftLogBridge" 2>&1)
expect() {
    if ! grep -qF -- "$1" <<<"$output"; then
        echo "$example: expected to see: $1" >&2
        echo "--- it printed:" >&2
        echo "$output" >&2
        exit 1
    fi
}
expect "info network: method=GET phase=request request="
expect "phase=response"
expect "status=200 url=https://api.example.com/greeting [SwiftLogBridge] ← 200 GET https://api.example.com/greeting"
expect "answer: Hello from a mock"
if grep -qF "Bearer" <<<"$output"; then
    echo "$example: a credential reached the log" >&2
    exit 1
fi
echo "make test: $example OK (log entries reached swift-log with metadata)"
