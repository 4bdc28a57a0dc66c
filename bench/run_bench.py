#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""EnsembleLab against every peer, side by side in one run.

Sides (those whose program or environment is missing are left out, saying so):
  EnsembleLab on Debian's LibTorch 1.13 (build/), and on the CUDA wheel's LibTorch, on CPU
  (build-cuda/); PyTorch 1.13 (Debian, OpenBLAS) and the PyPI wheel's PyTorch (MKL,
  oneDNN), both tuned; the Flax HOWTO's program as written (pmap, one member per XLA host
  device) and in its vmap form.

A peer is tuned in the run itself: before the timed repeats, each of its candidate settings
(bench/peer.py: channels-last, vmap, torch.compile) runs once and the fastest is kept. The
timed repeats then alternate over the sides (drift hits every side alike) and the medians
are reported: member-images/s, GFLOP/s as a share of the sgemm peak measured in this run,
test images/s, peak resident memory.

--scaling then measures members 1, 2, 4, 8 at batch 32, 128 and 512 for our faster build
and the peer that was fastest on the ensemble of 4 (with its chosen settings): a table, and
a PNG plot by bench/plot_scaling.py. Usage:
    bench/run_bench.py [--repeats 3] [--only ensemble] [--quick] [--json out.json]
    bench/run_bench.py --scaling --png docs/results/scaling.png --json out.json
--python P runs the current-PyTorch and Flax peers under P instead of the two environments.

--gpu measures one GPU instead, in one command (bench/gpu_bench.py says what): our CUDA
build (build-cuda/) with separate and stacked members (single mode for one member), the
PyTorch loop, PyTorch vmap + torch.compile and the Flax HOWTO's vmap, over members 1, 4, 8,
16 x batch 32, 128, 512 x fp32, bf16; peers under --python (default python3), 400 steps after
20 warm-up, medians of 3 alternating; a Markdown table, JSON and a scaling plot:
    bench/run_bench.py --gpu [--quick] --json gpu-bench.json [--markdown gpu-bench.md]
Without a CUDA device it says so and exits 2.
"""
import argparse, json, os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORES = os.cpu_count()


def run(command, env=None):
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def venv(script):
    """The environment's folder, made by its script if needed (progress on stderr)."""
    try:
        return subprocess.run(["bash", os.path.join(ROOT, "scripts", script)], check=True, capture_output=True,
                              text=True).stdout.strip()
    except subprocess.CalledProcessError as e:
        print(f"{script} failed, its peers are left out:\n{e.stderr[-1000:]}", file=sys.stderr)
        return None


class Workload:
    """Our run (`ours_mode` on `ours_devices`) and the peers' shape of it: `members` models
    trained on the same batches of `batch` images."""

    def __init__(self, name, members, batch, ours_mode, ours_devices, test_limit):
        self.name, self.members, self.batch, self.test_limit = name, members, batch, test_limit
        self.ours_args = ["--model", "cnn", "--mode", ours_mode, "--devices", ours_devices, "--batch-size", str(batch),
                          "--test-limit", str(test_limit)]
        self.peer_args = ["--model", "cnn", "--members", str(members), "--batch-size", str(batch),
                          "--test-limit", str(test_limit)]
        self.flax_args = ["--members", str(members), "--batch-size", str(batch), "--test-limit", str(test_limit)]


WORKLOADS = [
    Workload("CNN ensemble of 4, batch 128", 4, 128, "ensemble", "cpu*4", 10000),
    Workload("CNN single, batch 128", 1, 128, "single", "cpu", 1000),
    # Data-parallel has no peer of its own shape: the peers train one model at the global batch.
    Workload("CNN data-parallel cpu*2, global batch 256 (peers: one model, batch 256)", 1, 256, "data-parallel", "cpu*2",
             1000),
]


