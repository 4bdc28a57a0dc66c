#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What only a GPU machine can show, in one run: builds the CUDA build, then checks
#   1. the devices the CLI sees, and `devices --check` (NCCL across every GPU, Gloo on the CPU);
#   1c. our CUDA kernels against LibTorch's ops: the fused ReLU + pool bit for bit, the fused
#       first layer (convolution + ReLU + pool) and the grouped convolution (fp32, TF32, bf16)
#       to their rounding, and the same bits twice;
#   1d. the two convolution layers timed alone, ours against LibTorch's, forward + backward,
#       8 and 16 members in fp32 / tf32 / bf16 (ensemble-lab-layer-timing: a table, no verdict);
#   1f, 1g. 1c's check and 1d's timing again with the grouped convolution on the mma.sync
#       kernels (ENSEMBLELAB_STACKED_CONV=ours-mma-sync; fp32 as three TF32 products);
#   1h. 1f and 1g with the mma.sync forward's filters staged for 16-byte copies
#       (ENSEMBLELAB_MMA_SYNC_WEIGHTS=staged), and in 2p a run with them to 2j's bits;
#   2. the same ensemble on `cpu*2` and on `cuda:0*2` in fp32 (IEEE float32, TF32 off):
#      train loss equal to 1e-5 at step 10, and its mean over steps 1-100 to 5e-3 (docs/GPU.md,
#      "what a tolerance over 100 steps catches"); in deterministic mode the same seed twice
#      gives identical metrics.csv and checkpoints, and a run killed
#      mid-way and resumed gives the uninterrupted run's metrics.csv byte for byte; the
#      default member form (auto) stacks the members of one GPU; a step replayed from a CUDA
#      graph (--cuda-graphs on; stacked members, and a single model) gives the eager run's
#      metrics.csv byte for byte, and so does a graph run killed and resumed, one in bf16, and
#      one whose rate varies every step (a warmup, then cosine: 2o);
#   3. NCCL's average across every visible GPU (TestNcclCommunicator), and an ensemble on
#      `cuda*N` through the in-process NCCL communicator where there are two GPUs or more;
#   4. c10d's NCCL process group with two ranks where there are two GPUs, against `cuda*2`;
#      with one GPU, two NCCL ranks on it are refused in a sentence (no backtrace, exit 1);
#   5. the ensemble of 8 on one GPU, separate and stacked members, fp32 / tf32 / bf16, and
#      fp32 with deterministic kernels off (what determinism costs); stacked fp32 / bf16 and
#      the single model with CUDA graphs (what they gain); scoring an evaluation's probabilities
#      on the host and on the GPU (ensemble-lab-metrics-bench);
#   6. bench/run_bench.py --gpu --quick: ours (separate and stacked) against the PyTorch loop,
#      PyTorch vmap + torch.compile and the Flax HOWTO's vmap, 8 members at batch 128, fp32
#      and bf16, medians of $GPU_BENCH_REPEATS (default 3; 0 leaves the step out, it takes
#      minutes); its JSON in $OUT/gpu-bench.json (else beside the report), its table in the report.
# and writes a Markdown report (commands, exit codes, the figures). Each step is recorded
# whether it passes or not; the script exits 1 if any failed, 2 where there is no GPU.
#   bash scripts/gpu-check.sh [REPORT.md]   default: docs/gpu-reports/<date>-<gpu>.md (and a
#                                           copy in $OUT, which a device run sends back)
# For a device call that must also measure (bench/gpu_session.sh): GPU_CHECK_SANITIZERS=0 leaves
# 1e out (about 80 s on an H200; worth it where no kernel changed since a report that ran it), and
# GPU_CHECK_LAST_STEP=4 ends after step 4 (5 and 6 measure; run_bench.py --gpu measures more).
# Torch comes from $TORCH_PYTHON, else scripts/torch-venv.sh's environment if it exists,
# else the python3 on PATH (GPU machines often have PyTorch but no network).
set -uo pipefail
cd "$(dirname "$0")/.."
gpu_name="$( (nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo no-gpu) | head -1 |
  tr -c 'A-Za-z0-9\n' '-' | tr -s '-' | sed 's/-$//')"
