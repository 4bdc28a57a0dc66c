#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer harnesses (clang, ASan + UBSan) and fuzzes each for a bounded time.
#   bash scripts/fuzz.sh [SECONDS_EACH=60] [HARNESS...]
# Each harness starts from its checked-in corpus (tests/fuzz/corpus/<name>) and writes what
# it discovers to build-fuzz/corpus/<name>; a crash leaves crash-* in build-fuzz/findings/
# and fails the script. Add a fixed crash input to the checked-in corpus as a regression.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(FuzzIdx FuzzCsvImport FuzzNpzImport FuzzExperimentConfig FuzzDeviceSpec FuzzCheckpoint FuzzRunFolder)
if ! command -v clang++-14 >/dev/null || ! ls /usr/lib/llvm-14/lib/clang/14*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  apt-get install -y --no-install-recommends clang-14 libclang-rt-14-dev
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENSEMBLELAB_FUZZ=ON >/dev/null
cmake --build build-fuzz -j "${JOBS:-2}" --target "${harnesses[@]}"
mkdir -p build-fuzz/findings
export ASAN_OPTIONS="detect_leaks=0 quarantine_size_mb=64"  # small quarantine: freed blocks count against -rss_limit_mb
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1"
export QT_QPA_PLATFORM=offscreen
status=0
for harness in "${harnesses[@]}"; do
  mkdir -p "build-fuzz/corpus/$harness"
  echo "== $harness for ${seconds}s"
  if ! "build-fuzz/tests/fuzz/$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -artifact_prefix="build-fuzz/findings/$harness-" -print_final_stats=1 \
      "build-fuzz/corpus/$harness" "tests/fuzz/corpus/$harness" 2>&1 | tee "build-fuzz/findings/$harness.log" \
      | grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY|contract broken)'; then
    :
  fi
  if ls build-fuzz/findings/"$harness"-crash-* build-fuzz/findings/"$harness"-timeout-* \
        build-fuzz/findings/"$harness"-oom-* >/dev/null 2>&1; then
    echo "!! $harness found a problem: see build-fuzz/findings/"
    status=1
  fi
done
exit $status
