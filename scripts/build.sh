#!/usr/bin/env bash
# Configures and builds EnsembleLab into build/ (Release, two parallel jobs: LibTorch
# translation units need about 1.5 GB of memory each). Arguments go to CMake's configure
# step, e.g. -DENSEMBLELAB_TEST_PYTHON=... (scripts/test.sh passes the torch wheel's).
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && [ ! -f build/CMakeCache.txt ] && generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "${JOBS:-2}"
