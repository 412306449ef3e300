#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer binary of Tests/Fuzz (the checks in Tests/Fuzz/Checks, linked with
# the library built with -sanitize=fuzzer,address and testing enabled) and runs every fuzz target
# for FUZZ_SECONDS seconds (default 40), FUZZ_JOBS at a time (default: one per core; a libFuzzer
# run is one process on one core, so each target gets the same CPU time as run one after another).
# Fails when any target crashes or finds a difference, printing how to reproduce it and where to
# save the input as a regression.
#
# FUZZ_TARGETS="json-decoder retry-after" (a subset), FUZZ_JOBS=1 (one after another).
# FUZZ_CPU_SECONDS=20 (what CI runs) gives each target that much CPU time instead of wall-clock time:
# a run ends once it has used it (libFuzzer is asked to stop, and ends cleanly), however busy the
# machine is meanwhile. CI fuzzes beside the sanitizer suites this way, at the lowest priority
# (see .ci/run).
# Build and working corpus in .build-fuzz/ (ignored by git); the corpus grows from run to run.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
seconds=${FUZZ_SECONDS:-40}
cpu_seconds=${FUZZ_CPU_SECONDS:-}
# Each run's limits: wall-clock time, or CPU time with the wall clock only a backstop for a machine
# that never lets it run. libFuzzer's per-input timeout counts wall-clock time; under a CPU budget
# the run shares the machine at the lowest priority, so one input may wait for a core: 25 s there.
# A spent budget stops the run between two inputs, so an input that hangs is still reported.
if [[ -n $cpu_seconds ]]; then
    wall_seconds=$(( cpu_seconds * 20 )) unit_timeout=25 budget="${cpu_seconds}s of CPU"
else
    wall_seconds=$seconds unit_timeout=10 budget="${seconds}s"
fi
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
scratch=.build-fuzz
binary=$scratch/debug/NetworkLayerFuzz

echo "make fuzz: building the fuzz binary (the library with -sanitize=fuzzer,address) in $scratch"
log=$scratch/build.log
mkdir -p "$scratch"
# ld.gold warns about every sanitizer symbol it cannot export; that noise stays in the log.
if ! "$SWIFT" build --package-path Tests/Fuzz --scratch-path "$scratch" -c debug \
        -Xswiftc -sanitize=fuzzer,address >"$log" 2>&1; then
    grep -v "Cannot export local symbol" "$log" >&2
    echo "make fuzz: the fuzz binary did not build" >&2
    exit 1
fi

# `scripts/fuzz.sh --build-only`: CI builds the binary while something else runs, and fuzzes later.
[[ ${1:-} == --build-only ]] && { echo "make fuzz: built $binary"; exit 0; }

targets=${FUZZ_TARGETS:-$(FUZZ_TARGET=list "$binary" 2>/dev/null)}
[ -n "$targets" ] || { echo "make fuzz: the binary lists no targets" >&2; exit 1; }

# Asks process $1 to stop once it has used $2 seconds of CPU, user and system, as /proc/<pid>/stat
# counts them. SIGUSR1, not SIGINT: on SIGUSR1 libFuzzer only sets a flag its loop reads between
# inputs, then prints its final stats and exits with 0. Its SIGINT handler allocates memory; a SIGINT
# that lands inside the address sanitizer's malloc deadlocks on the allocator's lock until the
# per-input timeout reports the input as a hang (a CI run: origin-prefix, "timeout after 34
# seconds" on an input that runs in 2 ms).
stop_after_cpu() {
    local pid=$1 budget=$2 ticks stat fields
    ticks=$(getconf CLK_TCK)
    while kill -0 "$pid" 2>/dev/null; do
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || break
        read -r -a fields <<<"${stat##*) }"       # the fields after "(comm)": utime and stime are 12th and 13th
        if (( (fields[11] + fields[12]) >= budget * ticks )); then
            kill -USR1 "$pid" 2>/dev/null
            break
        fi
        sleep 0.5
    done
}

