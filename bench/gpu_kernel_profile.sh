#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where one GPU training step spends its time, kernel by kernel (issue 29): our stacked
# ensemble of MEMBERS (default 8; eager, fp32, deterministic on and off) and PyTorch vmap +
# torch.compile on the same workload, each under Nsight Systems (nsys) where it is installed,
# else ours alone under Nsight Compute (ncu, a few hundred kernels). Writes one kernel summary per run into
# OUT_DIR (default $OUT, else /tmp/kernel-profile) and prints the top of each. PRECISION
# (default fp32; tf32, bf16) picks both sides' precision; ENSEMBLELAB_STACKED_CONV=ours and the
# other switches of docs/GPU.md pass through to ours.
#   bash bench/gpu_kernel_profile.sh [OUT_DIR]        (on a GPU machine, after the CUDA build)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-/tmp}/kernel-profile}"
mkdir -p "$out"
bench=build-cuda/bench/ensemble-lab-bench
python="${TORCH_PYTHON:-python3}"
precision="${PRECISION:-fp32}"
members="${MEMBERS:-8}"
ours=(--model cnn --mode ensemble --devices "cuda:0*$members" --member-form stacked --precision "$precision"
      --test-limit 1000)

if command -v nsys >/dev/null; then
  # Each run: its own report, then the kernel summary (time, calls, average) as CSV.
  profile() {
    local name="$1"; shift
    nsys profile --force-overwrite true --sample none --cpuctxsw none -t cuda -o "$out/$name" "$@" >"$out/$name.log" 2>&1
    nsys stats --force-export true --report cuda_gpu_kern_sum --format csv -o "$out/$name" "$out/$name.nsys-rep" \
      >/dev/null 2>>"$out/$name.log"
    echo "== $name: top kernels (total ns, instances, name)"
    python3 - "$out/${name}_cuda_gpu_kern_sum.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
total = sum(float(r["Total Time (ns)"]) for r in rows)
print(f"total kernel time {total / 1e6:.1f} ms in {sum(int(r['Instances']) for r in rows)} kernels")
for r in rows[:14]:
    print(f"{float(r['Time (%)']):5.1f}% {float(r['Total Time (ns)']) / 1e6:8.2f} ms {int(r['Instances']):6d}  "
          f"{float(r['Avg (ns)']) / 1e3:8.1f} us  {r['Name'][:110]}")
EOF
  }
  profile "stacked-$precision-det" "$bench" "${ours[@]}" --deterministic on --steps 100 --warmup 10
  profile "stacked-$precision-nondet" "$bench" "${ours[@]}" --deterministic off --steps 100 --warmup 10
  profile "vmap-compile-$precision" "$python" bench/peer.py --device cuda --vmap --compile --members "$members" --batch-size 128 \
    --precision "$precision" --steps 100 --warmup 10 --test-limit 1000
else
  echo "nsys is not installed: ncu on 300 kernels of ours (stacked, $precision, deterministic on)"
  ncu --csv --metrics gpu__time_duration.sum --launch-skip 2000 --launch-count 300 \
    "$bench" "${ours[@]}" --deterministic on --steps 60 --warmup 5 >"$out/ncu-stacked.csv" 2>"$out/ncu.log"
  python3 - "$out/ncu-stacked.csv" <<'EOF'
import csv, sys, collections
lines = [l for l in open(sys.argv[1]) if l.startswith('"')]
total, count = collections.Counter(), collections.Counter()
for r in csv.DictReader(lines):
    if r.get("Metric Name") == "gpu__time_duration.sum":
        value = float(r["Metric Value"].replace(",", ""))
        scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}[r["Metric Unit"]]
        total[r["Kernel Name"][:110]] += value * scale
        count[r["Kernel Name"][:110]] += 1
grand = sum(total.values())
print(f"{grand / 1e3:.2f} ms in {sum(count.values())} kernels")
for name, t in total.most_common(16):
    print(f"{100 * t / grand:5.1f}% {t:9.1f} us {count[name]:4d}  {name}")
EOF
fi
