#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What a refactoring must not change: five fixed-seed runs on Fashion-MNIST (single,
# ensemble, data-parallel, stacked ensemble, and a LeNet run with evaluations between epoch
# ends and step checkpoints, stopped after its first epoch and resumed), then eval, predict,
# export and a two-job sweep of the ensemble. Every output file is hashed, after JSON files
# lose what differs between two runs of the same build (timings, memory, dates, the output
# folder's path), as CSV files lose such columns; TensorBoard event files are left out (their records carry wall times).
#
#   scripts/golden-outputs.sh [CLI] [OUT]     -> OUT/golden.txt, one "sha256  file" per line
#
# Before and after a change, on the same machine:
#   scripts/golden-outputs.sh old/app/ensemble-lab-cli /tmp/old
#   scripts/golden-outputs.sh build/app/ensemble-lab-cli /tmp/new
#   diff /tmp/old/golden.txt /tmp/new/golden.txt && echo byte-identical
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cli="$(realpath "${1:-$here/build/app/ensemble-lab-cli}")"
out="${2:-$(mktemp -d /tmp/golden.XXXXXX)}"
rm -rf "$out" && mkdir -p "$out"
cd "$out"

# The epochs per run, not in common: a flag given twice is a usage error.
common=(--dataset fashion-mnist --train-limit 1024 --test-limit 256 --batch-size 64 --seed 7)
train() { "$cli" train "${common[@]}" "$@" >/dev/null; }
train --mode single --devices cpu --epochs 2 --out single
train --mode ensemble --devices 'cpu*3' --member-form separate --epochs 2 --out ensemble
train --mode data-parallel --devices 'cpu*2' --epochs 2 --out data-parallel
train --mode ensemble --devices 'cpu*2' --member-form stacked --epochs 2 --out stacked
train --mode single --model lenet --devices cpu --eval-every 5 --checkpoint-every 6 --epochs 1 --out lenet
"$cli" train --config lenet/config.json --epochs 2 --out lenet-config-check >/dev/null  # config.json reads back
"$cli" resume --run lenet >/dev/null 2>&1 || true  # a finished run: nothing to resume, says so
"$cli" eval --run ensemble --shift rotate:0,30 --ood inverted >eval-ensemble.json
"$cli" eval --run single --dataset synthetic-or-missing >eval-missing.txt 2>&1 || echo "exit $?" >>eval-missing.txt
"$cli" predict --run data-parallel --out predictions.csv >/dev/null
"$cli" export --run stacked --to stacked-export.json >/dev/null
"$cli" export --runs single,ensemble,data-parallel,stacked,lenet --table runs.csv --curves curves.csv >/dev/null
"$cli" sweep --grid lr=0.05,0.1 --mode ensemble --devices 'cpu*2' --dataset fashion-mnist --train-limit 512 \
  --test-limit 128 --batch-size 64 --epochs 1 --seed 7 --out sweep >/dev/null

python3 - "$out" <<'EOF'
import hashlib, json, os, re, sys
root = sys.argv[1]
# Keys whose values differ between two runs of one build: clocks, speeds, memory, dates.
VOLATILE = re.compile(r"second|time|date|elapsed|per_s|rss|memory|peak|started|finished|created|host|pid|eta|throughput")

def scrub(value):
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if not VOLATILE.search(k)}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, str):
        return value.replace(root, "$OUT")
    return value

lines = []
for folder, dirs, files in os.walk(root):
    dirs.sort()
    if os.path.basename(folder) == "tensorboard":
        dirs[:] = []
        continue
    for name in sorted(files):
        path = os.path.join(folder, name)
        rel = os.path.relpath(path, root)
        if rel == "golden.txt" or "tfevents" in name:
            continue
        data = open(path, "rb").read()
        if name.endswith(".json"):
            try:
                data = json.dumps(scrub(json.loads(data)), sort_keys=True, indent=1).encode()
            except ValueError:
                pass
        elif name.endswith(".csv"):
            # Columns of clocks and speeds (runs.csv's seconds_per_epoch, images_per_second) go.
            rows = [line.split(",") for line in data.decode().splitlines()]
            keep = [i for i, column in enumerate(rows[0] if rows else []) if not VOLATILE.search(column)]
            data = "\n".join(",".join(row[i] for i in keep if i < len(row)) for row in rows).encode()
            data = data.replace(root.encode(), b"$OUT")
        else:
            data = data.replace(root.encode(), b"$OUT")
        # Run folders are named by the clock inside a sweep: name them by their order.
        lines.append((re.sub(r"\d{8}-\d{9}-", "RUN-", rel), hashlib.sha256(data).hexdigest()))
with open(os.path.join(root, "golden.txt"), "w") as f:
    for rel, digest in sorted(lines):
        f.write(f"{digest}  {rel}\n")
print(f"{len(lines)} files hashed into {os.path.join(root, 'golden.txt')}")
EOF
