#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What the GPU's layer choices gain, measured alternately in one run on cuda:0 with the bench
# binary (CUDA graphs, the defaults), each variant against the defaults:
#   defaults       our fused first layer (convolution + ReLU + pool, ConvReluPoolKernels.cuh), NCHW
#                  stacks, and the second convolution in our mma.sync kernels in fp32, cuDNN's in TF32
#                  and bf16 (GroupedConv.h: as the 2026-11-28 and 2026-12-04 runs on an H200 chose)
#   unfused        ENSEMBLELAB_GPU_FIRST_LAYER=unfused: LibTorch's conv2d, ReLU and pool
#   channels-last  ENSEMBLELAB_STACKED_LAYOUT=channels-last: the stacked members' filters and
#                  activations channels-last (cuDNN's NHWC grouped conv)
#   our-conv       ENSEMBLELAB_STACKED_CONV=ours: our grouped convolution, fp32 on the CUDA cores,
#                  TF32 and bf16 on tensor cores (wmma)
#   cudnn-conv     ENSEMBLELAB_STACKED_CONV=cudnn: cuDNN's grouped convolution in fp32 too
#   mma-sync-conv  ENSEMBLELAB_STACKED_CONV=ours-mma-sync: ours, on the mma.sync kernels in TF32
#                  too (one TF32 product; fp32's three are the defaults)
# for ensembles of MEMBERS (default 8 16) in PRECISIONS (default fp32 tf32 bf16; the convolution's
# variant where it differs from the defaults: cudnn-conv and our-conv in fp32, our-conv and
# mma-sync-conv in TF32, our-conv in bf16), ROUNDS
# rounds (default 2), and the single model with the fused and the unfused first layer.
# Then whether each variant trains as the defaults do in its precision: mean train loss over
# steps 1-100, eager, to 5e-3 in fp32 and 1e-2 in TF32 and bf16 (docs/GPU.md, "what a tolerance
# catches": two forms of the same arithmetic drift that far apart over 100 steps; a 1% change
# of the learning rate moves it further). Needs a GPU and build-cuda/ (bash .gpu-carry/on-device.sh).
#   bash bench/gpu_layers_ab.sh [OUT_DIR]   (default $OUT, else /tmp/gpu-layers-ab)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-/tmp/gpu-layers-ab}}"
mkdir -p "$out"
# The runs' logs and folders stay out of $out: a device call sends back only a few files.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bench=build-cuda/bench/ensemble-lab-bench
cli=build-cuda/app/ensemble-lab-cli
jsonl="$out/gpu-layers-ab.jsonl"
: >"$jsonl"

# with_variant VARIANT COMMAND...: runs it with the variant's environment.
with_variant() {
  local variant="$1"
  shift
  case "$variant" in
    defaults) "$@" ;;
    unfused) ENSEMBLELAB_GPU_FIRST_LAYER=unfused "$@" ;;
    channels-last) ENSEMBLELAB_STACKED_LAYOUT=channels-last "$@" ;;
    our-conv) ENSEMBLELAB_STACKED_CONV=ours "$@" ;;
    cudnn-conv) ENSEMBLELAB_STACKED_CONV=cudnn "$@" ;;
    mma-sync-conv) ENSEMBLELAB_STACKED_CONV=ours-mma-sync "$@" ;;
  esac
}

# measure VARIANT LABEL BENCH-ARGS...: one bench run, its JSON line tagged, into $jsonl.
measure() {
  local variant="$1" label="$2"
  shift 2
  with_variant "$variant" "$bench" --model cnn --cuda-graphs on --steps 200 --warmup 20 --test-limit 10000 "$@" \
    2>"$work/bench.err" | tail -1 |
    python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["variant"]=sys.argv[1]; r["label"]=sys.argv[2]; print(json.dumps(r))' \
      "$variant" "$label" >>"$jsonl" || { echo "$variant $label:"; tail -5 "$work/bench.err"; }
}

# variants_for PRECISION: the defaults, then what differs from them in that precision (the layout
# and the first layer: fp32 and bf16 say enough).
variants_for() {
  case "$1" in
    fp32) echo defaults unfused channels-last cudnn-conv our-conv ;;
    tf32) echo defaults our-conv mma-sync-conv ;;
    *) echo defaults unfused channels-last our-conv ;;
  esac
}

for round in $(seq "${ROUNDS:-2}"); do
  for members in ${MEMBERS:-8 16}; do
    for precision in ${PRECISIONS:-fp32 tf32 bf16}; do
      for variant in $(variants_for "$precision"); do
        measure "$variant" "stacked $members $precision" --mode ensemble --devices "cuda:0*$members" \
          --member-form stacked --precision "$precision"
      done
    done
  done
  for variant in defaults unfused; do
    measure "$variant" "single fp32" --mode single --devices cuda:0 --precision fp32
  done
done

python3 - "$jsonl" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = collections.defaultdict(list)
for r in rows: by[(r["label"], r["variant"])].append(r)
print("| workload | variant | member-img/s (median; runs) | x defaults | peak GPU MiB | eval img/s |")
print("|---|---|---|---|---|---|")
for (label, variant), rs in sorted(by.items()):
    speed = statistics.median(r["member_images_per_second"] for r in rs)
    base = statistics.median(r["member_images_per_second"] for r in by.get((label, "defaults"), rs))
    runs = ", ".join("%.0fk" % (r["member_images_per_second"] / 1e3) for r in rs)
    print(f"| {label} | {variant} | {speed:,.0f} ({runs}) | {speed/base:.2f} | "
          f"{max(r['peak_gpu_memory_mb'] for r in rs):,.0f} | {statistics.median(r['eval_images_per_second'] for r in rs):,.0f} |")
PY

run=(train --dataset fashion-mnist --mode ensemble --epochs 1 --train-limit 12800 --seed 1 --log-every 1
     --devices 'cuda:0*4' --member-form stacked --cuda-graphs off)
for precision in fp32 tf32 bf16; do
  for variant in $(variants_for "$precision"); do
    with_variant "$variant" "$cli" "${run[@]}" --precision "$precision" --out "$work/runs/$precision-$variant" \
      >"$work/$precision-$variant.log" 2>&1 || tail -5 "$work/$precision-$variant.log"
  done
done
PYTHONPATH=bench python3 - "$work/runs" <<'PY'
import os, sys
from run_losses import mean_train_loss
for precision, allowed in (("fp32", 5e-3), ("tf32", 1e-2), ("bf16", 1e-2)):
    if not os.path.isdir(f"{sys.argv[1]}/{precision}-defaults"):
        continue
    a = mean_train_loss(f"{sys.argv[1]}/{precision}-defaults", 100)
    for variant in ("unfused", "channels-last", "our-conv", "cudnn-conv", "mma-sync-conv"):
        if not os.path.isdir(f"{sys.argv[1]}/{precision}-{variant}"):
            continue
        b = mean_train_loss(f"{sys.argv[1]}/{precision}-{variant}", 100)
        print("%s mean train loss, steps 1-100: defaults %.7f, %s %.7f, difference %.2e (%g allowed): %s"
              % (precision, a, variant, b, abs(a - b), allowed, "same" if abs(a - b) <= allowed else "DIFFERENT"))
PY
