#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The second command of the README (and what CI runs, .ci/run): installs, builds and runs the
# whole Qt Test suite through CTest, in three builds one after the other, each suite in the
# builds where it checks something the others cannot:
#   build/       Debian's LibTorch 1.13 (CPU), Release: the default build and the .deb. Only the
#                six suites the sanitizers leave out (label `unsanitized`: the soak tests, the
#                real hosts, the full disk, the kills, PyTorch reading our files), the runs
#                under torchrun, the CMake checks and the package
#                (-DENSEMBLELAB_UNSANITIZED_TESTS_ONLY=ON)
#   build-cuda/  the PyPI torch wheel's CUDA LibTorch with NCCL (scripts/build-cuda.sh): the
#                suites whose code meets LibTorch (below)
#   build-asan/  Debian's LibTorch again, our code under ASan + UBSan (scripts/sanitize.sh):
#                every suite but the six
# So a suite runs against both LibTorchs, but for the window's (torch-free) and the CUDA
# build's four (below), and under the sanitizers, but for the six: CI's 90 minutes on two
# cores no longer hold the Debian build running them all a third time (docs/CI.md).
# All three use the wheel's Python to read our checkpoints; the plain two, its torchrun to
# launch ranks.
#   bash scripts/test.sh [CTEST_ARGS...]   BUILDS="debian", "cuda" or "sanitized" for one
# (`ctest` in a build/ configured with -DENSEMBLELAB_UNSANITIZED_TESTS_ONLY=OFF, the default of
# scripts/build.sh on a new folder, runs every suite in the Release build.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
venv="$(bash scripts/torch-venv.sh)"
wheel_tools=(-DENSEMBLELAB_TEST_PYTHON="$venv/bin/python" -DENSEMBLELAB_TORCHRUN="$venv/bin/torchrun")
for kind in ${BUILDS:-debian cuda sanitized}; do
  case "$kind" in
    debian) dir=build; bash scripts/build.sh "${wheel_tools[@]}" -DENSEMBLELAB_UNSANITIZED_TESTS_ONLY=ON ;;
    # The window's tests are torch-free and run under the sanitizers; the CUDA build runs the
    # suites whose code meets its LibTorch. Nor does it build (70 CPU-seconds) or run four
    # suites whose subject is below or beside LibTorch, each run in build/ or build-asan/
    # (on CI's kind of machine, the first three took 213 of this suite's 633 test-seconds
    # on 2026-12-06, TestSweep 76 of 1,083 on 2026-12-07):
    #   TestHosts          ranks on network namespaces: the links between hosts (cut, slow,
    #                      named); the wheel's c10d ranks are TestDistributed's, in this build
    #   TestFullDisk       a real full disk: our writes and their messages
    #   TestKillAnywhere   SIGKILL at random points, then resume: the resume is
    #                      TestCheckpointResume's, the torn files the fuzz corpora's, all in
    #                      this build
    #   TestSweep          a sweep's grid, pairing, lock and resume over CLI runs: the runs'
    #                      training is TestCli's, in this build
    cuda) dir=build-cuda
          bash scripts/build-cuda.sh -DENSEMBLELAB_WINDOW_TESTS=OFF \
            "-DENSEMBLELAB_SUITES_LEFT_OUT=TestHosts;TestFullDisk;TestKillAnywhere;TestSweep" ;;
    # The wheel's Python (PyTorch, NumPy, TensorBoard read our files), but not its torchrun:
    # TestDistributed's three runs under it took 170 s there, and run in build/ instead
    # (TestDistributedUnderTorchrun) and in build-cuda/.
    sanitized) ENSEMBLELAB_TEST_PYTHON="$venv/bin/python" bash scripts/sanitize.sh address "$@"
               continue ;;
    *) echo "test.sh: unknown build '$kind' in BUILDS; the builds are debian, cuda and sanitized" >&2; exit 2 ;;
  esac
  echo "== test.sh: the suite in $dir/"
  (cd "$dir" && ctest --output-on-failure -j "${JOBS:-2}" "$@")
done
