#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One device call: build, gpu-check's steps 1-4, the mma.sync A/B on whole steps, ours vs torch.compile.
set -uo pipefail
t0=$SECONDS
left() { echo $(( ${1} - (SECONDS - t0) )); }
log=$OUT/session.log
exec > >(tee -a "$log") 2>&1
echo "session start $(date -u)"
bash .gpu-carry/on-device.sh ensemble-lab-cli ensemble-lab-bench ensemble-lab-kernel-check \
  ensemble-lab-layer-timing ensemble-lab-metrics-bench || { echo "build failed at $((SECONDS-t0)) s"; exit 1; }
echo "built at $((SECONDS-t0)) s"
GPU_BENCH_REPEATS=0 timeout "$(left 330)" bash scripts/gpu-check.sh "$OUT/gpu-report.md"
echo "gpu-check ended (exit $?) at $((SECONDS-t0)) s"
bench=build-cuda/bench/ensemble-lab-bench
ab() {  # variant members precision round
  local env=(); [ "$1" = mma ] && env=(ENSEMBLELAB_STACKED_CONV=ours-mma-sync)
  env "${env[@]}" timeout 60 "$bench" --model cnn --mode ensemble --devices "cuda:0*$2" --member-form stacked \
    --precision "$3" --cuda-graphs on --steps 200 --warmup 20 --test-limit 10000 2>/tmp/ab.err | tail -1 |
    python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r.update(variant=sys.argv[1], members=int(sys.argv[2]), precision=sys.argv[3], round=int(sys.argv[4])); print(json.dumps(r))' "$@" \
    >>"$OUT/mma-ab.jsonl" || { echo "ab $*: failed"; tail -3 /tmp/ab.err; }
}
for r in 1 2 3; do
  for m in 8 16; do for v in default mma; do [ "$(left 470)" -gt 0 ] && ab "$v" "$m" fp32 "$r"; done; done
  for v in default mma; do [ "$(left 470)" -gt 0 ] && ab "$v" 16 tf32 "$r"; done
done
echo "A/B ended at $((SECONDS-t0)) s"
timeout "$(left 575)" python3 bench/run_bench.py --gpu --members 8,16 --batches 128 --precisions fp32,bf16 \
  --sides ours-stacked-graphs,torch-vmap-compile --repeats 3 --json "$OUT/gpu-bench.json" --markdown "$OUT/gpu-bench.md"
echo "run_bench ended (exit $?) at $((SECONDS-t0)) s"
