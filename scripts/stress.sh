#!/usr/bin/env bash
# The long part of the reliability suite (`make stress`): a soak, a cancellation storm, the per-origin
# queue and adaptive limit, the circuit breaker and hedged reads, a leak check under valgrind, and the
# test suite under ThreadSanitizer and AddressSanitizer. Prints a summary table; exits non-zero if any part failed.
# `scripts/stress.sh traffic` (`make stress MODE=traffic`) runs only the parts under traffic control:
# the per-origin queue, the adaptive limit, the circuit breaker and hedged reads (a few minutes).
set -uo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
mode=${1:-all}
[[ $mode == all || $mode == traffic ]] || { echo "usage: scripts/stress.sh [all|traffic]"; exit 2; }
results=()
failed=0
record() { results+=("| $1 | $2 | $3 |"); [[ $2 == ok ]] || failed=1; }
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2], ''))" "$1" "$2"; }

echo "== building the stress runner"
$SWIFT build --product NetworkLayerStress ${SWIFT_TRAITS---traits IntegrationTests} >/dev/null || { echo "build failed"; exit 1; }
runner="$($SWIFT build --show-bin-path)/NetworkLayerStress"

if [[ $mode == all ]]; then
    echo "== soak: 10,000 requests, 500 in flight, 10% cancelled, mixed with faults"
    soak=$("$runner" soak --requests 10000 --in-flight 500 --cancel-ratio 0.1 | tail -1); echo "$soak"
    [[ $(field "$soak" ok) == True ]] && status=ok || status=FAILED
    record "soak" "$status" "$(field "$soak" completedExactlyOnce)/10000 completed exactly once ($(field "$soak" succeeded) ok, $(field "$soak" failed) faults, $(field "$soak" cancelled) cancelled); fds $(field "$soak" fdsBefore)→$(field "$soak" fdsAfter), threads $(field "$soak" threadsBefore)→$(field "$soak" threadsAfter); peak RSS $(field "$soak" peakRSSMB) MB"

    echo "== cancellation storm: 10,000 cancellations before start, during connect and mid-body"
    cancel=$("$runner" cancel --requests 10000 | tail -1); echo "$cancel"
    [[ $(field "$cancel" ok) == True ]] && status=ok || status=FAILED
    record "cancellations" "$status" "$(field "$cancel" cancelled) cancelled, $(field "$cancel" finishedBeforeCancel) finished first, $(field "$cancel" otherErrors) other errors; cancel→completion p50 $(field "$cancel" cancelLatencyMsP50) ms, p99 $(field "$cancel" cancelLatencyMsP99) ms, max $(field "$cancel" cancelLatencyMsMax) ms"

    echo "== coalescing: 10,000 identical GETs in rounds of 100, every other one cancelled while it waits"
    coalesce=$("$runner" coalesce --requests 10000 | tail -1); echo "$coalesce"
    [[ $(field "$coalesce" ok) == True ]] && status=ok || status=FAILED
    record "coalescing" "$status" "$(field "$coalesce" completedExactlyOnce)/10000 completed exactly once ($(field "$coalesce" succeeded) ok, $(field "$coalesce" cancelled) cancelled, $(field "$coalesce" otherErrors) other errors); $(field "$coalesce" transfers) transfers for $(field "$coalesce" rounds) rounds; cancel→completion max $(field "$coalesce" cancelLatencyMsMax) ms; fds $(field "$coalesce" fdsBefore)→$(field "$coalesce" fdsAfter), threads $(field "$coalesce" threadsBefore)→$(field "$coalesce" threadsAfter); peak RSS $(field "$coalesce" peakRSSMB) MB"
fi

echo "== queue: 10,000 requests, 500 at a time, under a per-origin limit of 8, every other one cancelled (mostly while queued)"
queue=$("$runner" queue --requests 10000 --limit 8 --in-flight 500 | tail -1); echo "$queue"
[[ $(field "$queue" ok) == True ]] && status=ok || status=FAILED
record "per-origin queue" "$status" "$(field "$queue" completedExactlyOnce)/10000 completed exactly once ($(field "$queue" succeeded) ok, $(field "$queue" cancelledWhileQueued) cancelled while queued, $(field "$queue" cancelledOnTheWire) on the wire, $(field "$queue" otherErrors) other errors); server peak $(field "$queue" peakInFlight) in flight (limit 8); cancel→completion p99 $(field "$queue" cancelLatencyMsP99) ms, max $(field "$queue" cancelLatencyMsMax) ms; fds $(field "$queue" fdsBefore)→$(field "$queue" fdsAfter), threads $(field "$queue" threadsBefore)→$(field "$queue" threadsAfter); peak RSS $(field "$queue" peakRSSMB) MB"