# One target: its run, then one summary line in $scratch/<target>.summary and its status in
# $scratch/<target>.status, for the report once every target has ended.
run_target() {
    local target=$1 work=$scratch/corpus/$1 artifacts=$scratch/artifacts/$1
    mkdir -p "$work" "$artifacts"
    local inputs=("$work" "Tests/Fuzz/Corpus/$target")
    [ -d "Tests/Fixtures/FuzzRegressions/$target" ] && inputs+=("Tests/Fixtures/FuzzRegressions/$target")
    local options=(-max_total_time="$wall_seconds" -timeout="$unit_timeout" -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$artifacts/")
    [ -f "Tests/Fuzz/Corpus/$target.dict" ] && options+=(-dict="Tests/Fuzz/Corpus/$target.dict")
    local run_log=$scratch/$target.log status start
    start=$(date +%s)
    # Swift's own crash handler off, so that libFuzzer and the address sanitizer report the crash.
    FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp" \
        "$binary" "${options[@]}" "${inputs[@]}" >"$run_log" 2>&1 &
    local pid=$! code=0
    [[ -n $cpu_seconds ]] && stop_after_cpu "$pid" "$cpu_seconds"
    wait "$pid" || code=$?
    if [[ $code -eq 0 ]]; then
        status=ok
    else
        status=FAILED
    fi
    local runs corpus
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run_log" | tail -1)
    corpus=$(find "$work" -type f | wc -l)
    local cpu=?
    cpu=$(sed -n 's/^==[0-9]*== INFO: libFuzzer: exiting as requested.*/stopped/p' "$run_log" | head -1)
    printf '%-18s %-6s %6ss %10s runs %6s inputs in its corpus%s\n' "$target" "$status" \
        "$(( $(date +%s) - start ))" "${runs:-?}" "$corpus" "${cpu:+ (CPU budget spent)}" >"$scratch/$target.summary"
    echo "$status" >"$scratch/$target.status"
}

total_start=$(date +%s)
echo "make fuzz: $(wc -w <<<"$targets") targets, $budget each, $jobs at a time"
running=0
for target in $targets; do
    rm -f "$scratch/$target.status" "$scratch/$target.summary"
    if (( running >= jobs )); then
        wait -n
        running=$(( running - 1 ))
    fi
    echo "make fuzz: $target for $budget"
    run_target "$target" &
    running=$(( running + 1 ))
done
wait

failed=()
summary=()
for target in $targets; do
    if [ "$(cat "$scratch/$target.status" 2>/dev/null)" != ok ]; then
        failed+=("$target")
        echo "---- $target failed; the end of $scratch/$target.log:" >&2
        grep -v "Cannot export local symbol" "$scratch/$target.log" | tail -40 >&2
    fi
    summary+=("$(cat "$scratch/$target.summary" 2>/dev/null || echo "$target (no summary)")")
done

echo
echo "make fuzz: $(( $(date +%s) - total_start ))s in all"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    cat >&2 <<MSG

make fuzz: ${failed[*]} failed. The failing input is in $scratch/artifacts/<target>/ (crash-*, timeout-*, oom-*).
Reproduce:  FUZZ_TARGET=<target> SWIFT_BACKTRACE=enable=no $binary <that file>
Then save it as Tests/Fixtures/FuzzRegressions/<target>/<what-it-shows> (the suite replays every file
there: FuzzRegressionTests), add a test stating the behaviour, and fix the code.
MSG
    # Last, where a CI log cut to its end still shows them: what failed and the input (libFuzzer's
    # Base64 line; `base64 -d` makes the file again), since a CI machine's artifacts are gone.
    for target in "${failed[@]}"; do
        echo "  $target: $(grep -m1 -E 'failed its check|ERROR: (libFuzzer|AddressSanitizer)' "$scratch/$target.log" \
            | cut -c1-300 || true)" >&2
        echo "  $target input: $(grep -m1 '^Base64: ' "$scratch/$target.log" | cut -c1-2000 || echo '(none printed)')" >&2
    done
    exit 1
fi
