#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The second command of the README (and what CI runs): installs, builds and runs the whole
# Qt Test suite through CTest, in both supported builds, one after the other:
#   build/       Debian's LibTorch 1.13 (CPU), the default build and the .deb
#   build-cuda/  the PyPI torch wheel's CUDA LibTorch with NCCL (scripts/build-cuda.sh): all
#                but the window's tests, which include no LibTorch header (ctest -L ui in build/)
# Both run their checkpoints through the wheel's PyTorch and their ranks under its torchrun.
#   bash scripts/test.sh [CTEST_ARGS...]        BUILDS="debian" or BUILDS="cuda" for one
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
venv="$(bash scripts/torch-venv.sh)"
wheel_tools=(-DENSEMBLELAB_TEST_PYTHON="$venv/bin/python" -DENSEMBLELAB_TORCHRUN="$venv/bin/torchrun")
for kind in ${BUILDS:-debian cuda}; do
  case "$kind" in
    debian) dir=build; bash scripts/build.sh "${wheel_tools[@]}" ;;
    # The window's tests are torch-free and run in build/; the CUDA build runs the suites
    # whose code meets its LibTorch (CI's 90 minutes hold three builds on two cores).
    cuda) dir=build-cuda; bash scripts/build-cuda.sh -DENSEMBLELAB_WINDOW_TESTS=OFF ;;
    *) echo "test.sh: unknown build '$kind' in BUILDS; the builds are debian and cuda" >&2; exit 2 ;;
  esac
  echo "== test.sh: the whole suite in $dir/"
  (cd "$dir" && ctest --output-on-failure -j "${JOBS:-2}" "$@")
done