echo "== adaptive: a healthy origin's latency while a slow one is loaded, without a limit and with .adaptive"
adaptive=$("$runner" adaptive --seconds 10 | tail -1); echo "$adaptive"
[[ $(field "$adaptive" ok) == True ]] && status=ok || status=FAILED
record "adaptive limit" "$status" "healthy p50/p99 $(field "$adaptive" unlimitedHealthyP50Ms)/$(field "$adaptive" unlimitedHealthyP99Ms) ms unlimited (slow origin peak $(field "$adaptive" unlimitedSlowPeakInFlight) in flight), $(field "$adaptive" adaptiveHealthyP50Ms)/$(field "$adaptive" adaptiveHealthyP99Ms) ms adaptive (peak $(field "$adaptive" adaptiveSlowPeakInFlight), limit at the end $(field "$adaptive" adaptiveFinalLimit))"

echo "== circuit breaker: a server slow, then failing, then recovered; 10,000 requests during the outage"
breaker=$("$runner" breaker --requests 10000 | tail -1); echo "$breaker"
[[ $(field "$breaker" ok) == True ]] && status=ok || status=FAILED
record "circuit breaker" "$status" "opened after $(field "$breaker" openedAfter) failures; $(field "$breaker" failedFast)/10000 failed at once (p50 $(field "$breaker" failMsP50) ms, p99 $(field "$breaker" failMsP99) ms, max $(field "$breaker" failMsMax) ms); the server saw $(field "$breaker" serverSawDuringOutage) of them ($(field "$breaker" probes) probes let through); recovered in $(field "$breaker" recoveryMs) ms"

echo "== hedged reads: 2,000 GETs, 20 at a time, 5% of answers taking 1 s, without then with .percentile(95)"
hedge=$("$runner" hedge --requests 2000 | tail -1); echo "$hedge"
[[ $(field "$hedge" ok) == True ]] && status=ok || status=FAILED
record "hedged reads" "$status" "p50/p99 without $(field "$hedge" plainMsP50)/$(field "$hedge" plainMsP99) ms, with $(field "$hedge" hedgedMsP50)/$(field "$hedge" hedgedMsP99) ms (max $(field "$hedge" hedgedMsMax) ms); $(field "$hedge" hedgedServerRequests) requests sent for 2000"

if [[ $mode == all ]]; then
    echo "== leak check: 1,000 requests under valgrind"
    if command -v valgrind >/dev/null; then
        log=$(mktemp)
        # valgrind 3.19 cannot read the DWARF 5 Swift emits, and under it Foundation cannot spawn the
        # server: run a copy without debug info against a server started here.
        stripped=$(mktemp)
        cp "$runner" "$stripped" && strip --strip-debug "$stripped" && chmod +x "$stripped"
        portfile=$(mktemp)
        # The server exits when its standard input closes: hold a FIFO open and close it at the end.
        # (Never an orphaned `sleep | server`: it would keep this script's open files, such as a
        # `flock` held by whoever runs `make stress`, for as long as it sleeps.)
        fifo=$(mktemp -u)
        mkfifo "$fifo"
        python3 Tests/Servers/test_server.py <"$fifo" >"$portfile" &
        server=$!
        exec {hold}>"$fifo"
        for _ in $(seq 50); do grep -q PORT "$portfile" && break; sleep 0.1; done
        port=$(awk '/PORT/ {print $2}' "$portfile")
        valgrind --leak-check=full --log-file="$log" "$stripped" leak --requests 1000 --port "$port" >/dev/null
        exec {hold}>&-
        wait "$server" 2>/dev/null
        rm -f "$stripped" "$portfile" "$fifo"
        lost=$(grep -o "definitely lost: [0-9,]* bytes in [0-9,]* blocks" "$log" | tail -1)
        if [[ -z $lost ]] && grep -q "All heap blocks were freed" "$log"; then
            lost="definitely lost: 0 bytes (all heap blocks were freed)"
        fi
        if [[ -z $lost ]]; then
            lost="valgrind did not finish: $(grep -m1 -i "error\|denied\|impossible" "$log")"
        fi
        [[ $lost == "definitely lost: 0 bytes"* ]] && status=ok || status=FAILED
        record "valgrind, 1,000 requests" "$status" "$lost"
        rm -f "$log"
    else
        record "valgrind" "FAILED" "valgrind is not installed"
    fi

    for sanitizer in thread address; do
        # The output goes on to standard error as it comes, kept in a file to read the summary line
        # from. (Not `tee /dev/stderr`: reopening a log file given as standard error, as in
        # `make stress > log 2>&1`, truncated it and lost the lines before.)
        output=$(mktemp)
        scripts/sanitize.sh "$sanitizer" | tee "$output" >&2
        line=$(grep -- "--sanitize=$sanitizer:" "$output" | tail -1)
        rm -f "$output"
        [[ $line == *": ok;"* ]] && status=ok || status=FAILED
        record "--sanitize=$sanitizer" "$status" "${line#*: }"
    done
fi

echo
echo "| part | result | details |"
echo "|---|---|---|"
printf '%s\n' "${results[@]}"
exit $failed
