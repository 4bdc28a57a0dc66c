#!/usr/bin/env bash
# The second command of the README (and what CI runs): install, build, and run the whole
# Qt Test suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cd build
ctest --output-on-failure -j "${JOBS:-2}" "$@"
