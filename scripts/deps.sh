#!/usr/bin/env bash
# Installs what a target needs, and nothing when it is already there.
#   scripts/deps.sh          what building and testing the library needs: system packages, and the
#                            Python servers the tests start (httpbin, hypercorn, mitmproxy, trustme)
#                            in .venv/
#   scripts/deps.sh core     what building the library alone needs (the demos): the system's libcurl,
#                            OpenSSL and zlib headers and pkg-config; no Python, no .venv
#   scripts/deps.sh bench    plus what `make bench` needs
#   scripts/deps.sh stress   plus what `make stress` needs
#   scripts/deps.sh fuzz     plus what `make fuzz` needs
#   scripts/deps.sh instructions  what `make instructions` needs: the core's packages, valgrind,
#                            nginx-light and objcopy (binutils); no .venv
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

core=(libcurl4-openssl-dev libssl-dev zlib1g-dev pkg-config ca-certificates)
packages=("${core[@]}" curl tinyproxy python3-venv)
case "${1:-}" in
    core) packages=("${core[@]}") ;;
    instructions) packages=("${core[@]}" valgrind nginx-light binutils) ;;
    bench) packages+=(nginx-light wrk nghttp2-client time) ;;
    stress) packages+=(valgrind) ;;
esac

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${1:-} == core ]] || command -v python3 >/dev/null 2>&1 || missing+=(python3)

if ((${#missing[@]} > 0)); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "Missing system packages: ${missing[*]}" >&2
        echo "Install them with:  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    echo "Installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # policy-rc.d: packages with a service (tinyproxy) must not start it; the tests start their own.
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    apt-get install -y -q --no-install-recommends "${missing[@]}"
    rm -f /usr/sbin/policy-rc.d
fi

[[ ${1:-} == core || ${1:-} == instructions ]] && exit 0

# The Python test servers, pinned, in a virtual environment of the project's own.
requirements=scripts/requirements-test.txt
stamp=.venv/.installed
if [[ ! -f $stamp ]] || ! cmp -s "$requirements" "$stamp"; then
    echo "Creating .venv with $(tr '\n' ' ' < "$requirements")"
    rm -rf .venv
    python3 -m venv .venv
    .venv/bin/pip install -q --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
fi
