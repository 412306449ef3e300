#!/usr/bin/env bash
# The engine's and the streaming tests on the portable poll() event loop, which systems without
# epoll get (`make test-poll`; CI runs the whole suite on poll() under ThreadSanitizer instead:
# `make tsan EVENT_LOOP=poll`). Built with -DNL_EVENT_LOOP_POLL in .build-poll; run with
# NETWORKLAYER_EVENT_LOOP=poll, which "The event loop is the one the build asked for" checks
# against the loop that was built. `--build-only` builds and stops, so that CI can build it while
# something else runs and run it later without building again.
# The suites: every suite in Tests/NetworkLayerTests/Curl, Streaming and Bodies (streamed uploads),
# and those of Manager/ that time the engine: SUITES below.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
scratch=.build-poll
# The traits of every build of the project (the Makefile's SWIFT_TRAITS).
traits=${SWIFT_TRAITS---traits IntegrationTests}
define=(-Xcc -DNL_EVENT_LOOP_POLL)
SUITES="ConnectionLimitsTests TimeoutAndCancellationTests EngineExecutorTests"

suites=$SUITES
for folder in Curl Streaming Bodies; do
    suites+=" $(grep -h -A2 '^@Suite' Tests/NetworkLayerTests/$folder/*.swift | sed -nE 's/^(final class|struct|class|enum|actor) ([A-Za-z0-9_]+).*/\2/p' | tr '\n' ' ')"
done
filter="\.($(echo $suites | tr ' ' '|'))/"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "== swift build --product NetworkLayerPackageTests ${define[*]} (in $scratch)"
# SwiftPM 6.3 passes the enabled traits' -D flags in a Set's order, drawn anew by each process's hash
# seed, and a new order recompiles every module (swiftlang/swift-package-manager#10525): with a fixed
# seed, the run after `--build-only` finds the suite built.
if ! SWIFT_DETERMINISTIC_HASHING=1 $SWIFT build --product NetworkLayerPackageTests "${define[@]}" --scratch-path "$scratch" $traits >"$out" 2>&1; then
    grep -a "error:" "$out" | head -20
    tail -20 "$out"
    echo "poll(): the suite did not build"
    exit 1
fi
[[ ${1:-} == --build-only ]] && { echo "poll(): built ($(grep -a "complete!" "$out" | tail -1))"; exit 0; }
echo "== swift test --skip-build --filter <$(wc -w <<<"$suites") suites> (in $scratch)"
NETWORKLAYER_EVENT_LOOP=poll $SWIFT test "${define[@]}" --scratch-path "$scratch" $traits --skip-build --filter "$filter" >"$out" 2>&1
code=$?
summary=$(grep -a "Test run with" "$out" | tail -1 | sed 's/^[^T]*//')
if [[ $code -eq 0 ]]; then
    echo "poll(): ok; ${summary:-no summary}"
    exit 0
fi
echo "poll(): FAILED (exit $code); ${summary:-no summary}"
grep -a "recorded an issue\|error:" "$out" | head -20
[[ -n $summary ]] || tail -40 "$out"
exit 1