class Side:
    """One program to time; `candidates` are the settings its tuning pass chooses from."""

    def __init__(self, name, command, env=None, candidates=([],), applies=lambda w: True,
                 shape=lambda w: w.peer_args, env_of=lambda w: {}):
        self.name, self.command, self.candidates, self.applies, self.shape = name, command, candidates, applies, shape
        self.env_of = lambda w: {**(env or {}), **env_of(w)}
        self.chosen = {}

    def time(self, workload, tuning, steps, warmup):
        command = self.command + self.shape(workload) + tuning + ["--steps", str(steps), "--warmup", str(warmup)]
        return run(command, self.env_of(workload))


def sides(a):
    found = []
    for label, build in (("EnsembleLab, Debian LibTorch 1.13", a.build), ("EnsembleLab, wheel LibTorch (CPU)", a.cuda_build)):
        program = os.path.join(build, "bench", "ensemble-lab-bench")
        if os.access(program, os.X_OK):
            found.append(Side(label, [program], shape=lambda w: w.ours_args))
        else:
            print(f"left out: {label} ({program} not built)")
    peer = os.path.join(HERE, "peer.py")
    # OPENBLAS_NUM_THREADS=1: OpenBLAS's own pool otherwise spins against torch's threads.
    tuned = {"OPENBLAS_NUM_THREADS": "1"}
    threads = ["--threads", str(CORES)]
    found.append(Side("PyTorch 1.13 (Debian, OpenBLAS), tuned", ["/usr/bin/python3", peer], tuned,
                      [threads, threads + ["--channels-last"]]))
    if a.torch_python:
        fast = [threads, threads + ["--channels-last"], threads + ["--vmap"], threads + ["--vmap", "--channels-last"]]
        compiled = [threads + ["--compile"], threads + ["--vmap", "--compile"]]
        found.append(Side("PyTorch 2.x (wheel, MKL), tuned", [a.torch_python, peer], tuned,
                          fast + ([] if a.no_compile else compiled)))
    if a.jax_python:
        flax = [a.jax_python, os.path.join(HERE, "flax_peer.py")]
        found.append(Side("Flax HOWTO, pmap (one member per device)", flax, shape=lambda w: w.flax_args,
                          env_of=lambda w: {"XLA_FLAGS": f"--xla_force_host_platform_device_count={w.members}"}))
        found.append(Side("Flax HOWTO, vmap (members on one device)", flax, shape=lambda w: w.flax_args,
                          applies=lambda w: w.members > 1))
    return found


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--cuda-build", default=os.path.join(ROOT, "build-cuda"))
    p.add_argument("--torch-venv", help="scripts/torch-venv.sh's folder (default: ask the script)")
    p.add_argument("--jax-venv", help="scripts/bench-venv.sh's folder (default: ask the script)")
    p.add_argument("--python", help="the peers' python (CPU: instead of both environments; --gpu: default python3)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--steps", type=int, help="timed steps (default 30; --gpu: 400)")
    p.add_argument("--warmup", type=int, help="warm-up steps before the clock starts (default 5; --gpu: 20)")
    p.add_argument("--quick", action="store_true", help="8 steps, no torch.compile (a smoke run, not for the record); "
                   "--gpu: only 8 members x batch 128 x fp32, bf16")
    p.add_argument("--no-compile", action="store_true", help="leave torch.compile out of the tuning (2 minutes a try)")
    p.add_argument("--only", default="", help="run only the workloads whose name contains this text")
    p.add_argument("--json", help="also write every measurement here")
    p.add_argument("--scaling", action="store_true", help="then members 1-8 x batch 32-512, ours against the best peer")
    p.add_argument("--png", help="the scaling plot (needs --scaling; --gpu: default next to --json)")
    gpu = p.add_argument_group("--gpu", "one GPU: ours, the PyTorch loop, PyTorch vmap + compile, Flax vmap")
    gpu.add_argument("--gpu", action="store_true", help="measure on cuda:0 (bench/gpu_bench.py)")
    gpu.add_argument("--members", help="comma-separated member counts (default 1,4,8,16)")
    gpu.add_argument("--batches", help="comma-separated batch sizes per member (default 32,128,512)")
    gpu.add_argument("--precisions", help="comma-separated, of fp32, tf32, bf16 (default fp32,bf16)")
    gpu.add_argument("--sides", help="comma-separated keys: ours-separate, ours-stacked, ours-single, torch-loop, "
                     "torch-vmap-compile, flax-vmap (default all)")
    gpu.add_argument("--peer-repeats", choices=("in-process", "processes"), default="in-process",
                     help="in-process (default): each peer starts once per point and times its --repeats windows "
                          "after one warm-up (torch.compile and XLA compile once); processes: a new process per "
                          "repeat, alternating with ours")
    gpu.add_argument("--jax-python", help="the Flax peer's python (default: --python)")
    gpu.add_argument("--test-limit", type=int, default=10000, help="test images the evaluation speed is timed on")
    gpu.add_argument("--deterministic", choices=("on", "off"), default="on",
                     help="our bench's deterministic kernels (default on, the engine's default)")
    gpu.add_argument("--timeout", type=int, default=900, help="seconds one run may take before it counts as failed")
    gpu.add_argument("--markdown", help="the table's file, instead of stdout (default: on stdout, and in --json's "
                     "name with .md)")
    gpu.add_argument("--resume", action="store_true",
                     help="with --json: keep the points that file holds from an earlier run of the same setup and "
                     "measure only the others (a grid longer than one GPU call, over several calls)")
    gpu.add_argument("--on-cpu", action="store_true",
                     help="run --gpu's grid on the CPU (peers --device cpu, ours cpu*M): a check of the script only")
    a = p.parse_args()
    if a.on_cpu:
        a.gpu = True
    if a.gpu:
        import gpu_bench
        sys.exit(gpu_bench.main(a, sys.argv[1:]))
    a.steps = a.steps or 30
    if a.quick:
        a.steps, a.no_compile = 8, True
    warmup = 5 if a.warmup is None else a.warmup
    if a.python:
        a.torch_python = a.jax_python = a.python
    else:
        a.torch_venv = a.torch_venv or venv("torch-venv.sh")
        a.jax_venv = a.jax_venv or venv("bench-venv.sh")
        a.torch_python = a.torch_venv and os.path.join(a.torch_venv, "bin", "python")
        a.jax_python = a.jax_venv and os.path.join(a.jax_venv, "bin", "python")

    peaks = [run(["/usr/bin/python3", os.path.join(HERE, "peer.py"), "--sgemm", "--threads", str(CORES)])]
    everyone = sides(a)
    if a.torch_python:
        peaks.append(run([a.torch_python, os.path.join(HERE, "peer.py"), "--sgemm", "--threads", str(CORES)]))
    peak = max(x["sgemm_gflops"] for x in peaks)
    print(f"machine: {CORES} cores; sgemm 2048^3 on {CORES} threads: "
          + ", ".join(f"{x['sgemm_gflops']:.0f} GFLOP/s ({x['blas']})" for x in peaks) + f"; peak = {peak:.0f}")

    record = {"cores": CORES, "sgemm": peaks, "peak_gflops": peak, "workloads": []}
    for workload in (w for w in WORKLOADS if a.only in w.name):
        present = [s for s in everyone if s.applies(workload)]
        print(f"\n== {workload.name}")
        for side in present:  # the tuning pass: every candidate once, the fastest kept
            if len(side.candidates) == 1:
                side.chosen[workload.name] = side.candidates[0]
                continue
            tries = []
            for tuning in side.candidates:
                result = side.time(workload, tuning, max(4, a.steps // 2), warmup)
                tries.append((result["images_per_second"], tuning))
                print(f"  tuning {side.name}: {' '.join(tuning)} -> {result['images_per_second']:.0f} img/s")
            side.chosen[workload.name] = max(tries, key=lambda t: t[0])[1]
        results = {s.name: [] for s in present}
        for _ in range(a.repeats):
            for side in present:
                results[side.name].append(side.time(workload, side.chosen[workload.name], a.steps, warmup))
        flops = next(r for s, rs in results.items() for r in rs if "train_flops_per_image" in r)["train_flops_per_image"]
        rows = []
        for side in present:
            rs = results[side.name]
            rows.append({"side": side.name, "tuning": " ".join(side.chosen[workload.name]),
                         "images_per_second": statistics.median(r["images_per_second"] for r in rs),
                         "eval_images_per_second": statistics.median(r["eval_images_per_second"] for r in rs),
                         "peak_rss_mb": max(r["peak_rss_mb"] for r in rs),
                         "blas": rs[0].get("blas", "XLA (Eigen)"), "all": [r["images_per_second"] for r in rs]})
        best_peer = max(r["images_per_second"] for r in rows if not r["side"].startswith("EnsembleLab"))
        print(f"{workload.name}  ({a.steps} steps after {warmup} warm-up, {a.repeats} repeats alternating, medians)")
        print("| side | settings | member-img/s | x best peer | share of sgemm peak | eval img/s | peak RSS MB |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            share = 100 * r["images_per_second"] * flops / 1e9 / peak
            print(f"| {r['side']} | {r['tuning'] or '-'} | {r['images_per_second']:.0f} | "
                  f"{r['images_per_second'] / best_peer:.2f} | {share:.0f}% | {r['eval_images_per_second']:.0f} | "
                  f"{r['peak_rss_mb']:.0f} |")
        record["workloads"].append({"name": workload.name, "steps": a.steps, "repeats": a.repeats,
                                    "train_flops_per_image": flops, "rows": rows})
        sys.stdout.flush()
    if record["workloads"]:
        print("\nBLAS each side loaded (/proc/self/maps):")
        for row in record["workloads"][0]["rows"]:
            print(f"  {row['side']}: {row['blas']}")
    if a.scaling:
        record["scaling"] = scaling(a, everyone, record)
    if a.json:
        with open(a.json, "w") as out:
            json.dump(record, out, indent=1)
    if a.png and record.get("scaling") and a.jax_python:
        points = os.path.join(os.path.dirname(os.path.abspath(a.png)), "scaling-points.json")
        with open(points, "w") as out:
            json.dump(record["scaling"], out, indent=1)
        subprocess.run([a.jax_python, os.path.join(HERE, "plot_scaling.py"), points, a.png], check=True)
        print(f"plot: {a.png} (from {points})")


def scaling(a, everyone, record):
    """Members x batch for our faster build and the fastest peer of the ensemble of 4."""
    ensemble = next((w for w in record["workloads"] if w["name"].startswith("CNN ensemble of 4")), None)
    if not ensemble:
        print("--scaling needs the ensemble of 4 in the run (to know the best peer and our faster build)")
        return None
    by_speed = sorted(ensemble["rows"], key=lambda r: -r["images_per_second"])
    ours_row = next(r for r in by_speed if r["side"].startswith("EnsembleLab"))
    peer_row = next(r for r in by_speed if not r["side"].startswith("EnsembleLab"))
    chosen = [next(s for s in everyone if s.name == row["side"]) for row in (ours_row, peer_row)]
    print(f"\nscaling: {ours_row['side']} against {peer_row['side']} ({peer_row['tuning'] or 'as written'})")
    points = []
    print("| members | batch | side | member-img/s | peak RSS MB |")
    print("|---|---|---|---|---|")
    for members in (1, 2, 4, 8):
        for batch in (32, 128, 512):
            # The same images per member at every batch size: 3,840 (30 steps of 128).
            steps, warmup = max(8, 3840 // batch), max(2, 640 // batch)
            workload = Workload(f"scaling {members}x{batch}", members, batch, "ensemble", f"cpu*{members}", 1000)
            for side in chosen:
                tuning = side.chosen[ensemble["name"]]
                result = side.time(workload, tuning, steps, warmup)
                points.append({"members": members, "batch": batch, "side": side.name,
                               "images_per_second": result["images_per_second"], "peak_rss_mb": result["peak_rss_mb"]})
                print(f"| {members} | {batch} | {side.name} | {result['images_per_second']:.0f} | {result['peak_rss_mb']:.0f} |")
                sys.stdout.flush()
    return points


if __name__ == "__main__":
    main()
