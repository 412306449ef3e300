#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer binary of Tests/Fuzz (the checks in Tests/Fuzz/Checks, linked with
# the library built with -sanitize=fuzzer,address and testing enabled) and runs every fuzz target
# for FUZZ_SECONDS seconds (default 40), FUZZ_JOBS at a time (default: one per core; a libFuzzer
# run is one process on one core, so each target gets the same CPU time as run one after another).
# Fails when any target crashes or finds a difference, printing how to reproduce it and where to
# save the input as a regression.
#
# FUZZ_SECONDS=30 (what CI runs), FUZZ_TARGETS="json-decoder retry-after" (a subset), FUZZ_JOBS=1
# (one after another).
# Build and working corpus in .build-fuzz/ (ignored by git); the corpus grows from run to run.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
seconds=${FUZZ_SECONDS:-40}
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

# One target: its run, then one summary line in $scratch/<target>.summary and its status in
# $scratch/<target>.status, for the report once every target has ended.
run_target() {
    local target=$1 work=$scratch/corpus/$1 artifacts=$scratch/artifacts/$1
    mkdir -p "$work" "$artifacts"
    local inputs=("$work" "Tests/Fuzz/Corpus/$target")
    [ -d "Tests/Fixtures/FuzzRegressions/$target" ] && inputs+=("Tests/Fixtures/FuzzRegressions/$target")
    local options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1
                   -artifact_prefix="$artifacts/")
    [ -f "Tests/Fuzz/Corpus/$target.dict" ] && options+=(-dict="Tests/Fuzz/Corpus/$target.dict")
    local run_log=$scratch/$target.log status start
    start=$(date +%s)
    # Swift's own crash handler off, so that libFuzzer and the address sanitizer report the crash.
    if FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp" \
            "$binary" "${options[@]}" "${inputs[@]}" >"$run_log" 2>&1; then
        status=ok
    else
        status=FAILED
    fi
    local runs corpus
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run_log" | tail -1)
    corpus=$(find "$work" -type f | wc -l)
    printf '%-18s %-6s %6ss %10s runs %6s inputs in its corpus\n' "$target" "$status" \
        "$(( $(date +%s) - start ))" "${runs:-?}" "$corpus" >"$scratch/$target.summary"
    echo "$status" >"$scratch/$target.status"
}

total_start=$(date +%s)
echo "make fuzz: $(wc -w <<<"$targets") targets, ${seconds}s each, $jobs at a time"
running=0
for target in $targets; do
    rm -f "$scratch/$target.status" "$scratch/$target.summary"
    if (( running >= jobs )); then
        wait -n
        running=$(( running - 1 ))
    fi
    echo "make fuzz: $target for ${seconds}s"
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
