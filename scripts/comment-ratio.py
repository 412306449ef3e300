#!/usr/bin/env python3
"""Comment lines as a share of all lines in Sources/ (Swift and C; the DocC catalog excluded).

    scripts/comment-ratio.py                 the ratio of the whole of Sources/
    scripts/comment-ratio.py --max 18        ... and exit 1 when it is above 18 %
    scripts/comment-ratio.py --files [PATH]  per file, most comment lines first (optionally under PATH)

A comment line is one whose first non-blank characters are `//`, `/*`, or one inside a `/* */`
block; a line of code with a trailing comment counts as code. Blank lines count in the total.
"""
import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = {".swift", ".c", ".h"}


def source_files(under):
    for path in sorted(under.rglob("*")):
        if path.suffix in SUFFIXES and ".docc" not in path.parts and path.is_file():
            yield path


def count(path):
    total = comments = 0
    in_block = False
    for line in path.read_text(encoding="utf-8").splitlines():
        total += 1
        text = line.strip()
        if in_block:
            comments += 1
            in_block = "*/" not in text
        elif text.startswith("//"):
            comments += 1
        elif text.startswith("/*"):
            comments += 1
            in_block = "*/" not in text
    return total, comments


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=float, help="fail when the percentage is above this")
    parser.add_argument("--files", nargs="?", const="Sources", metavar="PATH",
                        help="list files under PATH (default Sources)")
    args = parser.parse_args()

    rows = [(path, *count(path)) for path in source_files(ROOT / "Sources")]
    total = sum(row[1] for row in rows)
    comments = sum(row[2] for row in rows)
    ratio = 100 * comments / total if total else 0

    if args.files is not None:
        prefix = (ROOT / args.files).resolve()
        listed = [row for row in rows if row[0].resolve().is_relative_to(prefix)]
        for path, lines, notes in sorted(listed, key=lambda row: -row[2]):
            print(f"{notes:5} {lines:5} {100 * notes / lines:4.0f}%  {path.relative_to(ROOT)}")
        lines = sum(row[1] for row in listed)
        notes = sum(row[2] for row in listed)
        if lines:
            print(f"under {args.files}: {notes} comment lines of {lines} = {100 * notes / lines:.1f}%")

    print(f"Sources: {comments} comment lines of {total} = {ratio:.1f}%")
    if args.max is not None and ratio > args.max:
        print(f"comment-ratio: {ratio:.1f}% is above the limit of {args.max:g}%: "
              "delete comments that narrate history, count instructions or restate the code",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
