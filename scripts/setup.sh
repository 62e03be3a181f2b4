#!/usr/bin/env bash
# Installs the Debian packages ctwin builds with, only those that are missing.
# Runs as root (or through sudo) on Debian 12; a no-op when everything is present.
# clang and its runtime (libclang-rt-14-dev: ASan, UBSan, libFuzzer) are for
# `scripts/test.sh --sanitize` and the fuzz targets (docs/hardening.md); lld links that build.
# Ninja and ccache make rebuilds faster (docs/development.md); the scripts use them when present.
set -euo pipefail

packages=(
  build-essential cmake pkg-config ninja-build ccache
  libboost-graph-dev libeigen3-dev libsimgrid-dev nlohmann-json3-dev libtbb-dev
  libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pytest
  python3-pandas python3-matplotlib python3-nbclient python3-nbformat python3-ipykernel
  python3-distributed
  clang libclang-rt-14-dev lld
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "ctwin setup: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