report="${1:-docs/gpu-reports/$(date -u +%F)-${gpu_name:-gpu}.md}"
mkdir -p "$(dirname "$report")"
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
# The end of every run: the report to $OUT, the verdict as the exit status (0: every step passed).
finish() {
  [ -n "${OUT:-}" ] && cp "$report" "$OUT/" 2>/dev/null
  echo "gpu-check: $failures step(s) failed; report in $report" >&2
  [ $failures -eq 0 ]
  exit
}

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
step "1b. devices --check: all-reduce across every GPU (NCCL) and two CPU ranks (Gloo)" "$cli" devices --check --timeout 180
# on-device.sh builds the CLI and the bench by default; the kernel check and the layer timing are built here.
kernel_check=build-cuda/bench/ensemble-lab-kernel-check
[ -x "$kernel_check" ] || cmake --build build-cuda --target ensemble-lab-kernel-check >"$work/kernel-check-build.log" 2>&1
step "1c. Fused CUDA kernels against LibTorch's ops: ReLU + pool bit for bit (fp32, bf16, fp16; NCHW, NHWC), the first layer and the grouped convolution to their rounding" \
  "$kernel_check" --device cuda:0
# Our kernels under compute-sanitizer, on the kernel check's small cases: what a right answer
# can hide (a read past a buffer that happened to hold zeros, a misaligned access, a
# shared-memory race that the timing let pass, a barrier not every thread reaches). Only
# kernels whose name holds "ensemble" (ours) are instrumented; LibTorch's run as they are.
# (Not initcheck: with the others uninstrumented it could not know that LibTorch's kernels
# wrote our inputs.)
sanitize_our_kernels() {
  local sanitizer filter tool
  sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  [ -x "$sanitizer" ] || { echo "compute-sanitizer is not installed here"; return 1; }
  # The option that picks kernels by name has been --filter, --kernel-regex and --kernel-name
  # over CUDA's releases: the newest this one's help lists (none: every kernel is checked).
  local help option
  help="$("$sanitizer" --help 2>&1)"
  filter=()
  for option in --kernel-name --kernel-regex --filter; do
    if grep -q -- "$option " <<<"$help"; then filter=("$option" kns=ensemble); break; fi
  done
  echo "compute-sanitizer $("$sanitizer" --version 2>&1 | grep -o '[0-9][0-9.]*' | head -1); kernels: ${filter[*]:-all}"
  # Then the mma.sync kernels (cp.async's stages in flight: a race there is what racecheck sees).
  for tool in memcheck racecheck synccheck memcheck:ours-mma-sync racecheck:ours-mma-sync; do
    local kernels="${tool#*:}" log="$work/sanitizer-${tool/:/-}.log" status
    [ "$kernels" = "$tool" ] && kernels=ours
    timeout 120 env ENSEMBLELAB_STACKED_CONV="$kernels" "$sanitizer" --tool "${tool%%:*}" "${filter[@]}" \
      --error-exitcode 3 "$kernel_check" --device cuda:0 --small >"$log" 2>&1
    status=$?
    if [ "$status" -ne 0 ]; then
      echo "compute-sanitizer --tool $tool failed (exit $status: 3 a finding, 124 out of time, else the check's own):"
      grep -m 60 '^=========' "$log" || tail -40 "$log"
      return 1
    fi
    echo "$tool: $(grep -E '^========= [A-Z ]*SUMMARY' "$log" | tail -1) ($(tail -1 "$log"))"
  done
}
if [ "${GPU_CHECK_SANITIZERS:-1}" != 0 ]; then
  step "1e. Our CUDA kernels under compute-sanitizer: memcheck, racecheck, synccheck (small cases)" \
    sanitize_our_kernels
else
  note "1e. compute-sanitizer left out (GPU_CHECK_SANITIZERS=0)."
fi
layer_timing=build-cuda/bench/ensemble-lab-layer-timing
[ -x "$layer_timing" ] || cmake --build build-cuda --target ensemble-lab-layer-timing >"$work/layer-timing-build.log" 2>&1
step "1d. The two convolution layers alone, ours against LibTorch's, forward + backward (medians; no verdict)" \
  "$layer_timing" --device cuda:0
