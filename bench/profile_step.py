#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where an EnsembleLab training step's time goes: perf's samples of ensemble-lab-bench, summed
by the kind of work each sampled function does.

    bench/profile_step.py [--bench build/bench/ensemble-lab-bench] [--steps 150] [--json out.json]
                          [-- any ensemble-lab-bench arguments, e.g. --devices cpu*4 --batch-size 128]

`perf record -e cpu-clock` (a software clock: it works in VMs without hardware counters)
samples every thread; oneDNN names its JIT-compiled kernels through a perf map
(DNNL_JIT_PROFILE=2), so convolutions forward, backward-data, backward-weights and layout
reorders are told apart. The run is long (150 steps) and evaluates 128 test images, so
starting and loading are a few percent; they get rows of their own and the step's shares
are of the rest. CPU use is the samples against wall time x cores: what is missing is
waiting (a core with no replica to run).
"""
import argparse, glob, json, os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (kind of work, pattern on "dso symbol"); the first match wins. Not part of a step: STARTUP.
KINDS = [
    # oneDNN 2.6 convolves NCHW-blocked forward with jit_*_conv_fwd_kernel, NHWC with its brgemm kernels.
    ("convolution forward (oneDNN)", r"conv_fwd_kernel|brgemm"),
    ("convolution backward, input gradient (oneDNN)", r"conv_bwd_data"),
    ("convolution backward, weight gradient (oneDNN)", r"conv_bwd_weights"),
    ("layout reorders around convolutions (oneDNN)", r"reorder|jit_single_blk|jit_blk"),
    ("other oneDNN JIT code", r"\[JIT\]|jit_"),
    ("oneDNN outside its JIT kernels (loops around them; its symbols are stripped)", r"libdnnl|libmkldnn"),
    ("dense layers: sgemm (BLAS)", r"sgemm|libopenblas|libblas|mkl_blas|gemm"),
    ("second convolution, Winograd (ours)", r"winograd_loops|WinogradConv"),
    ("ReLU + pool, fused (ours)", r"ReluAvgPool|reluAvgPool|poolForward|poolBackward|pool_loops|ConvReluPool|conv_pool"),
    ("loading the dataset", r"libz\.|inflate|IdxFile|crc32"),
    ("starting the program (dynamic linking)", r"ld-linux|_dl_|do_lookup"),
    ("memory: page faults, zeroing, malloc/free", r"page|clear_page|memcg|lruvec|folio|malloc|free|_int_|memset|"
                                                 r"mmap|munmap|alloc"),
    ("waiting and waking (futex, yield, scheduler)", r"futex|sched_yield|finish_task_switch|schedule|_raw_spin|"
                                                     r"pthread_cond|syscall"),
    ("copies (memcpy)", r"memmove|memcpy|copy_"),
    ("LibTorch: elementwise kernels, autograd, dispatch", r"libtorch|libc10|ensemble-lab-bench"),
    ("kernel, other", r"kernel\.kallsyms"),
]
STARTUP = {"loading the dataset", "starting the program (dynamic linking)"}


def kind_of(dso, symbol):
    text = f"{dso} {symbol}"
    for kind, pattern in KINDS:
        if re.search(pattern, text):
            return kind
    return "other"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", default=os.path.join(ROOT, "build", "bench", "ensemble-lab-bench"))
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--frequency", type=int, default=1999, help="samples a second per CPU")
    p.add_argument("--json", help="also write the table here")
    p.add_argument("bench_args", nargs="*", help="after --: ensemble-lab-bench's own arguments")
    a = p.parse_args()
    if subprocess.run(["perf", "--version"], capture_output=True).returncode != 0:
        sys.exit("profile_step.py needs perf (Debian: apt-get install linux-perf)")
    with tempfile.TemporaryDirectory() as scratch:
        data = os.path.join(scratch, "perf.data")
        command = [a.bench, "--steps", str(a.steps), "--warmup", "5", "--test-limit", "128", *a.bench_args]
        env = {**os.environ, "DNNL_JIT_PROFILE": "2", "ONEDNN_JIT_PROFILE": "2"}
        maps_before = set(glob.glob("/tmp/perf-*.map"))
        start = time.monotonic()
        run = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(a.frequency), "-o", data, "--",
                              *command], capture_output=True, text=True, env=env)
        wall = time.monotonic() - start
        if run.returncode != 0:
            sys.exit(f"{' '.join(command)} under perf exited {run.returncode}:\n{run.stderr[-2000:]}")
        bench = json.loads(run.stdout.strip().splitlines()[-1])
        report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,sym",
                                 "-F", "sample,dso,sym", "-t", "\t", "--percent-limit", "0"],
                                capture_output=True, text=True, check=True).stdout
    for jit_map in set(glob.glob("/tmp/perf-*.map")) - maps_before:  # oneDNN's, for this report only
        os.remove(jit_map)
    samples = {}
    for line in report.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 3 or not fields[0].strip().isdigit():
            continue
        kind = kind_of(fields[1].strip(), fields[2].strip())
        samples[kind] = samples.get(kind, 0) + int(fields[0])
    total = sum(samples.values())
    step_total = sum(n for k, n in samples.items() if k not in STARTUP)
    cpu_seconds = total / a.frequency
    print(f"{' '.join(command)}")
    print(f"{bench.get('images_per_second', 0):.0f} member-img/s (under perf); {wall:.1f} s wall, {cpu_seconds:.1f} CPU-s "
          f"sampled on {os.cpu_count()} cores: {100 * cpu_seconds / (wall * os.cpu_count()):.0f}% busy")
    print("\n| kind of work | share of the step | share of all samples |\n|---|---|---|")
    rows = []
    for kind, n in sorted(samples.items(), key=lambda item: -item[1]):
        step_share = "" if kind in STARTUP else f"{100 * n / step_total:.1f}%"
        print(f"| {kind} | {step_share} | {100 * n / total:.1f}% |")
        rows.append({"kind": kind, "samples": n, "step_share": None if kind in STARTUP else n / step_total})
    if a.json:
        with open(a.json, "w") as out:
            json.dump({"command": command, "bench": bench, "wall_seconds": wall, "cpu_seconds": cpu_seconds,
                       "cores": os.cpu_count(), "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main()
