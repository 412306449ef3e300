#!/usr/bin/env bash
# `make docs`: builds the DocC catalog (Sources/NetworkLayer/NetworkLayer.docc) with the docc that
# ships in the Swift toolchain: no package plugin, no dependency. Symbol graphs come from
# `swift package dump-symbol-graph` (public symbols only); docc treats warnings as errors, so a
# broken ``Symbol`` link in a doc comment or an article fails the build.
# Output: .build/docs/NetworkLayer.doccarchive (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
DOCC=${DOCC:-$(command -v docc || echo "$(dirname "$(command -v "$SWIFT")")/docc")}
out=.build/docs
mkdir -p .build
log=.build/docs-symbol-graph.log

# dump-symbol-graph builds the library (not the tests), then extracts a graph for every module,
# including the two SwiftPM synthesizes to run the tests (NetworkLayerPackageTests,
# NetworkLayerPackageDiscoveredTests). Those exist only once the tests were built (`make test`),
# so on a fresh clone their extraction fails and the command exits non-zero although every graph
# the docs need was written. Those two failures, and only those, are not ours to mind.
stamp=.build/docs-symbol-graph.stamp
touch "$stamp"
# The traits of every build of the project (the Makefile's SWIFT_TRAITS): this build is make test's too.
if ! "$SWIFT" package ${SWIFT_TRAITS---traits IntegrationTests} dump-symbol-graph --minimum-access-level public >"$log" 2>&1; then
    if grep "^error: " "$log" | grep -qv "^error: Failed to emit symbol graph for 'NetworkLayerPackage\(Discovered\)\?Tests': Couldn't load module"; then
        cat "$log" >&2
        echo "make docs: could not extract the symbol graphs" >&2
        exit 1
    fi
fi
graphs=$(sed -n 's/^Files written to //p' "$log" | tail -1)
if [ -z "$graphs" ] || [ ! "$graphs/NetworkLayer.symbols.json" -nt "$stamp" ]; then
    cat "$log" >&2
    echo "make docs: this run wrote no NetworkLayer symbol graph" >&2
    exit 1
fi
rm -rf "$out"
mkdir -p "$out/symbol-graphs"
# The module's graph and its extensions of other modules' types (NetworkLayer@Swift…), if any.
shopt -s nullglob
cp "$graphs"/NetworkLayer.symbols.json "$graphs"/NetworkLayer@*.symbols.json "$out/symbol-graphs/"

"$DOCC" convert Sources/NetworkLayer/NetworkLayer.docc \
    --additional-symbol-graph-dir "$out/symbol-graphs" \
    --output-dir "$out/NetworkLayer.doccarchive" \
    --fallback-display-name NetworkLayer \
    --fallback-bundle-identifier NetworkLayer \
    --warnings-as-errors
echo "make docs: OK ($out/NetworkLayer.doccarchive)"
