#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What only a GPU machine can show, in one run: builds the CUDA build, then checks
#   1. the devices the CLI sees;
#   2. the same ensemble on `cpu*2` and on `cuda:0*2` (same seeds, same batches: close
#      metrics, not bit-equal, since cuDNN's kernels are not the CPU's);
#   3. NCCL's average across every visible GPU (TestNcclCommunicator), and an ensemble on
#      `cuda*N` through the in-process NCCL communicator where there are two GPUs or more;
#   4. c10d's NCCL process group with two ranks where there are two GPUs, against `cuda*2`;
#   5. the ensemble of 8 on one GPU, separate and stacked members, fp32 / tf32 / bf16.
# and writes a Markdown report (commands, exit codes, the figures). Each step is recorded
# whether it passes or not; the script exits 1 if any failed, 2 where there is no GPU.
#   bash scripts/gpu-check.sh [REPORT.md]       default: gpu-report.md, or $OUT/gpu-report.md
# Torch comes from $TORCH_PYTHON, else scripts/torch-venv.sh's environment if it exists,
# else the python3 on PATH (GPU machines often have PyTorch but no network).
set -uo pipefail
cd "$(dirname "$0")/.."
report="${1:-${OUT:-.}/gpu-report.md}"
export PATH="$PATH:/usr/local/cuda/bin"
work="$(mktemp -d)"
failures=0

python="${TORCH_PYTHON:-}"
if [ -z "$python" ]; then
  venv="${ENSEMBLELAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ensemblelab}"
  python="$(ls -d "$venv"/torch-*/bin/python 2>/dev/null | tail -1)"
  [ -n "$python" ] || python=python3
fi

{
  echo "# GPU check, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- commit: \`$(git rev-parse --short HEAD 2>/dev/null || echo unknown)\`"
  echo "- GPUs: $( (command -v nvidia-smi >/dev/null && nvidia-smi -L 2>&1 || echo 'nvidia-smi: not found') | paste -sd ';' -)"
  echo "- torch: $("$python" -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda)' 2>&1 | tail -1) ($python)"
  echo "- nvcc: $(nvcc --version 2>&1 | tail -1)"
  echo
} >"$report"

# step TITLE COMMAND...: runs it, records the command, its exit code and the tail of its output.
step() {
  local title="$1"
  shift
  local log="$work/step.log" started=$SECONDS status
  "$@" >"$log" 2>&1
  status=$?
  [ $status -eq 0 ] || failures=$((failures + 1))
  {
    echo "## $title — $([ $status -eq 0 ] && echo passed || echo "FAILED (exit $status)") in $((SECONDS - started)) s"
    echo
    echo '```'
    echo "\$ $*"
    tail -n 25 "$log"
    echo '```'
    echo
  } >>"$report"
  echo "gpu-check: $title: exit $status" >&2
  return $status
}

note() { printf '%s\n\n' "$*" >>"$report"; }

