#!/usr/bin/env bash
# `make api-check` (CI runs it): is the public API of NetworkLayer still that of the last release?
#
# `swift package diagnose-api-breaking-changes` builds the last release (the commit in
# .ci/api-baseline, from this clone's own history: no network, no tag needed) and compares its
# public API with this tree's. A break (a public symbol removed or changed, a case added to a
# public enum, a requirement added to a protocol without a default...) fails the check unless the
# top entry of CHANGELOG.md is a new major version over the baseline's: a `## [X.Y.Z]` release
# heading, or the `## [Unreleased]` section's "Next release: X.Y.Z" line. See CONTRIBUTING.md.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
baseline=.ci/api-baseline
changelog=CHANGELOG.md

fail() { echo "make api-check: $*" >&2; exit 1; }

semver='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$'
base_version=$(sed -n 's/^version[[:space:]]\{1,\}//p' "$baseline" 2>/dev/null | tail -1)
base_commit=$(sed -n 's/^commit[[:space:]]\{1,\}//p' "$baseline" 2>/dev/null | tail -1)
[[ $base_version =~ $semver ]] || fail "$baseline names no version (a line 'version X.Y.Z')"
[[ $base_commit =~ ^[0-9a-f]{40}$ ]] || fail "$baseline names no commit (a line 'commit <40 hex digits>')"
git cat-file -e "$base_commit^{commit}" 2>/dev/null \
    || fail "the last release's commit $base_commit is not in this clone's history (a shallow clone? git fetch --unshallow)"

# The version the top entry of the changelog stands for: a release heading's, or the version the
# Unreleased section says it will be released as; nothing when it says none.
top_version=$(awk '
    /^## / {
        if (seen) exit
        seen = 1
        if ($0 ~ /^## \[?[Uu]nreleased\]?/) { unreleased = 1; next }
        if (match($0, /[0-9]+\.[0-9]+\.[0-9]+/)) print substr($0, RSTART, RLENGTH)
        exit
    }
    unreleased && /^Next release:/ {
        if (match($0, /[0-9]+\.[0-9]+\.[0-9]+/)) print substr($0, RSTART, RLENGTH)
        exit
    }' "$changelog" 2>/dev/null)

# Whether $1 is a new major version over $2 (0.y.z: a new minor version counts as one).
is_major_over() {
    local -a new old
    IFS=. read -r -a new <<<"$1"
    IFS=. read -r -a old <<<"$2"
    (( new[0] > old[0] )) || (( new[0] == 0 && old[0] == 0 && new[1] > old[1] ))
}

# The last release's API, once extracted, is kept outside the clone, by commit and toolchain: it
# cannot change, and extracting it means building that commit (a minute or more). CI clones afresh
# every time; a machine that ran the check once skips that build from then on.
toolchain=$("$SWIFT" --version 2>/dev/null | head -1 | tr -c 'A-Za-z0-9.\n' '-' | tr -s '-')
cache=${NETWORKLAYER_API_BASELINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/networklayer/api-baseline}/$toolchain  # SwiftPM adds the commit
mkdir -p "$cache" 2>/dev/null || cache=

short=${base_commit:0:7}
mkdir -p .build
log=.build/api-check.log
echo "make api-check: the public API against $base_version ($short), the last release"
start=$(date +%s)
"$SWIFT" package diagnose-api-breaking-changes "$base_commit" --products NetworkLayer ${cache:+--baseline-dir "$cache"} >"$log" 2>&1
code=$?
took=$(( $(date +%s) - start ))
breaks=$(grep -a "API breakage:" "$log" | sed 's/^[^A]*API breakage: /  /')

if [[ -z $breaks ]]; then
    if [[ $code -ne 0 ]]; then
        tail -40 "$log" >&2
        fail "diagnose-api-breaking-changes failed (exit $code) without naming a break: see $log"
    fi
    echo "make api-check: OK, no breaking change since $base_version (${took}s)"
    exit 0
fi

count=$(grep -c . <<<"$breaks")
if [[ -n $top_version ]] && is_major_over "$top_version" "$base_version"; then
    echo "make api-check: OK, $count breaking change(s) since $base_version, allowed: CHANGELOG.md's top entry is $top_version, a new major version (${took}s)"
    echo "$breaks"
    exit 0
fi
if [[ -n $top_version ]]; then
    top="CHANGELOG.md's top entry is $top_version, not a new major version over $base_version"
else
    top="CHANGELOG.md's top entry names no version (## [Unreleased] without a 'Next release: X.Y.Z' line)"
fi
echo "$breaks" >&2
cat >&2 <<MSG
make api-check: FAILED (${took}s): the public API breaks $count time(s) since $base_version ($short), and
$top.
Either keep the old spelling working (add the new one beside it, deprecate the old one), or, if
the break is meant, say so in CHANGELOG.md: under ## [Unreleased], 'Next release: $(( ${base_version%%.*} + 1 )).0.0',
and the change with its Migration line. See CONTRIBUTING.md, "Versions".
MSG
exit 1