# The mma.sync kernels (GroupedConvMmaSyncKernels.cuh; fp32's default since the 2026-12-04 run of
# these steps on an H200; 1c and 1d check our CUDA-core kernels, ENSEMBLELAB_STACKED_CONV=ours):
# fp32 as three TF32 products of split operands must meet fp32's tolerances, then their layer
# timing beside 1d's (the "ours" column: the grouped convolution's three passes on them).
step "1f. The kernel check with the grouped convolution on mma.sync (ENSEMBLELAB_STACKED_CONV=ours-mma-sync)" \
  env ENSEMBLELAB_STACKED_CONV=ours-mma-sync "$kernel_check" --device cuda:0
step "1g. 1d's layer timing with the grouped convolution on mma.sync (medians; no verdict)" \
  env ENSEMBLELAB_STACKED_CONV=ours-mma-sync "$layer_timing" --device cuda:0 --precisions fp32,tf32
# The mma.sync forward with its filters staged for 16-byte copies (ENSEMBLELAB_MMA_SYNC_WEIGHTS=staged,
# GroupedConvMmaSyncKernels.cuh; not yet the default: it had not run on a GPU): 1f's check, then
# 1g's timing to set beside 1g's; 2p checks that it trains to the same bits.
staged=(env ENSEMBLELAB_STACKED_CONV=ours-mma-sync ENSEMBLELAB_MMA_SYNC_WEIGHTS=staged)
step "1h. 1f with the mma.sync filters staged (ENSEMBLELAB_MMA_SYNC_WEIGHTS=staged)" \
  "${staged[@]}" "$kernel_check" --device cuda:0
step "1h. 1g with the mma.sync filters staged (medians; no verdict)" \
  "${staged[@]}" "$layer_timing" --device cuda:0 --precisions fp32,tf32
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

# The ensemble's train loss in two runs' metrics.csv (logged every step), within `tolerance`:
#   same_loss A B STEP TOLERANCE [batch|mean]
# batch: the loss of that step's batch; mean: the mean of the batch losses of steps 1..STEP
# (bench/run_losses.py says why the mean shows the arithmetic where one batch's loss drifts).
same_loss() { "$python" bench/run_losses.py "$@"; }
# Two run folders hold identical metrics.csv and identical checkpoint files.
identical_runs() {
  cmp "$1/metrics.csv" "$2/metrics.csv" &&
    diff <(cd "$1/checkpoints" && find . -name '*.pt' -exec sha256sum {} + | sort -k2) \
         <(cd "$2/checkpoints" && find . -name '*.pt' -exec sha256sum {} + | sort -k2) &&
    echo "metrics.csv and every checkpoint file identical"
}
# Trains, is killed (SIGKILL) at its second checkpoint, resumes: the result must be `$1`'s.
killed_and_resumed() {
  ENSEMBLELAB_CRASH_AT=checkpoint-published:2 "$cli" "${run[@]}" --log-every 1 --checkpoint-every 30 \
    --devices 'cuda:0*2' --out "$work/killed"
  echo "first session ended with exit $? (killed on purpose)"
  "$cli" resume --run "$work/killed" && cmp "$1/metrics.csv" "$work/killed/metrics.csv" &&
    echo "resumed run's metrics.csv is the uninterrupted run's, byte for byte"
}

# Separate members on both sides: the default (auto) would stack the GPU's two members, and
# the comparison is of the devices' arithmetic, not of the two forms' summation orders.
run=(train --dataset fashion-mnist --mode ensemble --epochs 1 --train-limit 12800 --seed 1 --precision fp32
  --member-form separate)
step "2a. Ensemble on cpu*2" "$cli" "${run[@]}" --log-every 1 --devices 'cpu*2' --out "$work/cpu2" && note "$(summary "$work/cpu2")"
step "2b. Ensemble on cuda:0*2" "$cli" "${run[@]}" --log-every 1 --devices 'cuda:0*2' --out "$work/gpu2" &&
  note "$(summary "$work/gpu2")"
step "2c. fp32: cpu*2 and cuda:0*2 agree at step 10 (1e-5)" same_loss "$work/cpu2" "$work/gpu2" 10 1e-5
# Over 100 steps float summation order alone drifts by up to 1.5e-3 (docs/GPU.md); a 1% change
# of the learning rate or of the momentum moves the mean further than 5e-3.
step "2d. fp32: cpu*2 and cuda:0*2 agree over 100 steps (mean train loss, 5e-3)" same_loss "$work/cpu2" "$work/gpu2" 100 5e-3 mean
step "2e. cpu*2 and cuda:0*2 test accuracy agree" close "$work/cpu2" "$work/gpu2" 0.01
step "2f. Deterministic: the same seed again on cuda:0*2" "$cli" "${run[@]}" --log-every 1 --devices 'cuda:0*2' \
  --out "$work/gpu2-again"
