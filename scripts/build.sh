#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Configures and builds EnsembleLab into build/ (Release, two parallel jobs: LibTorch
# translation units need about 1.5 GB of memory each). Arguments go to CMake's configure
# step, e.g. -DENSEMBLELAB_TEST_PYTHON=... (scripts/test.sh passes the torch wheel's).
# TARGETS="a b" builds only those targets (scripts/setup.sh: the app and the CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && [ ! -f build/CMakeCache.txt ] && generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
targets=()
for target in ${TARGETS:-}; do targets+=(--target "$target"); done
cmake --build build -j "${JOBS:-2}" "${targets[@]}"
