#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs everything EnsembleLab needs to build, test and run, from Debian 12's packages.
# Run as root (or through sudo). Safe to run again.
set -euo pipefail

packages=(
  # toolchain
  cmake ninja-build g++ pkg-config
  # the engine: LibTorch (CPU) and the headers its c10d Gloo backend needs
  libtorch-dev libgloo-dev
  # libtorch calls libblas.so.3; without OpenBLAS that is the slow netlib reference BLAS
  # (sgemm 7 vs ~220 GFLOP/s on a 2-core machine): training is 3-5x faster with it.
  libopenblas0-pthread
  # file formats
  nlohmann-json3-dev zlib1g-dev
  # the desktop app and the tests
  qt6-base-dev qt6-svg-dev libqcustomplot-dev xvfb xauth
  # the real dataset (/usr/share/datasets/fashion-mnist) and the Python peer that reads
  # our checkpoints with torch.load
  dataset-fashion-mnist python3-torch
  # the Debian package: cpack's dependency scan, man pages, and the validators its test runs
  dpkg-dev file help2man desktop-file-utils appstream lintian
  # TestHosts: ranks on hosts of their own (network namespaces, veth, a bridge, tc netem)
  iproute2
  # TestCli: the CLI's zsh and fish completions, in a real zsh and fish
  zsh fish
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root, e.g. sudo bash scripts/install-deps.sh" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
