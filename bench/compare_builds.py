#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two builds of EnsembleLab side by side: a refactor must not cost speed.

Runs each workload with the old and the new ensemble-lab-bench alternately (old, new, old,
new, ...), so drift of the machine hits both alike, and prints the medians and the ratio
new / old of training and evaluation throughput. Usage:
    bench/compare_builds.py --old OLD/ensemble-lab-bench --new build/bench/ensemble-lab-bench [--repeats 5]
                            [--test-limit 10000] [--only stacked]
"""
import argparse, json, statistics, subprocess

WORKLOADS = [
    ("CNN single, batch 128", ["--model", "cnn", "--mode", "single", "--devices", "cpu", "--batch-size", "128"]),
    ("CNN ensemble of 4 (cpu*4), batch 128", ["--model", "cnn", "--mode", "ensemble", "--devices", "cpu*4",
                                              "--batch-size", "128"]),
    ("CNN ensemble of 4 stacked (cpu*4), batch 128", ["--model", "cnn", "--mode", "ensemble", "--devices", "cpu*4",
                                                      "--member-form", "stacked", "--batch-size", "128"]),
    ("CNN data-parallel cpu*2, global batch 256", ["--model", "cnn", "--mode", "data-parallel", "--devices", "cpu*2",
                                                   "--batch-size", "256"]),
]


def run(binary, args):
    out = subprocess.run([binary] + args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--old", required=True)
    p.add_argument("--new", required=True)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--test-limit", type=int, default=2000,
                   help="test images evaluated (2000 takes a third of a second; 10000 steadies the eval ratio)")
    p.add_argument("--only", help="the workloads whose name contains this text")
    a = p.parse_args()
    common = ["--steps", str(a.steps), "--warmup", "5", "--test-limit", str(a.test_limit)]
    print("| workload | old img/s | new img/s | train new/old | eval new/old |")
    print("|---|---|---|---|---|")
    for name, args in WORKLOADS:
        if a.only and a.only not in name:
            continue
        results = {"old": [], "new": []}
        for _ in range(a.repeats):
            for side in ("old", "new"):
                results[side].append(run(getattr(a, side), args + common))
        train = {s: statistics.median(r["images_per_second"] for r in rs) for s, rs in results.items()}
        evals = {s: statistics.median(r["eval_images_per_second"] for r in rs) for s, rs in results.items()}
        print(f"| {name} | {train['old']:.0f} | {train['new']:.0f} | {train['new'] / train['old']:.3f} | "
              f"{evals['new'] / evals['old']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
