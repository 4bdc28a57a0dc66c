#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian package from a clean build folder (default build-deb/) and prints its
# path. Usage: bash packaging/build-deb.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-deb}
rm -rf "$build"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DENSEMBLELAB_BUILD_TESTS=OFF
cmake --build "$build" -j "${JOBS:-2}"
(cd "$build" && cpack -G DEB)
ls "$build"/ensemble-lab_*_amd64.deb
