#!/usr/bin/env python3
"""One version story, checked: what a clone says its version is, and what a user copies to install it.

    scripts/versions.py                  check (the first step of `make test`, with house-check)
    scripts/versions.py --resolve        check, then resolve every install line a user copies
                                         against this repository (a consumer package, SwiftPM)
    scripts/versions.py release X.Y.Z    cut a release (`make release VERSION=X.Y.Z`): every step

What must agree (the check fails naming the file that drifted):
- `NetworkLayerInfo.version` (the `User-Agent` sends it) is the newest `## [X.Y.Z]` of CHANGELOG.md
  and the `version` of .ci/api-baseline, whose `commit` is in this clone's history;
- CHANGELOG.md's `Next release:` is above it;
- every `.package(url: …NetworkLayer…)` line a reader copies (README.md, the DocC articles,
  CONTRIBUTING.md, the examples' READMEs) asks for `branch: "main"`, or `revision:` the release's
  commit, or `from:`/`exact:` the release only where its tag exists in this clone (tags need not
  travel with a clone; the commit does);
- README.md says which release is the last one and its commit.

A release (`release X.Y.Z`), on a clean tree: CHANGELOG.md's Unreleased section becomes
`## [X.Y.Z] - <today>` (its `Next release:` must say X.Y.Z: the API check decided that) under a new
Unreleased section; `NetworkLayerInfo.version` becomes X.Y.Z; that is committed and tagged
(`git tag -a X.Y.Z`); a second commit points .ci/api-baseline and README.md's pin at the tagged
commit (a commit cannot name its own hash). Then the check runs. Pushing the tag is yours.
"""

import datetime
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(os.environ.get("NETWORKLAYER_ROOT", Path(__file__).resolve().parent.parent))
INFO = "Sources/NetworkLayer/NetworkLayerInfo.swift"
CHANGELOG = "CHANGELOG.md"
BASELINE = ".ci/api-baseline"
README = "README.md"
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
INSTALL = re.compile(r'\.package\(\s*(?:name:\s*"[^"]*",\s*)?url:\s*"([^"]*NetworkLayer[^"]*)",\s*(\w+):\s*"([^"]*)"')
# README.md's sentence naming the last release and its commit, which a release rewrites.
PIN = re.compile(r'(`)(\d+\.\d+\.\d+)(` is the last release, the commit `revision: ")([0-9a-f]{40})(")')


def read(path):
    return (ROOT / path).read_text(encoding="utf-8")


def git(*args, check=True):
    result = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.exit(f"versions.py: git {' '.join(args)} failed: {result.stderr.strip()}")
    return result


def library_version():
    match = re.search(r'public static let version = "([^"]*)"', read(INFO))
    return match.group(1) if match else None


def changelog_versions():
    """The newest released version and the Unreleased section's `Next release:`."""
    text = read(CHANGELOG)
    released = re.search(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, re.M)
    unreleased = text.split("## [Unreleased]", 1)
    upcoming = re.search(r"^Next release: (\S+)$", unreleased[1], re.M) if len(unreleased) == 2 else None
    return (released.group(1) if released else None), (upcoming.group(1) if upcoming else None)


def baseline():
    fields = dict(line.split(None, 1) for line in read(BASELINE).splitlines()
                  if line.strip() and not line.startswith("#"))
    return fields.get("version", "").strip(), fields.get("commit", "").strip()


def install_lines():
    """Every install line a reader copies: (file, line number, url, requirement kind, value)."""
    files = [README, "CONTRIBUTING.md"]
    files += sorted(str(p.relative_to(ROOT)) for p in (ROOT / "Sources").glob("*/*.docc/*.md"))
    files += sorted(str(p.relative_to(ROOT)) for p in (ROOT / "Examples").glob("*/README.md"))
    for name in files:
        for number, line in enumerate(read(name).splitlines(), 1):
            for match in INSTALL.finditer(line):
                yield name, number, match.group(1), match.group(2), match.group(3)


def key(version):
    return tuple(int(part) for part in version.split("."))


