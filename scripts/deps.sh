#!/usr/bin/env bash
# Installs the system packages a target needs, and nothing when they are already there.
#   scripts/deps.sh          what building and testing the library needs
#   scripts/deps.sh bench    plus what `make bench` needs
#   scripts/deps.sh stress   plus what `make stress` needs
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -euo pipefail

packages=(libcurl4-openssl-dev libssl-dev curl ca-certificates)
if [[ "${1:-}" == "bench" ]]; then
    packages+=(nginx-light wrk nghttp2-client time)
fi
if [[ "${1:-}" == "stress" ]]; then
    packages+=(valgrind)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v python3 >/dev/null 2>&1 || missing+=(python3)

if ((${#missing[@]} == 0)); then
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    echo "Missing system packages: ${missing[*]}" >&2
    echo "Install them with:  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
