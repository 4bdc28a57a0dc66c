#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The second command of the README (and what CI runs): installs, builds and runs the whole
# Qt Test suite through CTest, in both supported builds, one after the other:
#   build/       Debian's LibTorch 1.13 (CPU), the default build and the .deb
#   build-cuda/  the PyPI torch wheel's CUDA LibTorch with NCCL (scripts/build-cuda.sh): all
#                but the window's tests, which include no LibTorch header (ctest -L ui in build/),
#                and three suites whose subject is not LibTorch (below)
# Both run their checkpoints through the wheel's PyTorch and their ranks under its torchrun.
#   bash scripts/test.sh [CTEST_ARGS...]        BUILDS="debian" or BUILDS="cuda" for one
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
venv="$(bash scripts/torch-venv.sh)"
wheel_tools=(-DENSEMBLELAB_TEST_PYTHON="$venv/bin/python" -DENSEMBLELAB_TORCHRUN="$venv/bin/torchrun")
for kind in ${BUILDS:-debian cuda}; do
  only_in_debian=()
  case "$kind" in
    debian) dir=build; bash scripts/build.sh "${wheel_tools[@]}" ;;
    # The window's tests are torch-free and run in build/; the CUDA build runs the suites
    # whose code meets its LibTorch (CI's 90 minutes hold three builds on two cores). Nor
    # does it run three suites whose subject is below or beside LibTorch, which took 213 of
    # its 633 test-seconds in CI's kind of machine (2026-12-06):
    #   TestHosts          ranks on network namespaces: the links between hosts (cut, slow,
    #                      named); the wheel's c10d ranks are TestDistributed's, in this build
    #   TestFullDisk       a real full disk: our writes and their messages
    #   TestKillAnywhere   SIGKILL at random points, then resume: the resume is
    #                      TestCheckpointResume's and TestSweep's, the torn files the fuzz
    #                      corpora's, all in this build
    cuda) dir=build-cuda; bash scripts/build-cuda.sh -DENSEMBLELAB_WINDOW_TESTS=OFF
          only_in_debian=(-E '^(TestHosts|TestFullDisk|TestKillAnywhere)$') ;;
    *) echo "test.sh: unknown build '$kind' in BUILDS; the builds are debian and cuda" >&2; exit 2 ;;
  esac
  echo "== test.sh: the suite in $dir/"
  (cd "$dir" && ctest --output-on-failure -j "${JOBS:-2}" "${only_in_debian[@]}" "$@")
done
