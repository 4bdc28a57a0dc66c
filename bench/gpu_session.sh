#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 29's owed GPU measurements in one device call, most needed first, each step bounded by
# what is left of DEADLINE seconds (default 560: a call may run 600 s, and a session's device
# time, the machine's start included, is 15 minutes, so there may be no second call):
#   1. the CUDA build (.gpu-carry/on-device.sh, about 90 s on the GPU machine's 16 cores);
#   2. scripts/gpu-check.sh to the end of step 4: the defaults still right on a GPU (fp32's
#      grouped convolution on mma.sync in 2b-2o), without compute-sanitizer unless SANITIZE=1
#      (it ran on these kernels on 2026-12-04: no error, no hazard; 80 s);
#   3. run_bench.py --gpu at batch 128: ours (stacked, CUDA graphs), vmap + torch.compile and
#      Flax's vmap, alternated, training and evaluation, medians of 3; 16 then 8 members in fp32
#      (16 is the target still unmet), then both in bf16. The JSON is rewritten after every
#      point (--resume), so a step cut by the deadline keeps the points it measured;
#   4. with time left, the 16-member fp32 step kernel by kernel (bench/gpu_kernel_profile.sh).
# Between 2 and 3 (2b), the mma.sync forward's filters gathered or staged
# (ENSEMBLELAB_MMA_SYNC_WEIGHTS), alternated on the whole 16-member fp32 step; 3 and 4 run with
# the faster. It writes six files to $OUT (a call sends back 8 at most): session.log,
# gpu-report.md, mma-sync-weights-ab.jsonl, gpu-bench.json, gpu-bench.md and kernel-profile.txt.
#   here:  bash ../shared/gpu/prepare.sh
#   then the device tool's run, carry [".gpu-carry"]:  bash bench/gpu_session.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out="${OUT:-/tmp/gpu-session}"
mkdir -p "$out"
deadline="${DEADLINE:-560}"
started=$SECONDS
left() { echo $((deadline - (SECONDS - started))); }
exec > >(tee -a "$out/session.log") 2>&1
echo "gpu_session: $(date -u '+%F %T UTC') at $(git rev-parse --short HEAD 2>/dev/null || echo 'an unknown commit')"

# 1. The build; its logs stay on the machine (only their tail comes back, on a failure).
logs="$(mktemp -d)"
# What gpu-check's steps 1-4 and the benches run; every target on all 16 cores at once.
if ! OUT="$logs" bash .gpu-carry/on-device.sh ensemble-lab-cli ensemble-lab-bench ensemble-lab-kernel-check \
     ensemble-lab-layer-timing; then
  echo "gpu_session: the build failed after $((SECONDS - started)) s"
  exit 1
fi
echo "gpu_session: built in $((SECONDS - started)) s"

# 2. Correctness first: numbers from a build that trains wrongly would mean nothing.
GPU_BENCH_REPEATS=0 GPU_CHECK_LAST_STEP=4 GPU_CHECK_SANITIZERS="${SANITIZE:-0}" \
  timeout "$(left)" bash scripts/gpu-check.sh "$out/gpu-report.md"
echo "gpu_session: gpu-check ended (exit $?: 0 every step passed) at $((SECONDS - started)) s"

# 2b. The mma.sync forward's filters gathered (the default) or staged for 16-byte copies
#     (ENSEMBLELAB_MMA_SYNC_WEIGHTS; the same bits: gpu-check 1h and 2p) on the whole 16-member
#     fp32 step, alternated, 3 rounds (about 30 s); step 3 runs with the faster by median.
weights_ab() {
  local round form
  for round in 1 2 3; do
    for form in gathered staged; do
      [ "$(left)" -gt 200 ] || return 0
      ENSEMBLELAB_MMA_SYNC_WEIGHTS=$form timeout 60 build-cuda/bench/ensemble-lab-bench --model cnn --mode ensemble \
        --devices 'cuda:0*16' --member-form stacked --precision fp32 --cuda-graphs on --steps 200 --warmup 20 \
        --test-limit 1000 2>"$logs/weights-ab.err" | tail -1 |
        python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r.update(weights=sys.argv[1], round=int(sys.argv[2])); print(json.dumps(r))' \
          "$form" "$round" >>"$out/mma-sync-weights-ab.jsonl" || { echo "weights A/B $form: failed"; tail -3 "$logs/weights-ab.err"; }
    done
  done
}
weights_ab
faster="$(python3 - "$out/mma-sync-weights-ab.jsonl" <<'PY'
import collections, json, statistics, sys
speeds = collections.defaultdict(list)
try:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        speeds[r["weights"]].append(r["member_images_per_second"])
except OSError:
    pass
medians = {form: statistics.median(v) for form, v in speeds.items()}
for form, median in medians.items():
    print(f"gpu_session: filters {form}: median {median:,.0f} member-img/s of {len(speeds[form])} runs", file=sys.stderr)
if len(medians) == 2:
    print(f"gpu_session: staged / gathered = {medians['staged'] / medians['gathered']:.3f}", file=sys.stderr)
print("staged" if len(medians) == 2 and medians["staged"] > medians["gathered"] else "gathered")
PY
)"
export ENSEMBLELAB_MMA_SYNC_WEIGHTS="${faster:-gathered}"
echo "gpu_session: step 3 runs with ENSEMBLELAB_MMA_SYNC_WEIGHTS=$ENSEMBLELAB_MMA_SYNC_WEIGHTS at $((SECONDS - started)) s"

# 3. Every side alternated, the unmet point first. Nothing starts with under 30 s left.
bench() {
  [ "$(left)" -gt 30 ] || { echo "gpu_session: no time left for run_bench $*"; return 0; }
  timeout "$(left)" python3 bench/run_bench.py --gpu --batches 128 --repeats 3 \
    --sides ours-stacked-graphs,torch-vmap-compile,flax-vmap --resume --json "$out/gpu-bench.json" \
    --markdown "$out/gpu-bench.md" "$@"
  echo "gpu_session: run_bench $* ended (exit $?) at $((SECONDS - started)) s"
}
bench --members 16,8 --precisions fp32
bench --members 16,8 --precisions fp32,bf16  # keeps the fp32 points (--resume), adds bf16

# 4. Where the 16-member fp32 step's time goes: the summary only (the profiles stay here).
if [ "$(left)" -gt 60 ]; then
  MEMBERS=16 timeout "$(left)" bash bench/gpu_kernel_profile.sh "$logs/kernel-profile" >"$out/kernel-profile.txt" 2>&1
  echo "gpu_session: kernel profile ended (exit $?) at $((SECONDS - started)) s"
else
  echo "gpu_session: no time left for the kernel profile"
fi
echo "gpu_session: done in $((SECONDS - started)) s"