torch_prefix="$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null | tail -1)"
build_tests=OFF  # TestNcclCommunicator needs Qt Test
ls /usr/lib/*/cmake/Qt6Test/Qt6TestConfig.cmake >/dev/null 2>&1 && build_tests=ON
configure=(cmake -S . -B build-cuda -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$torch_prefix"
           -DENSEMBLELAB_BUILD_TESTS="$build_tests")
command -v ninja >/dev/null && [ ! -f build-cuda/CMakeCache.txt ] && configure+=(-G Ninja)
targets=(ensemble-lab-cli ensemble-lab-bench)
[ "$build_tests" = ON ] && targets+=(TestNcclCommunicator)
if ! step "Configure the CUDA build" "${configure[@]}" ||
   ! step "Build ${targets[*]}" cmake --build build-cuda -j "$(nproc)" --target "${targets[@]}"; then
  echo "gpu-check: the build failed; see $report" >&2
  exit 1
fi
cli=build-cuda/app/ensemble-lab-cli
bench=build-cuda/bench/ensemble-lab-bench

step "1. Devices" "$cli" devices
gpus="$("$python" -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null | tail -1)"
gpus="${gpus:-0}"
if [ "$gpus" -eq 0 ]; then
  note "**No usable GPU here** (\`$cli devices\` above says why): the GPU steps were not run."
  echo "gpu-check: no GPU; report in $report" >&2
  exit 2
fi

# The metrics of a run's summary.json as one line.
summary() {
  "$python" -c 'import json,sys; s=json.load(open(sys.argv[1]+"/summary.json")); e=s["ensemble"]
print(s["status"], s["devices"], "ensemble acc %.4f nll %.4f" % (e["test_accuracy"], e["test_nll"]),
      "members", " ".join("%.4f" % m["test_accuracy"] for m in s["members"]), "| %.0f img/s" % s["images_per_second"])' "$1"
}
# Ensemble test accuracies of two runs within `tolerance` of each other.
close() {
  "$python" -c 'import json,sys; a,b=(json.load(open(p+"/summary.json"))["ensemble"]["test_accuracy"] for p in sys.argv[1:3])
d=abs(a-b); print("ensemble test accuracy %.4f vs %.4f, difference %.4f (allowed %s)" % (a,b,d,sys.argv[3])); sys.exit(d > float(sys.argv[3]))' "$1" "$2" "$3"
}

run=(train --dataset fashion-mnist --mode ensemble --epochs 1 --train-limit 12800 --seed 1)
step "2a. Ensemble on cpu*2" "$cli" "${run[@]}" --devices 'cpu*2' --out "$work/cpu2" && note "$(summary "$work/cpu2")"
step "2b. Ensemble on cuda:0*2" "$cli" "${run[@]}" --devices 'cuda:0*2' --out "$work/gpu2" && note "$(summary "$work/gpu2")"
step "2c. cpu*2 and cuda:0*2 agree" close "$work/cpu2" "$work/gpu2" 0.01

if [ -x build-cuda/tests/TestNcclCommunicator ]; then
  step "3a. NCCL average across the $gpus visible GPU(s)" build-cuda/tests/TestNcclCommunicator
else
  note "3a. TestNcclCommunicator not built (no Qt 6 here); 3b covers NCCL where there are two GPUs."
fi
if [ "$gpus" -ge 2 ]; then
  step "3b. Ensemble on cuda*2 through NCCL" "$cli" "${run[@]}" --devices 'cuda*2' --out "$work/nccl2" &&
    note "$(summary "$work/nccl2")"
  step "3c. cuda*2 and cuda:0*2 agree" close "$work/nccl2" "$work/gpu2" 0.01
  port=$((29000 + RANDOM % 1000))
  two_ranks() {
    "$cli" "${run[@]}" --devices cuda:0 --world-size 2 --rank 0 --master-port $port --backend nccl --out "$work/pg2" &
    local first=$!
    "$cli" "${run[@]}" --devices cuda:1 --world-size 2 --rank 1 --master-port $port --backend nccl
    local second=$?
    wait $first && [ $second -eq 0 ]
  }
  step "4a. c10d NCCL group, two ranks" two_ranks && note "$(summary "$work/pg2")"
  step "4b. two ranks and cuda*2 agree" close "$work/pg2" "$work/nccl2" 0.002
else
  note "3b-4b. One GPU: the in-process NCCL ensemble and c10d's NCCL group need two (NCCL refuses two ranks on one GPU)."
fi

note "## 5. Ensemble of 8 on cuda:0 (member-images/s; ensemble-lab-bench, 200 steps after 20 warm-up)"
for form in separate stacked; do
  for precision in fp32 tf32 bf16; do
    step "5. $form, $precision" "$bench" --model cnn --mode ensemble --devices 'cuda:0*8' \
      --member-form "$form" --precision "$precision" --steps 200 --warmup 20 --test-limit 10000
  done
done
if [ -f bench/flax_peer.py ] && "$python" -c 'import jax, flax, optax' 2>/dev/null; then
  step "5. Flax's own program (pmap/vmap), 8 members" "$python" bench/flax_peer.py --members 8 --steps 200 --warmup 20
else
  note "5. Flax peer not run: jax, flax and optax are not installed for $python."
fi

echo "gpu-check: $failures step(s) failed; report in $report" >&2
[ $failures -eq 0 ]