def check():
    problems = []
    version = library_version()
    if not version or not SEMVER.match(version):
        return [f"{INFO}: NetworkLayerInfo.version ({version!r}) is not MAJOR.MINOR.PATCH"]
    released, upcoming = changelog_versions()
    if released != version:
        problems.append(f"{CHANGELOG}: the newest release is {released}, NetworkLayerInfo.version says {version}")
    if not upcoming or not SEMVER.match(upcoming) or key(upcoming) <= key(version):
        problems.append(f"{CHANGELOG}: Unreleased's `Next release:` ({upcoming}) must be a version above {version}")
    base_version, commit = baseline()
    if base_version != version:
        problems.append(f"{BASELINE}: version {base_version}, NetworkLayerInfo.version says {version}")
    if not re.fullmatch(r"[0-9a-f]{40}", commit) or git("cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode:
        problems.append(f"{BASELINE}: commit {commit!r} is not a commit of this clone's history")
    tag = git("rev-parse", "-q", "--verify", f"refs/tags/{version}^{{commit}}", check=False).stdout.strip()
    if tag and tag != commit:
        problems.append(f"tag {version} is {tag}, but {BASELINE} names {commit} as that release")
    pin = PIN.search(read(README))
    if not pin or pin.group(2) != version or pin.group(4) != commit:
        problems.append(f"{README}: no sentence \"`{version}` is the last release, the commit `revision: \"{commit}\"`\"")
    lines = list(install_lines())
    if not any(name == README for name, *_ in lines):
        problems.append(f"{README}: no install line (.package(url: \"…/NetworkLayer.git\", …))")
    for name, number, _, kind, value in lines:
        where = f"{name}:{number}"
        if kind == "branch" and value != "main":
            problems.append(f"{where}: branch \"{value}\": the one branch every clone has is main")
        elif kind == "revision" and value != commit:
            problems.append(f"{where}: revision \"{value}\" is not the last release's commit ({commit})")
        elif kind in ("from", "exact") and (value != version or not tag):
            problems.append(f"{where}: {kind}: \"{value}\" resolves only by a tag; this clone has "
                            + (f"tag {version} only" if tag else "none") + ": say branch: \"main\" or the release's revision:")
        elif kind not in ("branch", "revision", "from", "exact"):
            problems.append(f"{where}: {kind}: is not a requirement this check knows")
    return problems


def resolve():
    """Every distinct install line, its URL pointed at this clone, resolved by SwiftPM in a consumer."""
    swift = os.environ.get("SWIFT", "swift")
    if git("rev-parse", "-q", "--verify", "refs/heads/main", check=False).returncode:
        return ["this clone has no branch main: the install lines ask for it"]
    requirements = sorted({(kind, value) for _, _, _, kind, value in install_lines()})
    problems = []
    for kind, value in requirements:
        with tempfile.TemporaryDirectory() as work:
            Path(work, "Sources/Consumer").mkdir(parents=True)
            Path(work, "Sources/Consumer/main.swift").write_text("import NetworkLayer\n")
            Path(work, "Package.swift").write_text(f"""// swift-tools-version:6.1
import PackageDescription
let package = Package(name: "Consumer",
    dependencies: [.package(url: "file://{ROOT}", {kind}: "{value}")],
    targets: [.executableTarget(name: "Consumer", dependencies: [.product(name: "NetworkLayer", package: "{ROOT.name}")])])
""")
            result = subprocess.run([swift, "package", "--package-path", work, "resolve"], capture_output=True, text=True)
            if result.returncode != 0:
                problems.append(f'`{kind}: "{value}"` does not resolve against this repository:\n{result.stdout}{result.stderr}')
            else:
                print(f'versions.py: `{kind}: "{value}"` resolves against this repository')
    return problems


def release(new):
    if not SEMVER.match(new):
        sys.exit(f"versions.py: {new!r} is not MAJOR.MINOR.PATCH")
    problems = check()
    if problems:
        sys.exit("versions.py: fix the version story before a release:\n  " + "\n  ".join(problems))
    if git("status", "--porcelain").stdout.strip():
        sys.exit("versions.py: the tree has uncommitted changes: a release is cut from a clean tree")
    old = library_version()
    _, upcoming = changelog_versions()
    if upcoming != new:
        sys.exit(f"versions.py: {CHANGELOG} says `Next release: {upcoming}`; release that, or change the line first "
                 "(a break needs a major version: make api-check)")
    if git("rev-parse", "-q", "--verify", f"refs/tags/{new}", check=False).returncode == 0:
        sys.exit(f"versions.py: tag {new} exists already")

    major, minor, _ = key(new)
    today = datetime.date.today().isoformat()
    text = read(CHANGELOG)
    head, rest = text.split("## [Unreleased]", 1)
    rest = re.sub(r"\A\s*Next release: \S+\n", "\n", rest, count=1)
    text = f"{head}## [Unreleased]\n\nNext release: {major}.{minor + 1}.0\n\n## [{new}] - {today}\n{rest}"
    (ROOT / CHANGELOG).write_text(text, encoding="utf-8")
    info = read(INFO).replace(f'public static let version = "{old}"', f'public static let version = "{new}"')
    (ROOT / INFO).write_text(info, encoding="utf-8")
    git("commit", "-q", "-am", f"Release {new}")
    git("tag", "-a", new, "-m", f"NetworkLayer {new}")
    commit = git("rev-parse", "HEAD").stdout.strip()

    lines = read(BASELINE).splitlines()
    lines = [f"version {new}" if l.startswith("version ") else f"commit {commit}" if l.startswith("commit ") else l
             for l in lines]
    (ROOT / BASELINE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    readme = PIN.sub(lambda m: f"{m.group(1)}{new}{m.group(3)}{commit}{m.group(5)}", read(README), count=1)
    (ROOT / README).write_text(readme, encoding="utf-8")
    git("commit", "-q", "-am", f"api-baseline and README: {new} is {commit}")
    problems = check()
    if problems:
        sys.exit("versions.py: the release is inconsistent:\n  " + "\n  ".join(problems))
    print(f"versions.py: released {new} as {commit} (tag {new}); push the commits and the tag: git push --follow-tags")


def self_test():
    """A release cut in a scratch clone (this tree's files committed on top): every step, then drift caught."""
    with tempfile.TemporaryDirectory() as work:
        clone = Path(work, "clone")
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True)
        for name in git("ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout.split("\0"):
            if name and (ROOT / name).is_file():
                (clone / name).parent.mkdir(parents=True, exist_ok=True)
                (clone / name).write_bytes((ROOT / name).read_bytes())
        run = lambda *a, **k: subprocess.run(["git", "-C", str(clone), *a], check=True, capture_output=True, text=True, **k)
        run("add", "-A")
        run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "the tree under test")
        env = dict(os.environ, NETWORKLAYER_ROOT=str(clone), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
        me = [sys.executable, str(clone / "scripts/versions.py")]
        saved = dict(globals())
        globals()["ROOT"] = clone
        try:
            _, upcoming = changelog_versions()
        finally:
            globals().update(saved)
        result = subprocess.run(me + ["release", upcoming], env=env, capture_output=True, text=True)
        if result.returncode != 0:
            return [f"release {upcoming} failed in a scratch clone: {result.stdout}{result.stderr}"]
        problems = []
        info = (clone / INFO).read_text()
        if f'version = "{upcoming}"' not in info:
            problems.append(f"after the release, {INFO} does not say {upcoming}")
        if not re.search(rf"^## \[{re.escape(upcoming)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", (clone / CHANGELOG).read_text(), re.M):
            problems.append(f"after the release, {CHANGELOG} has no section {upcoming}")
        tagged = run("rev-parse", f"refs/tags/{upcoming}^{{commit}}").stdout.strip()
        if f"commit {tagged}" not in (clone / BASELINE).read_text() or tagged not in (clone / README).read_text():
            problems.append(f"after the release, {BASELINE} or {README} does not name the tagged commit {tagged}")
        if run("status", "--porcelain").stdout.strip():
            problems.append("the release left uncommitted changes")
        (clone / INFO).write_text(info.replace(f'"{upcoming}"', '"0.0.1"'))
        drifted = subprocess.run(me, env=env, capture_output=True, text=True)
        if drifted.returncode == 0 or CHANGELOG not in drifted.stderr:
            problems.append("a version constant that drifted from the changelog passed the check")
        return problems


def main(args):
    if args[:1] == ["release"] and len(args) == 2:
        release(args[1])
        return
    if args == ["--self-test"]:
        problems = self_test()
        if problems:
            sys.exit("versions.py --self-test:\n  " + "\n  ".join(problems))
        print("versions.py --self-test: a release in a scratch clone did every step, and a drift after it was caught")
        return
    if args not in ([], ["--resolve"]):
        sys.exit(__doc__)
    problems = check()
    if not problems and args == ["--resolve"]:
        problems = resolve()
    if problems:
        print("versions.py: the version story does not hold:\n  " + "\n  ".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"versions.py: {library_version()} everywhere it is named; every install line resolves by what this clone has")


if __name__ == "__main__":
    main(sys.argv[1:])
