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

if ! "$SWIFT" package dump-symbol-graph --minimum-access-level public >"$log" 2>&1; then
    cat "$log" >&2
    echo "make docs: could not extract the symbol graphs" >&2
    exit 1
fi
graphs=$(sed -n 's/^Files written to //p' "$log" | tail -1)
if [ -z "$graphs" ] || [ ! -f "$graphs/NetworkLayer.symbols.json" ]; then
    cat "$log" >&2
    echo "make docs: no NetworkLayer symbol graph found" >&2
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
