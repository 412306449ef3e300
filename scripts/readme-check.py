#!/usr/bin/env python3
"""`make readme-check` (and the first step of `make test`): the README's code compiles.

Every ```swift block of README.md, in order, becomes one program: Tests/ReadmeCheck/main.swift,
an executable target built with warnings as errors and never run. So the README is written as a
literate program: a type is declared once and used by the blocks after it. Each block is preceded
by `#sourceLocation(file: "README.md", line: N)`, so the compiler reports an error at its line in
README.md, not in the generated file.

A block that is not Swift for this program (a fragment of Package.swift, say) is left out by an
HTML comment on the line right above its fence:

    <!-- not compiled: Package.swift -->

Keep those to the minimum. Nothing is declared for the README behind its back: the target holds
main.swift alone, so a name a block uses is one the library or an earlier block declares, and a
reader who copies the blocks gets a program that compiles (a stand-in once hid that the signing
example called an HMAC function nobody had).

    scripts/readme-check.py             generate main.swift, then build it (`swift build --product ReadmeCheck`)
    scripts/readme-check.py --generate  generate only (what `swift build` then compiles)
    scripts/readme-check.py --check     exit 1 if main.swift is not what README.md gives (nothing written)
"""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
OUTPUT = ROOT / "Tests" / "ReadmeCheck" / "main.swift"
EXCLUSION = re.compile(r"^<!--\s*not compiled:\s*(.+?)\s*-->$")
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([^\s`]*)")


class Block:
    def __init__(self, language, fence_line, excluded_because):
        self.language = language
        self.fence_line = fence_line          # 1-based line of the opening fence
        self.excluded_because = excluded_because
        self.lines = []

    @property
    def first_line(self):
        return self.fence_line + 1

    @property
    def last_line(self):
        return self.fence_line + len(self.lines)


def blocks(text):
    """The fenced blocks of a Markdown text, with the exclusion comment above each, if any."""
    found = []
    lines = text.split("\n")
    current = None
    closing = None
    previous = ""                                  # the last non-blank line outside a block
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if current is None:
            match = FENCE.match(stripped)
            if match:
                exclusion = EXCLUSION.match(previous)
                current = Block(match.group(2).lower(), number, exclusion.group(1) if exclusion else None)
                closing = match.group(1)
            elif stripped:
                previous = stripped
        elif stripped.startswith(closing) and stripped.strip(closing[0]) == "":
            found.append(current)
            current = None
            previous = ""
        else:
            current.lines.append(line)
    if current is not None:
        sys.exit(f"README.md:{current.fence_line}: a code block is never closed")
    return found


# The opt-in products, by the package trait that builds each.
TRAIT_MODULES = {"NetworkLayerObservability": "Observability", "NetworkLayerOpenAPI": "OpenAPI"}


def generate(text):
    swift = [block for block in blocks(text) if block.language == "swift"]
    out = [
        "// Generated from README.md by scripts/readme-check.py: do not edit (edit the README, then",
        "// run `make readme-check`). Every ```swift block of the README, in order, as one program;",
        "// built with warnings as errors (`make test` builds it first), never run.",
        "",
    ]
    skipped = []
    for block in swift:
        if block.excluded_because:
            skipped.append(block)
            out.append(f"// README.md:{block.fence_line}: not compiled ({block.excluded_because})")
            out.append("")
            continue
        # A block of an opt-in product compiles when its trait is on (make test turns them on); a
        # build without traits (`swift build`, make api-check) leaves it out instead of failing.
        trait = next((name for module, name in TRAIT_MODULES.items()
                      if any(line.strip() == f"import {module}" for line in block.lines)), None)
        if trait:
            out.append(f"#if {trait}")
        out.append(f'#sourceLocation(file: "README.md", line: {block.first_line})')
        out.extend(block.lines)
        out.append("#sourceLocation()")
        if trait:
            out.append("#endif")
        out.append("")
    return "\n".join(out), swift, skipped


def build(swift_blocks):
    swift = os.environ.get("SWIFT", "swift")
    # The traits of every build of the project (the Makefile's SWIFT_TRAITS), so that this build and make test's share one.
    command = [swift, "build", "--product", "ReadmeCheck"] + os.environ.get("SWIFT_TRAITS", "--traits IntegrationTests").split()
    print("readme-check: " + " ".join(command), flush=True)
    result = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(result.stdout)
    if result.returncode == 0:
        return True
    # Say which blocks failed, by the lines the compiler named in README.md.
    failing = set()
    for match in re.finditer(r"README\.md:(\d+):(?:\d+:)? (?:error|warning)", result.stdout):
        line = int(match.group(1))
        for block in swift_blocks:
            if block.first_line <= line <= block.last_line:
                failing.add(block.fence_line)
    print("", file=sys.stderr)
    if failing:
        for fence_line in sorted(failing):
            print(f"README.md:{fence_line}: this ```swift block does not compile (errors above)", file=sys.stderr)
    else:
        print("readme-check: the build failed outside the README's blocks (errors above)", file=sys.stderr)
    print("readme-check: FAILED: fix the README (its blocks compile as one program, in order)", file=sys.stderr)
    return False


def files_beside_main():
    """Swift files in Tests/ReadmeCheck other than main.swift: declarations the README would lean on."""
    return sorted(path.name for path in OUTPUT.parent.rglob("*.swift") if path != OUTPUT)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--build"
    if mode not in ("--build", "--generate", "--check"):
        sys.exit(__doc__)
    extra = files_beside_main()
    if extra:
        sys.exit("readme-check: Tests/ReadmeCheck holds " + ", ".join(extra) + " besides main.swift: the README's code "
                 "must declare what it uses (or use the library's own), so that a reader's copy compiles too")
    text, swift_blocks, skipped = generate(README.read_text(encoding="utf-8"))
    current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else None
    if mode == "--check":
        if current != text:
            sys.exit("readme-check: Tests/ReadmeCheck/main.swift is not what README.md gives: run make readme-check")
        print("readme-check: Tests/ReadmeCheck/main.swift matches README.md")
        return
    if current != text:
        OUTPUT.write_text(text, encoding="utf-8")
        print("readme-check: wrote Tests/ReadmeCheck/main.swift from README.md (commit it with the README)")
    compiled = len(swift_blocks) - len(skipped)
    note = ", ".join(f"line {block.fence_line} ({block.excluded_because})" for block in skipped)
    print(f"readme-check: {compiled} swift blocks compiled as one program"
          + (f"; not compiled: {note}" if note else ""))
    if mode == "--build" and not build(swift_blocks):
        sys.exit(1)
    if mode == "--build":
        print("readme-check: OK")


if __name__ == "__main__":
    main()
