# The commands the README promises. Each installs what the system lacks first (make deps).
SWIFT ?= swift

.PHONY: tsan asan deps build test demo demo-github demo-chat demo-check examples-check docs api-check fuzz bench stress clean

## deps: install the system packages the library and its tests need (apt-get as root; otherwise prints the command)
deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build

## test: the whole test suite against real servers on 127.0.0.1, then the demos' runs (scripts/check-demo.sh) and the
##       separate example packages (skipped, with a line saying so, when their dependencies cannot be fetched)
# In parallel, as plain `swift test` runs it: the tests that assert latencies or memory bounds are
# marked `.measuring` and run alone, the others `.sharing`, eight at a time on two cores (see
# CONTRIBUTING.md, "Tests that measure"). The run takes about two minutes here (`--no-parallel`: three).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@$(MAKE) --no-print-directory demo-check
	@$(MAKE) --no-print-directory examples-check

## demo: the iTunes search example, answered from MockResponses/ with the verbose log (ARGS="--live" for the real host)
demo: deps
	$(SWIFT) build --product ITunesSearch
	$$($(SWIFT) build --show-bin-path)/ITunesSearch $(ARGS)

## demo-github: Examples/GitHubClient, a GitHub-style client (Link pagination, ETag/304, rate limit, errors), against a
##              mock GitHub (ARGS="--verbose" for the log, ARGS="--live" for api.github.com, ARGS="--help")
demo-github: deps
	$(SWIFT) build --product GitHubClient
	$$($(SWIFT) build --show-bin-path)/GitHubClient $(ARGS)

## demo-chat: Examples/ChatClient, an OpenAI-style chat answer streamed token by token from a mock (Ctrl-C or
##            ARGS="--timeout 1" stop it; ARGS="--host http://127.0.0.1:11434" for a local server, ARGS="--help")
demo-chat: deps
	$(SWIFT) build --product ChatClient
	$$($(SWIFT) build --show-bin-path)/ChatClient $(ARGS)

## demo-check: runs the demos and checks what they printed (scripts/check-demo.sh)
demo-check:
	@SWIFT="$(SWIFT)" scripts/check-demo.sh

## examples-check: builds and runs Examples/SwiftLogBridge (its own package, depending on swift-log) in .build-examples/
examples-check:
	@SWIFT="$(SWIFT)" scripts/check-examples.sh

## docs: the DocC catalog (Sources/NetworkLayer/NetworkLayer.docc) with the toolchain's docc, warnings as
##       errors, into .build/docs/NetworkLayer.doccarchive
docs: deps
	@SWIFT="$(SWIFT)" scripts/docs.sh

## api-check: the public API against the last release (.ci/api-baseline): a breaking change fails unless
##            CHANGELOG.md's top entry is a new major version (see CONTRIBUTING.md); needs no network
api-check: deps
	@SWIFT="$(SWIFT)" scripts/api-check.sh

## fuzz: the libFuzzer targets of Tests/Fuzz (JSON decoder vs Foundation, response headers, Retry-After,
##       parameter encoding, mock sidecars, redirect origins, server-sent events, the response cache), FUZZ_SECONDS each (default 40); fails on any crash or difference
FUZZ_SECONDS ?= 40
fuzz: deps
	@SWIFT="$(SWIFT)" FUZZ_SECONDS="$(FUZZ_SECONDS)" scripts/fuzz.sh

## bench: NetworkLayer against URLSession, AsyncHTTPClient, C libcurl and wrk/h2load on a local nginx (Benchmarks/);
##        not part of `make test` or CI. BENCH_ARGS="--quick" for a smoke run; see Benchmarks/README.md
bench:
	@scripts/deps.sh bench
	SWIFT="$(SWIFT)" python3 Benchmarks/run.py $(BENCH_ARGS)

## tsan: the whole test suite under ThreadSanitizer (CI runs it: a data race fails a submission)
tsan: deps
	@scripts/sanitize.sh thread

## asan: the whole test suite under AddressSanitizer with its leak check (CI runs it: a leak or a memory error fails a submission)
asan: deps
	@scripts/sanitize.sh address

## stress: soak, cancellation storm, valgrind leak check, thread and address sanitizers; prints a summary table
stress:
	@scripts/deps.sh stress
	@scripts/stress.sh

clean:
	rm -rf .build .build-examples .build-fuzz .build-release-probe
