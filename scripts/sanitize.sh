#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds EnsembleLab with sanitizers on our own code and runs the test suite under them.
#   bash scripts/sanitize.sh            ASan + UBSan, the suite but for the .deb, six suites and the
#                                       bench programs' checks (build-asan/)
#   bash scripts/sanitize.sh thread     TSan, the tests that cross threads (build-tsan/)
# ENSEMBLELAB_TEST_PYTHON and ENSEMBLELAB_TORCHRUN, where set (scripts/test.sh sets the torch
# wheel's), go to CMake: the tests that read our files in PyTorch, TensorBoard or NumPy, and
# launch ranks under torchrun, run rather than skip.
# Any report fails the run: UBSan aborts on the first finding, ASan/LSan exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-address}"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
suppressions="$PWD/tests/sanitizers"
if [ "$kind" = thread ]; then
  dir=build-tsan
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENSEMBLELAB_SANITIZE=thread
  cmake --build "$dir" -j "${JOBS:-2}" --target TestRunControl TestRunController ensemble-lab-cli
  export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$suppressions/tsan.supp"
  cd "$dir"
  ctest --output-on-failure -R '^(TestRunControl|TestRunController)$'
else
  dir=build-asan
  wheel_tools=()
  [ -n "${ENSEMBLELAB_TEST_PYTHON:-}" ] && wheel_tools+=(-DENSEMBLELAB_TEST_PYTHON="$ENSEMBLELAB_TEST_PYTHON")
  [ -n "${ENSEMBLELAB_TORCHRUN:-}" ] && wheel_tools+=(-DENSEMBLELAB_TORCHRUN="$ENSEMBLELAB_TORCHRUN")
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENSEMBLELAB_SANITIZE=address,undefined \
        "${wheel_tools[@]}"
  cmake --build "$dir" -j "${JOBS:-2}"
  export ASAN_OPTIONS="detect_leaks=1 abort_on_error=0 strict_string_checks=1 detect_stack_use_after_return=1"
  export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1"
  cd "$dir"
  # Not here: the .deb (built from build/), and the suites tests/CMakeLists.txt labels
  # `unsanitized` and does not build here (it says why for each).
  ctest --output-on-failure -j "${JOBS:-2}" -LE "package|unsanitized" "${@:2}"
fi
