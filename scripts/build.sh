#!/usr/bin/env bash
# Configures and builds EnsembleLab into build/ (Release, two parallel jobs: LibTorch
# translation units need about 1.5 GB of memory each).
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j "${JOBS:-2}"