step "2g. Deterministic: both runs identical" identical_runs "$work/gpu2" "$work/gpu2-again"
step "2h. Deterministic: killed at a checkpoint and resumed gives the same run" killed_and_resumed "$work/gpu2"
step "2i. Member form and CUDA graphs auto (the defaults): the members of one GPU stacked, in a graph" "$cli" train \
  --dataset fashion-mnist --mode ensemble --epochs 1 --train-limit 1280 --devices 'cuda:0*4' --out "$work/auto4" &&
  step "2i. ... and config.json says stacked, cuda_graphs on" "$python" -c \
    'import json,sys; c=json.load(open(sys.argv[1])); print(c["member_form"], c["cuda_graphs"]); sys.exit((c["member_form"], c["cuda_graphs"]) != ("stacked", "on"))' \
    "$work/auto4/config.json"
# CUDA graphs replay the eager step's own kernels: with deterministic kernels (the default)
# the graph run must give the eager run's metrics.csv byte for byte. The eager twins say
# --cuda-graphs off: auto would capture them too.
graphs=(train --dataset fashion-mnist --mode ensemble --epochs 1 --train-limit 12800 --seed 1 --log-every 1
  --member-form stacked --devices 'cuda:0*4')
step "2j. CUDA graphs: stacked cuda:0*4, eager" "$cli" "${graphs[@]}" --cuda-graphs off --out "$work/eager4"
step "2j. ... the same replayed from a CUDA graph" "$cli" "${graphs[@]}" --cuda-graphs on --out "$work/graph4"
step "2j. ... metrics.csv identical" cmp "$work/eager4/metrics.csv" "$work/graph4/metrics.csv"
# The staged filters (1h) multiply the same products in the same order: fp32 stacked runs on the
# mma.sync kernels by default, so 2j's eager run again with them staged must give its bits.
step "2p. 2j's eager run with the mma.sync filters staged (ENSEMBLELAB_MMA_SYNC_WEIGHTS=staged)" \
  env ENSEMBLELAB_MMA_SYNC_WEIGHTS=staged "$cli" "${graphs[@]}" --cuda-graphs off --out "$work/eager4-staged"
step "2p. ... metrics.csv identical" cmp "$work/eager4/metrics.csv" "$work/eager4-staged/metrics.csv"
single=(train --dataset fashion-mnist --mode single --epochs 1 --train-limit 12800 --seed 1 --log-every 1
  --devices cuda:0)
step "2k. CUDA graphs: single model, eager" "$cli" "${single[@]}" --cuda-graphs off --out "$work/eager1"
step "2k. ... the same replayed from a CUDA graph" "$cli" "${single[@]}" --cuda-graphs on --out "$work/graph1"
step "2k. ... metrics.csv identical" cmp "$work/eager1/metrics.csv" "$work/graph1/metrics.csv"
# What made cuda_graphs safe to turn on by default (auto, for stacked members and the single
# model): a graph run with mid-epoch evaluations and checkpoints, killed at its second
# checkpoint and resumed (a new capture in a new process), and bf16 (autocast inside the
# capture), each against its eager twin.
graphs_more=("${graphs[@]}" --eval-every 40 --checkpoint-every 30)
graph_killed_and_resumed() {
  ENSEMBLELAB_CRASH_AT=checkpoint-published:2 "$cli" "${graphs_more[@]}" --cuda-graphs on --out "$work/graph4-killed"
  echo "first session ended with exit $? (killed on purpose)"
  "$cli" resume --run "$work/graph4-killed" && cmp "$work/eager4b/metrics.csv" "$work/graph4-killed/metrics.csv" &&
    echo "resumed graph run's metrics.csv is the uninterrupted eager run's, byte for byte"
}
step "2l. CUDA graphs: stacked, evaluations and checkpoints mid-epoch, eager" "$cli" "${graphs_more[@]}" \
  --cuda-graphs off --out "$work/eager4b"
