#!/usr/bin/env python3
"""Fails when a comment in Sources/ names, in backticks, a symbol that exists nowhere.

A reference is `name`, `name()`, `Type.member`, `label(_:with:)` or a DocC link ``Type/member``.
It is current when each of its names is declared in Sources/, Tests/, Examples/ or Benchmarks/
(func, var, let, case, type, parameter label, C function or macro), or is used in their code,
or is listed in scripts/stale-comments-allow.txt (names from outside the project: libcurl,
Foundation internals, RFC grammar, examples of a user's own types). A call form, `name()`, must
name something declared or called: a variable of that name does not keep it current.

Not references, so not checked: text with spaces or quotes, paths and versions (`HTTP/2`,
`GET/users/42`), ALL_CAPS names (environment variables, C macros).

    scripts/stale-comments.py          exit 1 and list file:line: `reference` (unknown name)
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEARCHED = ["Sources", "Tests", "Examples", "Benchmarks"]
SUFFIXES = {".swift", ".c", ".h"}

DECLARATION = re.compile(
    r"\b(?:func|var|let|case|class|struct|enum|protocol|typealias|associatedtype|actor|macro|"
    r"#define)\s+`?([A-Za-z_]\w*)")
CALLABLE = re.compile(
    r"\b(?:func|case|class|struct|enum|actor|macro|#define)\s+`?([A-Za-z_]\w*)")
CASE_LIST = re.compile(r"\bcase\s+([^:=\n]+)")
LABEL = re.compile(r"[(,]\s*([A-Za-z_]\w*)(?:\s+[A-Za-z_]\w*)?\s*:")
C_FUNCTION = re.compile(r"^[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\(", re.M)
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*[({]")
REFERENCE = re.compile(r"``([^`]+)``|`([^`\n]+)`")
SYMBOL = re.compile(r"[A-Za-z_]\w*(?:\([\w:]*\))?(?:[./][A-Za-z_]\w*(?:\([\w:]*\))?)*")


def files(folders):
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and ".build" not in path.parts:
                yield path


def split_comments(text):
    """(code lines, [(line number, comment text)]) of a Swift or C file."""
    code, comments = [], []
    in_block = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if in_block:
            comments.append((number, stripped))
            in_block = "*/" not in stripped
        elif stripped.startswith("//"):
            comments.append((number, stripped))
        elif stripped.startswith("/*"):
            comments.append((number, stripped))
            in_block = "*/" not in stripped
        else:
            code.append(line)
    return "\n".join(code), comments


def known_names():
    declared, used, called = set(), set(), set()  # called: what `name()` may cite
    for path in files(SEARCHED):
        code, _ = split_comments(path.read_text(encoding="utf-8", errors="replace"))
        declared.update(DECLARATION.findall(code))
        called.update(CALLABLE.findall(code))
        declared.update(LABEL.findall(code))
        for match in CASE_LIST.finditer(code):
            for part in match.group(1).split(","):
                name = part.strip().split("(")[0].strip()
                if IDENTIFIER.fullmatch(name):
                    declared.add(name)
        if path.suffix in {".c", ".h"}:
            declared.update(C_FUNCTION.findall(code))
            called.update(C_FUNCTION.findall(code))
        code = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', code)
        used.update(IDENTIFIER.findall(code))
        called.update(CALLED.findall(code))
    declared.add("init")
    called.add("init")
    return declared, used, called


def allowed_names():
    path = ROOT / "scripts" / "stale-comments-allow.txt"
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(line)
    return names


def is_symbol(reference, doc_link):
    if not SYMBOL.fullmatch(reference) or re.fullmatch(r"[A-Z0-9_]+", reference):
        return False
    if "/" in reference and not doc_link:
        return False  # a path
    return not re.search(r"\.(md|swift|json|py|c|h|txt|ya?ml|sh|pem|supp)$", reference)


def unknown_parts(reference, declared, used, called, allowed):
    unknown = []
    if re.split(r"[./(]", reference)[0] in allowed:
        return unknown
    for part in re.split(r"[./]", reference):
        is_call = part.endswith(")")
        name = part.split("(")[0]
        if not name or name in allowed:
            continue
        if is_call:
            if name not in called:
                unknown.append(name + "()")
        elif name not in declared and name not in used:
            unknown.append(name)
    return unknown


def main():
    declared, used, called = known_names()
    allowed = allowed_names()
    stale = []
    for path in files(["Sources"]):
        _, comments = split_comments(path.read_text(encoding="utf-8", errors="replace"))
        for number, text in comments:
            for match in REFERENCE.finditer(text):
                reference = (match.group(1) or match.group(2)).strip()
                if not is_symbol(reference, doc_link=match.group(1) is not None):
                    continue
                unknown = unknown_parts(reference, declared, used, called, allowed)
                if unknown:
                    stale.append(f"{path.relative_to(ROOT)}:{number}: `{reference}` "
                                 f"({', '.join(unknown)} exists nowhere)")
    for line in stale:
        print(line)
    if stale:
        print(f"stale-comments: {len(stale)} comment references name symbols that do not exist; "
              "fix the comment, or list an outside name in scripts/stale-comments-allow.txt",
              file=sys.stderr)
        return 1
    print("stale-comments: every symbol a comment names in backticks exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
