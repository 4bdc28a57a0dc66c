#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The stacked CNN's second convolution on cuda:0, cuDNN's grouped conv2d against batched
# matrix products (core/models/MemberProductsConv.h), alternated in one run: the bench binary
# with CUDA graphs, members x precision, ROUNDS rounds; then whether the products form trains
# the same as cuDNN (mean train loss over 100 steps to 1e-3) and replays from a graph byte for
# byte. Needs a GPU and build-cuda/ (bash .gpu-carry/on-device.sh).
#   bash bench/stacked_conv_ab.sh [OUT_DIR]   (default $OUT, else /tmp/stacked-conv-ab)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-/tmp/stacked-conv-ab}}"
mkdir -p "$out"
bench=build-cuda/bench/ensemble-lab-bench
cli=build-cuda/app/ensemble-lab-cli
rounds="${ROUNDS:-2}"
: >"$out/stacked-conv-ab.jsonl"
for round in $(seq "$rounds"); do
  for members in ${MEMBERS:-8 16}; do
    for precision in ${PRECISIONS:-fp32 tf32}; do
      for conv in cudnn products; do
        ENSEMBLELAB_STACKED_CONV=$conv "$bench" --model cnn --mode ensemble --devices "cuda:0*$members" \
          --member-form stacked --precision "$precision" --cuda-graphs on --steps 200 --warmup 20 \
          --test-limit 10000 2>"$out/bench.err" | tail -1 |
          python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); r["conv"]=sys.argv[1]; r["round"]=int(sys.argv[2]); print(json.dumps(r))' \
            "$conv" "$round" >>"$out/stacked-conv-ab.jsonl" || tail -5 "$out/bench.err"
      done
    done
  done
done
python3 - "$out/stacked-conv-ab.jsonl" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = collections.defaultdict(list)
for r in rows: by[(r["members"], r["precision"], r["conv"])].append(r)
print("| members | precision | conv2 | member-img/s (median, runs) | x cudnn | peak GPU MiB | eval img/s |")
print("|---|---|---|---|---|---|---|")
for (m, p, c), rs in sorted(by.items()):
    speed = statistics.median(r["member_images_per_second"] for r in rs)
    base = statistics.median(r["member_images_per_second"] for r in by.get((m, p, "cudnn"), rs))
    runs = ", ".join("%.0fk" % (r["member_images_per_second"] / 1e3) for r in rs)
    print(f"| {m} | {p} | {c} | {speed:,.0f} ({runs}) | "
          f"{speed/base:.2f} | {max(r['peak_gpu_memory_mb'] for r in rs):,.0f} | {statistics.median(r['eval_images_per_second'] for r in rs):,.0f} |")
PY
run=(train --dataset fashion-mnist --mode ensemble --epochs 1 --train-limit 12800 --seed 1 --log-every 1
     --devices 'cuda:0*4' --member-form stacked --precision fp32)
ENSEMBLELAB_STACKED_CONV=cudnn "$cli" "${run[@]}" --cuda-graphs off --out "$out/runs/cudnn" >/dev/null 2>&1
ENSEMBLELAB_STACKED_CONV=products "$cli" "${run[@]}" --cuda-graphs off --out "$out/runs/products" >/dev/null 2>&1
ENSEMBLELAB_STACKED_CONV=products "$cli" "${run[@]}" --cuda-graphs on --out "$out/runs/products-graph" >/dev/null 2>&1
python3 - "$out/runs" <<'PY'
import csv, sys
def losses(run):
    return {int(r["step"]): float(r["train_loss"]) for r in csv.DictReader(open(f"{sys.argv[1]}/{run}/metrics.csv"))
            if r["member"] == "ensemble" and r["train_loss"] and not r["test_loss"] and int(r["step"]) <= 100}
a, b = losses("cudnn"), losses("products")
print("mean train loss, steps 1-100: cudnn %.7f, products %.7f, difference %.2e (1e-3 allowed); step 1: %.9f vs %.9f"
      % (sum(a.values()) / len(a), sum(b.values()) / len(b), abs(sum(a.values()) / len(a) - sum(b.values()) / len(b)), a[1], b[1]))
PY
cmp "$out/runs/products/metrics.csv" "$out/runs/products-graph/metrics.csv" &&
  echo "products: the graph's metrics.csv is the eager run's, byte for byte"
rm -rf "$out/runs"