step "2l. ... from a CUDA graph, killed at its second checkpoint and resumed: identical" graph_killed_and_resumed
step "2m. CUDA graphs: stacked bf16, eager" "$cli" "${graphs[@]}" --precision bf16 --cuda-graphs off --out "$work/eager4bf"
step "2m. ... the same replayed from a CUDA graph" "$cli" "${graphs[@]}" --precision bf16 --cuda-graphs on \
  --out "$work/graph4bf"
step "2m. ... metrics.csv identical" cmp "$work/eager4bf/metrics.csv" "$work/graph4bf/metrics.csv"
# A rate that varies every step (a warmup, then cosine): the captured update reads it from a
# tensor the optimizer rewrites before each replay (SgdMomentum::setLearningRate). Identical
# to its eager twin, and not the constant-rate run's numbers (the rate did change). When
# this passes, cuda_graphs auto may capture such runs too (resolveCudaGraphs keeps them eager).
scheduled=("${graphs[@]}" --lr-warmup-steps 20 --lr-schedule cosine)
step "2o. CUDA graphs: stacked, warmup + cosine, eager" "$cli" "${scheduled[@]}" --cuda-graphs off --out "$work/eager4s"
step "2o. ... the same replayed from a CUDA graph" "$cli" "${scheduled[@]}" --cuda-graphs on --out "$work/graph4s"
step "2o. ... metrics.csv identical" cmp "$work/eager4s/metrics.csv" "$work/graph4s/metrics.csv"
step "2o. ... and not the constant rate's" bash -c '! cmp -s "$1" "$2"' - "$work/graph4/metrics.csv" \
  "$work/graph4s/metrics.csv"
# An evaluation of members on one GPU is scored there (predictRun leaves their probabilities
# on it): `eval` of the stacked run must give its own last evaluation's scores, and the
# out-of-distribution scores and predictions, which take them to the host, must run.
eval_matches_run() {
  "$cli" eval --run "$work/graph4" --ood inverted --shift noise:0,0.1 >"$work/graph4-eval.json" &&
    "$cli" predict --run "$work/graph4" --out "$work/graph4-predictions.csv" &&
    "$python" - "$work/graph4" <<'PY'
import csv, json, sys
run = sys.argv[1]
evaluated, summary = json.load(open(run + "-eval.json")), json.load(open(run + "/summary.json"))
for key, value in summary["ensemble"].items():
    if abs(evaluated["ensemble"][key] - value) > 1e-12:
        sys.exit(f"eval's ensemble {key} {evaluated['ensemble'][key]} is not the run's own {value}")
print("eval: the run's own ensemble scores", summary["ensemble"], "; OOD AUROC", evaluated["ood"]["ensemble"])
rows = list(csv.reader(open(run + "-predictions.csv")))[1:]
models = len(summary["members"]) + 1
if len(rows) != evaluated["test_samples"] * models:
    sys.exit(f"predict wrote {len(rows)} rows, not {evaluated['test_samples']} images x {models} models")
worst = max(abs(sum(float(p) for p in r[3:]) - 1) for r in rows)
print(f"predict: {len(rows)} rows, probabilities sum to 1 within {worst:.1e}")
sys.exit(worst > 1e-4)
PY
}
step "2n. eval (scored on the GPU) gives the stacked run's own scores; eval --ood and predict run" eval_matches_run

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
  note "3b-4b. One GPU: the in-process NCCL ensemble and c10d's NCCL group need two."
  port=$((29000 + RANDOM % 1000))
  # Two NCCL ranks on one GPU: both refuse in one sentence naming the ranks, exit 1, no backtrace.
  two_ranks_one_gpu() {
    "$cli" "${run[@]}" --devices cuda:0 --world-size 2 --rank 0 --master-port $port --backend nccl --timeout 60 \
      --out "$work/pg-one" 2>"$work/rank0.err" &
    local first=$!
    "$cli" "${run[@]}" --devices cuda:0 --world-size 2 --rank 1 --master-port $port --backend nccl --timeout 60 \
      2>"$work/rank1.err"
    local second=$?
    wait $first
    local firstStatus=$?
    cat "$work/rank0.err" "$work/rank1.err"
    [ $firstStatus -eq 1 ] && [ $second -eq 1 ] && grep -q "both train on the GPU" "$work/rank0.err" &&
      ! grep -q "frame #" "$work/rank0.err" "$work/rank1.err"
  }
  step "4. Two NCCL ranks on one GPU are refused in words" two_ranks_one_gpu
