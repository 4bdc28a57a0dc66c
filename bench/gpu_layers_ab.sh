#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What the GPU's fused first layer (core/models/ConvReluPoolKernels.cuh) gains, and whether
# the stacked CNN should run channels-last, measured alternately in one run on cuda:0 with
# the bench binary (CUDA graphs, the defaults):
#   fused          the defaults: our fused convolution + ReLU + pool kernels, NCHW stacks
#   unfused        ENSEMBLELAB_GPU_FIRST_LAYER=unfused: LibTorch's conv2d, ReLU and pool
#   channels-last  ENSEMBLELAB_STACKED_LAYOUT=channels-last: the fused layer, and the stacked
#                  members' filters and activations channels-last (cuDNN's NHWC grouped conv)
#   our-conv       ENSEMBLELAB_STACKED_CONV=ours: the fused layer, and our own grouped
#                  convolution kernels for the second layer (GroupedConv.h: fp32 on CUDA
#                  cores, TF32 and bf16 on tensor cores)
# for ensembles of MEMBERS (default 8 16) in PRECISIONS (default fp32 tf32 bf16; tf32 only
# fused against our-conv), ROUNDS rounds (default 2), and the single model fused / unfused.
# Then whether each variant trains as the defaults do in its precision (mean train loss over
# steps 1-100, eager: to 1e-3 in fp32, 5e-3 in TF32 and bf16, whose roundings differ from
# cuDNN's). Needs a GPU and build-cuda/ (bash .gpu-carry/on-device.sh).
#   bash bench/gpu_layers_ab.sh [OUT_DIR]   (default $OUT, else /tmp/gpu-layers-ab)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-/tmp/gpu-layers-ab}}"
mkdir -p "$out"
bench=build-cuda/bench/ensemble-lab-bench
cli=build-cuda/app/ensemble-lab-cli
jsonl="$out/gpu-layers-ab.jsonl"
: >"$jsonl"

# with_variant VARIANT COMMAND...: runs it with the variant's environment.
with_variant() {
  local variant="$1"
  shift
  case "$variant" in
    fused) "$@" ;;
    unfused) ENSEMBLELAB_GPU_FIRST_LAYER=unfused "$@" ;;
    channels-last) ENSEMBLELAB_STACKED_LAYOUT=channels-last "$@" ;;
    our-conv) ENSEMBLELAB_STACKED_CONV=ours "$@" ;;
  esac
}

# measure VARIANT LABEL BENCH-ARGS...: one bench run, its JSON line tagged, into $jsonl.
measure() {
  local variant="$1" label="$2"
  shift 2
  with_variant "$variant" "$bench" --model cnn --cuda-graphs on --steps 200 --warmup 20 --test-limit 10000 "$@" \
    2>"$out/bench.err" | tail -1 |
    python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["variant"]=sys.argv[1]; r["label"]=sys.argv[2]; print(json.dumps(r))' \
      "$variant" "$label" >>"$jsonl" || { echo "$variant $label:"; tail -5 "$out/bench.err"; }
}

for round in $(seq "${ROUNDS:-2}"); do
  for members in ${MEMBERS:-8 16}; do
    for precision in ${PRECISIONS:-fp32 tf32 bf16}; do
      variants="fused unfused channels-last our-conv"
      [ "$precision" = tf32 ] && variants="fused our-conv"  # the layout and first layer: fp32 and bf16 say
      for variant in $variants; do
        measure "$variant" "stacked $members $precision" --mode ensemble --devices "cuda:0*$members" \
          --member-form stacked --precision "$precision"
      done
    done
  done
  for variant in fused unfused; do
    measure "$variant" "single fp32" --mode single --devices cuda:0 --precision fp32
  done
done

python3 - "$jsonl" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = collections.defaultdict(list)
for r in rows: by[(r["label"], r["variant"])].append(r)
print("| workload | variant | member-img/s (median; runs) | x fused | peak GPU MiB | eval img/s |")
print("|---|---|---|---|---|---|")
for (label, variant), rs in sorted(by.items()):
    speed = statistics.median(r["member_images_per_second"] for r in rs)
    base = statistics.median(r["member_images_per_second"] for r in by.get((label, "fused"), rs))
    runs = ", ".join("%.0fk" % (r["member_images_per_second"] / 1e3) for r in rs)
    print(f"| {label} | {variant} | {speed:,.0f} ({runs}) | {speed/base:.2f} | "
          f"{max(r['peak_gpu_memory_mb'] for r in rs):,.0f} | {statistics.median(r['eval_images_per_second'] for r in rs):,.0f} |")
PY

run=(train --dataset fashion-mnist --mode ensemble --epochs 1 --train-limit 12800 --seed 1 --log-every 1
     --devices 'cuda:0*4' --member-form stacked --cuda-graphs off)
for precision in fp32 tf32 bf16; do
  variants="fused our-conv"
  [ "$precision" = fp32 ] && variants="fused unfused channels-last our-conv"
  for variant in $variants; do
    with_variant "$variant" "$cli" "${run[@]}" --precision "$precision" --out "$out/runs/$precision-$variant" \
      >"$out/runs-$precision-$variant.log" 2>&1 || tail -5 "$out/runs-$precision-$variant.log"
  done
done
python3 - "$out/runs" <<'PY'
import csv, os, sys
def losses(run):
    return {int(r["step"]): float(r["train_loss"]) for r in csv.DictReader(open(f"{sys.argv[1]}/{run}/metrics.csv"))
            if r["member"] == "ensemble" and r["train_loss"] and not r["test_loss"] and int(r["step"]) <= 100}
for precision, allowed in (("fp32", 1e-3), ("tf32", 5e-3), ("bf16", 5e-3)):
    base = losses(f"{precision}-fused")
    for variant in ("unfused", "channels-last", "our-conv"):
        if not os.path.isdir(f"{sys.argv[1]}/{precision}-{variant}"):
            continue
        other = losses(f"{precision}-{variant}")
        a, b = sum(base.values()) / len(base), sum(other.values()) / len(other)
        print("%s mean train loss, steps 1-100: fused %.7f, %s %.7f, difference %.2e (%g allowed): %s"
              % (precision, a, variant, b, abs(a - b), allowed, "same" if abs(a - b) <= allowed else "DIFFERENT"))
PY
rm -rf "$out/runs"
