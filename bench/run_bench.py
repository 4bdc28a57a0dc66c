#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""EnsembleLab against the PyTorch peer, side by side in one run.

For every workload it runs ensemble-lab-bench and bench/peer.py (at the peer's default
thread count and at one thread per core) alternately, REPEATS times, and prints medians,
the ratio to the faster peer, achieved GFLOP/s and their share of the machine's measured
sgemm peak, and peak resident memory. Usage:
    bench/run_bench.py [--build build] [--repeats 3] [--quick]
"""
import argparse, json, os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="fewer steps (a smoke run, not for the record)")
    p.add_argument("--only", default="", help="run only the workloads whose name contains this text")
    a = p.parse_args()
    ours = os.path.join(a.build, "bench", "ensemble-lab-bench")
    peer = [sys.executable if sys.executable.startswith("/usr/bin") else "/usr/bin/python3", os.path.join(HERE, "peer.py")]
    cores = os.cpu_count()
    steps = 8 if a.quick else 30

    peak = run(peer + ["--sgemm", "--threads", str(cores)])
    print(f"machine: {cores} cores; sgemm 2048^3 peak {peak['sgemm_gflops']:.0f} GFLOP/s ({peak['threads']} threads)")
    print(f"peer BLAS: {peak['blas']}")

    workloads = [
        ("CNN single, batch 128", ["--model", "cnn", "--mode", "single", "--devices", "cpu", "--batch-size", "128", "--test-limit", "1000"],
         ["--model", "cnn", "--members", "1", "--batch-size", "128", "--test-limit", "1000"], steps, 5),
        ("CNN ensemble of 4 (cpu*4), batch 128", ["--model", "cnn", "--mode", "ensemble", "--devices", "cpu*4", "--batch-size", "128", "--test-limit", "10000"],
         ["--model", "cnn", "--members", "4", "--batch-size", "128", "--test-limit", "10000"], steps, 5),
        ("CNN ensemble of 4 stacked into one network (cpu*4, --member-form stacked), batch 128",
         ["--model", "cnn", "--mode", "ensemble", "--devices", "cpu*4", "--member-form", "stacked", "--batch-size", "128",
          "--test-limit", "10000"],
         ["--model", "cnn", "--members", "4", "--batch-size", "128", "--test-limit", "10000"], steps, 5),
        ("CNN data-parallel cpu*2, global batch 256 (peer: single, batch 256)",
         ["--model", "cnn", "--mode", "data-parallel", "--devices", "cpu*2", "--batch-size", "256", "--test-limit", "1000"],
         ["--model", "cnn", "--members", "1", "--batch-size", "256", "--test-limit", "1000"], steps, 5),
        ("ResNet-18 (d2l) single, batch 256", ["--model", "resnet18", "--mode", "single", "--devices", "cpu", "--batch-size", "256", "--test-limit", "1000"],
         ["--model", "resnet18", "--members", "1", "--batch-size", "256", "--test-limit", "1000"], 2 if a.quick else 4, 1),
    ]
    rows = []
    for name, ours_args, peer_args, n, warmup in workloads:
        if a.only not in name:
            continue
        common = ["--steps", str(n), "--warmup", str(warmup)]
        results = {"ours": [], "peer": [], f"peer x{cores}": []}
        for _ in range(a.repeats):  # alternate, so drift hits every side alike
            results["ours"].append(run([ours] + ours_args + common))
            results["peer"].append(run(peer + peer_args + common))
            results[f"peer x{cores}"].append(run(peer + peer_args + common + ["--threads", str(cores)]))
        med = {side: statistics.median(r["images_per_second"] for r in rs) for side, rs in results.items()}
        evals = {side: statistics.median(r["eval_images_per_second"] for r in rs) for side, rs in results.items()}
        rss = {side: max(r["peak_rss_mb"] for r in rs) for side, rs in results.items()}
        flops = results["peer"][0]["train_flops_per_image"]
        best_peer = max(med["peer"], med[f"peer x{cores}"])
        rows.append((name, med, evals, rss, flops, best_peer))
        print(f"\n{name}  ({n} steps after {warmup} warm-up, {a.repeats} repeats, medians)")
        for side in results:
            gflops = med[side] * flops / 1e9
            print(f"  {side:10s} {med[side]:8.0f} img/s  {gflops:6.1f} GFLOP/s ({100 * gflops / peak['sgemm_gflops']:4.1f}% of peak)"
                  f"  eval {evals[side]:7.0f} img/s  peak RSS {rss[side]:6.0f} MB")
        print(f"  ratio ours / faster peer: {med['ours'] / best_peer:.2f}")
    print(f"\nours BLAS: {results['ours'][0]['blas']}")
    print(f"\n| workload | EnsembleLab img/s | peer img/s (default / x{cores} threads) | ratio | EnsembleLab share of sgemm peak | eval img/s (ours / peer) | peak RSS MB (ours / peer) |")
    print("|---|---|---|---|---|---|---|")
    for name, med, evals, rss, flops, best_peer in rows:
        print(f"| {name} | {med['ours']:.0f} | {med['peer']:.0f} / {med[f'peer x{cores}']:.0f} | {med['ours'] / best_peer:.2f} | "
              f"{100 * med['ours'] * flops / 1e9 / peak['sgemm_gflops']:.1f}% | {evals['ours']:.0f} / {evals['peer']:.0f} | "
              f"{rss['ours']:.0f} / {rss['peer']:.0f} |")


if __name__ == "__main__":
    main()