fi

last_step="${GPU_CHECK_LAST_STEP:-6}"
if [ "$last_step" -lt 5 ]; then
  note "5-6. Left out (GPU_CHECK_LAST_STEP=$last_step)."
  finish
fi
note "## 5. Ensemble of 8 on cuda:0 (member-images/s; ensemble-lab-bench, 200 steps after 20 warm-up)"
for form in separate stacked; do
  for precision in fp32 tf32 bf16; do
    step "5. $form, $precision" "$bench" --model cnn --mode ensemble --devices 'cuda:0*8' \
      --member-form "$form" --precision "$precision" --steps 200 --warmup 20 --test-limit 10000
  done
done
step "5. separate, fp32, deterministic off" "$bench" --model cnn --mode ensemble --devices 'cuda:0*8' \
  --member-form separate --precision fp32 --deterministic off --steps 200 --warmup 20 --test-limit 10000
step "5. stacked, fp32, deterministic off" "$bench" --model cnn --mode ensemble --devices 'cuda:0*8' \
  --member-form stacked --precision fp32 --deterministic off --steps 200 --warmup 20 --test-limit 10000
for precision in fp32 tf32 bf16; do
  step "5. stacked, $precision, CUDA graphs" "$bench" --model cnn --mode ensemble --devices 'cuda:0*8' \
    --member-form stacked --precision "$precision" --cuda-graphs on --steps 200 --warmup 20 --test-limit 10000
done
# With deterministic off cuDNN times its algorithms in the eager warm-up steps, before the capture.
step "5. stacked, fp32, deterministic off, CUDA graphs" "$bench" --model cnn --mode ensemble --devices 'cuda:0*8' \
  --member-form stacked --precision fp32 --deterministic off --cuda-graphs on --steps 200 --warmup 20 --test-limit 10000
for graphs in off on; do
  step "5. single model, fp32, CUDA graphs $graphs" "$bench" --model cnn --mode single --devices cuda:0 \
    --precision fp32 --cuda-graphs "$graphs" --steps 200 --warmup 20 --test-limit 10000
done
# An evaluation's scoring: on the host (evaluateMembers' loops) against scoreOnDevice on the GPU
# (what evaluateMembers runs there since DeviceScoring.h), 10,000 images of 10 classes.
metrics_bench=build-cuda/bench/ensemble-lab-metrics-bench
[ -x "$metrics_bench" ] || cmake --build build-cuda --target ensemble-lab-metrics-bench >"$work/metrics-bench-build.log" 2>&1
for members in 8 16; do
  step "5. Scoring $members members' probabilities: host (median_ms) and on cuda:0 (score_on_device)" \
    "$metrics_bench" --members "$members" --repeats 5 --device cuda:0
done
if [ -f bench/flax_peer.py ] && "$python" -c 'import jax, flax, optax' 2>/dev/null; then
  step "5. Flax's own program (vmap on one GPU), 8 members" "$python" bench/flax_peer.py --device cuda --members 8 \
    --steps 200 --warmup 20
else
  note "5. Flax peer not run: jax, flax and optax are not installed for $python."
fi

repeats="${GPU_BENCH_REPEATS:-3}"
if [ "$repeats" -gt 0 ]; then
  note "## 6. Every side on cuda:0 (bench/run_bench.py --gpu --quick: 8 members, batch 128, fp32 and bf16)"
  bench_json="${OUT:+$OUT/gpu-bench.json}"
  bench_json="${bench_json:-${report%.md}-bench.json}"
  step "6. run_bench.py --gpu --quick ($repeats repeats; JSON: $bench_json)" "$python" bench/run_bench.py --gpu \
    --quick --repeats "$repeats" --python "$python" --json "$bench_json" --markdown "$work/gpu-bench.md"
  [ -s "$work/gpu-bench.md" ] && { cat "$work/gpu-bench.md"; echo; } >>"$report"
else
  note "6. run_bench.py --gpu --quick left out (GPU_BENCH_REPEATS=0)."
fi

finish
