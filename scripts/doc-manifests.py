#!/usr/bin/env python3
"""The set-up a reader copies is the one `make test` builds (scripts/check-examples.sh runs this).

The OpenAPI article (OpenAPIClients.md) shows a whole Package.swift and the generator's settings;
Examples/OpenAPIClient is built and run from its own. They must be the same text, but for the
NetworkLayer dependency (the repository's URL for a reader, `path: "../.."` for the example) and
the example's comment lines. Exits 1 with the first line that differs.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTICLE = ROOT / "Sources/NetworkLayer/NetworkLayer.docc/OpenAPIClients.md"
EXAMPLE = ROOT / "Examples/OpenAPIClient"
URL_LINE = re.compile(r'\.package\(url: "https://github\.com/<owner>/NetworkLayer\.git", branch: "main", traits: \["OpenAPI"\]\),')
PATH_LINE = '.package(name: "NetworkLayer", path: "../..", traits: ["OpenAPI"]),'


def blocks(text, language):
    return re.findall(r"^```" + language + r"\n(.*?)^```$", text, re.S | re.M)


def code(text):
    """The lines that are not comments (the tools-version line is not a comment to SwiftPM)."""
    return [line.rstrip() for line in text.splitlines()
            if line.strip() and (not line.lstrip().startswith("//") or "swift-tools-version" in line)]


def compare(name, shown, built):
    for number, (a, b) in enumerate(zip(shown + [None] * len(built), built + [None] * len(shown)), 1):
        if a is None and b is None:
            break
        if a != b:
            sys.exit(f"doc-manifests.py: {ARTICLE.name}'s {name} differs from {EXAMPLE.name}'s at its code line {number}:\n"
                     f"  article: {a}\n  example: {b}")


article = ARTICLE.read_text(encoding="utf-8")
manifests = [b for b in blocks(article, "swift") if "swift-tools-version" in b]
configs = [b for b in blocks(article, "yaml") if "generate:" in b]
if len(manifests) != 1 or len(configs) != 1:
    sys.exit(f"doc-manifests.py: {ARTICLE.name} must show one whole Package.swift and one generator config; "
             f"it shows {len(manifests)} and {len(configs)}")
manifest = manifests[0]
if not URL_LINE.search(manifest):
    sys.exit(f"doc-manifests.py: {ARTICLE.name}'s manifest does not depend on NetworkLayer by its URL with the trait OpenAPI")
compare("Package.swift", code(URL_LINE.sub(PATH_LINE, manifest)), code((EXAMPLE / "Package.swift").read_text(encoding="utf-8")))
compare("openapi-generator-config.yaml", code(configs[0]),
        code((EXAMPLE / "Sources/OpenAPIClient/openapi-generator-config.yaml").read_text(encoding="utf-8")))
print(f"doc-manifests.py: {ARTICLE.name}'s manifest and generator config are {EXAMPLE.relative_to(ROOT)}'s, which make test builds")
