# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/run_bench.py --gpu: EnsembleLab against its peers on one GPU, in one command (issue 29).

The workload: the CNN (core/models/Cnn, bench/peer.py's Cnn) on Fashion-MNIST, M members each
trained on the same batch of B images per step, SGD lr 0.1 momentum 0.9; member-images/s =
steps x B x M / seconds, timed after a warm-up. Sides (those whose program or environment is
missing are left out, saying so):
  ours-separate       build-cuda/bench/ensemble-lab-bench --mode ensemble --devices cuda:0*M
                      --member-form separate (M > 1)
  ours-stacked        the same, --member-form stacked: the members as one network (M > 1)
  ours-single         --mode single --devices cuda:0 (M = 1)
  ours-stacked-graphs, ours-single-graphs
                      the same with --cuda-graphs on: each step replayed from a CUDA graph
  torch-loop          bench/peer.py --device cuda: M nn.Modules, each with its own
                      torch.optim.SGD(foreach=True), in a Python loop (as people write it)
  torch-vmap-compile  bench/peer.py --device cuda --vmap --compile: torch.func's
                      stack_module_state + functional_call + vmap, one SGD over the stacked
                      parameters, under torch.compile (default mode)
  flax-vmap           bench/flax_peer.py --device cuda --mapping vmap: the Flax HOWTO's
                      program with its members mapped by jax.vmap on the one GPU
over the grid members x batch x precision (default 1, 4, 8, 16 x 32, 128, 512 x fp32, bf16;
--quick: 8 x 128 x fp32, bf16). fp32 is IEEE float32 everywhere (TF32 off; JAX's matmul
precision 'highest'), tf32 (--precisions fp32,tf32,bf16) TF32 convolutions and matmuls, bf16
autocast to bfloat16 (PyTorch; our engine's bf16 is the same) or a bfloat16 compute dtype
(Flax). Each point runs every side --repeats times and reports medians. Our bench starts a
new process each time, alternating with the peers; a peer (--peer-repeats in-process, the
default) starts once per point and times --repeats windows of --steps steps one after
another after its warm-up, each with its evaluation, so that torch.compile and XLA compile
once a point rather than once a repeat (their compilation took most of a peer's run on the
H200, and the whole grid is longer than a GPU session); --peer-repeats processes gives each
repeat of a peer its own process, alternating with ours. The medians are of: member-images/s,
the ratio to the best peer, the peak GPU memory (MiB: the torch caching allocator's
max_memory_allocated for ours and the PyTorch peers, JAX's peak_bytes_in_use), and the ensemble's evaluation speed (test images/s: our
Trainer::evaluate, the vmapped model under torch.no_grad, the vmapped Flax apply; each 1000
test images a call: ours is given --eval-batch-size 1000 to match the peers).

--resume (with --json) keeps the points that JSON already holds from an earlier run on the same
device with the same sides, steps, warm-up and repeats, and measures the rest: the file is
rewritten after every point, so a grid that outlasts one GPU call (at most 10 minutes) is
measured over several, each call taking up where the last stopped. Another setup is refused.

Our bench trains one epoch of (steps + warm-up) x B images; where that exceeds the training
set (60,000 images: batch 512 holds 117 steps) it times the steps that fit, and the table says
so. Output: a Markdown table (on stdout and beside --json; --markdown FILE: there only), the JSON
record (--json), and where matplotlib imports and the grid has several member counts, a
scaling plot per precision by bench/plot_scaling.py (--png, default next to --json). Exits 0,
1 where a side failed somewhere (the rest is measured and written all the same), 2 where there
is no CUDA device (a sentence, no traceback).
"""
import datetime, gzip, json, os, shlex, shutil, statistics, struct, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = "/usr/share/datasets/fashion-mnist/"

FULL_GRID = ([1, 4, 8, 16], [32, 128, 512], ["fp32", "bf16"])
QUICK_GRID = ([8], [128], ["fp32", "bf16"])
SIDE_KEYS = ("ours-separate", "ours-stacked", "ours-single", "ours-stacked-graphs", "ours-single-graphs", "torch-loop",
             "torch-vmap-compile", "flax-vmap")

TORCH_PROBE = """import json
info = {}
try:
    import torch
    info.update(torch=torch.__version__, cuda_version=torch.version.cuda, gpus=torch.cuda.device_count())
    if info["gpus"]:
        info["name"] = torch.cuda.get_device_name(0)
except Exception as e:
    info["error"] = f"{type(e).__name__}: {e}"
print(json.dumps(info))"""

JAX_PROBE = """import json
info = {}
try:
    import jax, flax, optax
    info.update(jax=jax.__version__, flax=flax.__version__)
    try:
        info["gpus"] = [d.device_kind for d in jax.devices("gpu")]
    except Exception as e:
        info["gpus"], info["gpu_error"] = [], f"{type(e).__name__}: {e}"
except Exception as e:
    info["error"] = f"{type(e).__name__}: {e}"
print(json.dumps(info))"""


class Point:
    """One cell of the grid: `members` models, `batch` images per member and step, `precision`."""

    def __init__(self, members, batch, precision):
        self.members, self.batch, self.precision = members, batch, precision

    def __str__(self):
        return f"{self.members} members x batch {self.batch}, {self.precision}"

    def key(self):
        return (self.members, self.batch, self.precision)


class GpuSide:
    """A program to time; `arguments(point)` its arguments there, None where it does not apply."""

    def __init__(self, key, name, command, arguments, env=None):
        self.key, self.name, self.command, self.arguments, self.env = key, name, command, arguments, env or {}

    @property
    def ours(self):
        return self.key.startswith("ours")


def probe(python, code, timeout=180):
    """The JSON a probe prints under `python`, or {"error": why}."""
    try:
        result = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": f"{type(e).__name__}: {e}"}
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"error": f"exit {result.returncode}: {result.stderr.strip()[-500:]}"}


def nvidia_smi():
    """[(name, total memory)] of the GPUs nvidia-smi lists; [] where there is none or no nvidia-smi."""
    try:
        result = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if result.returncode != 0:
        return []
    return [tuple(x.strip() for x in line.split(",", 1)) for line in result.stdout.splitlines() if line.strip()]


def training_images():
    """The training set's size from its IDX header (the bench trains at most one epoch of it)."""
    try:
        with gzip.open(DATA + "train-images-idx3-ubyte.gz") as f:
            return struct.unpack(">I", f.read(8)[4:])[0]
    except OSError:
        return 60000


def run_one(command, env, timeout):
    """The last line of `command`'s output as JSON, or {"error": why} (a failing side does not
    stop the others)."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **env}, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"no result after {timeout} s (--timeout)"}
    except OSError as e:
        return {"error": f"{type(e).__name__}: {e}"}
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        tail = "\n".join(result.stderr.strip().splitlines()[-6:])
        return {"error": f"exit {result.returncode}: {tail}"}
    try:
        return json.loads(lines[-1])
    except ValueError:
        return {"error": f"no JSON in its last line: {lines[-1][:200]}"}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def make_sides(a, on_cpu, torch_info, jax_info, train_images):
    """The sides present, and the lines saying which were left out and why."""
    found, left_out = [], []
    wanted = lambda key: not a.sides or key in a.sides
    common = lambda p, steps: ["--batch-size", str(p.batch), "--precision", p.precision, "--steps", str(steps),
                               "--warmup", str(a.warmup), "--test-limit", str(a.test_limit)]
    bench = os.path.join(a.cuda_build, "bench", "ensemble-lab-bench")
    device = "cpu" if on_cpu else "cuda:0"

    def ours_steps(p):  # our bench trains one epoch: the steps that fit in the training set
        return max(1, min(a.steps, train_images // p.batch - a.warmup))

    def ours(form, graphs):
        def arguments(p):
            if (form == "single") != (p.members == 1):
                return None
            shape = (["--mode", "single", "--devices", device] if form == "single" else
                     ["--mode", "ensemble", "--devices", f"{device}*{p.members}", "--member-form", form])
            # The peers evaluate 1000 test images a call (peer.py, flax_peer.py): so does ours here
            # (its default, 256, is the CPU's).
            return (["--model", "cnn"] + shape + ["--deterministic", a.deterministic, "--cuda-graphs", graphs,
                                                  "--eval-batch-size", "1000"] + common(p, ours_steps(p)))
        return arguments

    for key, form, graphs in (("ours-separate", "separate", "off"), ("ours-stacked", "stacked", "off"),
                              ("ours-single", "single", "off"), ("ours-stacked-graphs", "stacked", "on"),
                              ("ours-single-graphs", "single", "on")):
        if not wanted(key):
            continue
        name = f"EnsembleLab, {form} members" if form != "single" else "EnsembleLab, single mode"
        name += ", CUDA graphs" if graphs == "on" else ""
        if graphs == "on" and on_cpu:
            left_out.append(f"{name} (CUDA graphs capture a step on a GPU only: --on-cpu leaves this side out)")
            continue
        if os.access(bench, os.X_OK):
            found.append(GpuSide(key, name, [bench], ours(form, graphs)))
        else:
            left_out.append(f"{name} ({bench} not built: scripts/build-cuda.sh, or .gpu-carry/on-device.sh there)")
    peer_device = ["--device", "cpu" if on_cpu else "cuda"]
    torch_ready = "error" not in torch_info and (on_cpu or torch_info.get("gpus", 0) > 0)
    why_torch = torch_info.get("error") or f"torch {torch_info.get('torch')} sees no CUDA device"
    for key, name, tuning in (("torch-loop", "PyTorch, loop of nn.Modules", []),
                              ("torch-vmap-compile", "PyTorch, vmap + torch.compile", ["--vmap", "--compile"])):
        if not wanted(key):
            continue
        if torch_ready:
            found.append(GpuSide(key, name, [a.python, os.path.join(HERE, "peer.py")] + peer_device + tuning,
                                 lambda p: ["--model", "cnn", "--members", str(p.members)] + common(p, a.steps)))
        else:
            left_out.append(f"{name} ({a.python}: {why_torch})")
    if wanted("flax-vmap"):
        jax_ready = "error" not in jax_info and (on_cpu or jax_info.get("gpus"))
        name = "Flax HOWTO, vmap on one device"
        if jax_ready:
            found.append(GpuSide("flax-vmap", name,
                                 [a.jax_python, os.path.join(HERE, "flax_peer.py")] + peer_device + ["--mapping", "vmap"],
                                 lambda p: ["--members", str(p.members)] + common(p, a.steps)))
        else:
            why = jax_info.get("error") or f"jax {jax_info.get('jax')} has no GPU backend ({jax_info.get('gpu_error')})"
            left_out.append(f"{name} ({a.jax_python}: {why})")
    return found, left_out


def no_gpu(a, torch_info, gpus):
    """Why this machine has no CUDA device for --gpu, or None where it has one."""
    if gpus or torch_info.get("gpus", 0) > 0:
        return None
    smi = "nvidia-smi lists no GPU" if shutil.which("nvidia-smi") else "nvidia-smi is not installed"
    torch_says = (f"{a.python} cannot import torch ({torch_info['error']})" if "error" in torch_info
                  else f"torch {torch_info.get('torch')} under {a.python} sees no CUDA device")
    return f"{smi}, and {torch_says}"


def main(a, argv):
    on_cpu = a.on_cpu
    a.python = a.python or "python3"
    a.jax_python = a.jax_python or a.python
    a.steps = a.steps or 400
    a.warmup = 20 if a.warmup is None else a.warmup
    a.sides = [s for s in (a.sides or "").split(",") if s]
    unknown = [s for s in a.sides if s not in SIDE_KEYS]
    if unknown:
        sys.exit(f"run_bench.py --gpu: unknown side(s) {', '.join(unknown)}; choose from {', '.join(SIDE_KEYS)}")
    torch_info = probe(a.python, TORCH_PROBE)
    gpus = [] if on_cpu else nvidia_smi()
    why = None if on_cpu else no_gpu(a, torch_info, gpus)
    if why:
        print(f"run_bench.py --gpu: no CUDA device here: {why}. Run it on a GPU machine (docs/BENCHMARKS.md, "
              "\"GPU\"); without --gpu, run_bench.py measures the CPU.", file=sys.stderr)
        return 2
    jax_info = probe(a.jax_python, JAX_PROBE) if not a.sides or "flax-vmap" in a.sides else {"error": "not asked for"}
    device_name = ("CPU (--on-cpu: a check of the machinery, not a GPU measurement)" if on_cpu
                   else gpus[0][0] if gpus else torch_info.get("name", "unknown GPU"))
    if gpus:
        device_name += f" ({gpus[0][1]})"
    members, batches, precisions = QUICK_GRID if a.quick else FULL_GRID
    try:
        members = [int(x) for x in a.members.split(",")] if a.members else members
        batches = [int(x) for x in a.batches.split(",")] if a.batches else batches
    except ValueError:
        sys.exit(f"run_bench.py --gpu: --members and --batches take comma-separated integers, got "
                 f"{a.members!r} and {a.batches!r}")
    precisions = a.precisions.split(",") if a.precisions else precisions
    bad = [p for p in precisions if p not in ("fp32", "tf32", "bf16")]
    if bad:
        sys.exit(f"run_bench.py --gpu: unknown precision(s) {', '.join(bad)}; choose from fp32, tf32, bf16")
    train_images = training_images()
    sides, left_out = make_sides(a, on_cpu, torch_info, jax_info, train_images)
    print(f"device: {device_name}; torch: {torch_info.get('torch', torch_info.get('error'))} "
          f"(CUDA {torch_info.get('cuda_version')}, {a.python}); jax: {jax_info.get('jax', jax_info.get('error'))} "
          f"({a.jax_python})")
    for line in left_out:
        print(f"left out: {line}")
    if not sides:
        print("run_bench.py --gpu: no side to run", file=sys.stderr)
        return 1
    points = [Point(m, b, p) for m in members for b in batches for p in precisions]
    print(f"{len(points)} points x {len(sides)} sides x {a.repeats} repeats (peers: {a.peer_repeats}); {a.steps} "
          f"steps after {a.warmup} warm-up")
    sys.stdout.flush()
    record = {"mode": "gpu" if not on_cpu else "gpu-on-cpu", "device": device_name, "gpus": gpus,
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "command": " ".join(shlex.quote(x) for x in ["bench/run_bench.py"] + argv),
              "python": a.python, "torch": torch_info, "jax_python": a.jax_python, "jax": jax_info,
              "steps": a.steps, "warmup": a.warmup, "repeats": a.repeats, "peer_repeats": a.peer_repeats,
              "test_limit": a.test_limit,
              "ours_deterministic": a.deterministic, "train_images": train_images,
              # The kernel choices our side ran with (docs/GPU.md: ENSEMBLELAB_STACKED_CONV and the like).
              "ours_environment": {k: v for k, v in sorted(os.environ.items()) if k.startswith("ENSEMBLELAB_")},
              "sides": [{"key": s.key, "name": s.name, "command": s.command} for s in sides],
              "left_out": left_out, "points": []}
    earlier = earlier_points(a, record)
    if earlier:
        record["resumed"] = {"points": len([p for p in points if p.key() in earlier]), "from": a.json}
    started = time.monotonic()
    for point in points:
        if point.key() in earlier:  # --resume: measured by an earlier call with this setup
            print(f"\n== {point}: kept from {a.json} (--resume)")
            record["points"].append(earlier[point.key()])
            continue
        present = [(s, s.arguments(point)) for s in sides]
        present = [(s, args) for s, args in present if args is not None]
        results, errors = {s.key: [] for s, _ in present}, {}
        print(f"\n== {point}")
        in_process = a.peer_repeats == "in-process"
        for repeat in range(a.repeats):
            for side, args in present:  # alternating: drift hits every side alike
                if side.key in errors:  # failed once here (out of memory, say): not tried again
                    continue
                if in_process and not side.ours and repeat > 0:  # its first process timed every repeat
                    continue
                extra = ["--repeats", str(a.repeats)] if in_process and not side.ours else []
                out = run_one(side.command + args + extra, side.env, a.timeout)
                if "error" in out:
                    errors[side.key] = out["error"]
                    print(f"  {side.name}: FAILED: {out['error']}")
                    continue
                if on_cpu:  # our bench reports 0 there: no GPU memory to speak of
                    out["peak_gpu_memory_mb"] = None
                # One result per timed window: a peer's in-process windows count as its repeats.
                for sample in out.pop("samples", None) or [{}]:
                    results[side.key].append({**out, **sample})
                    memory = out.get("peak_gpu_memory_mb")
                    print(f"  {side.name}: {results[side.key][-1]['images_per_second']:.0f} member-img/s, eval "
                          f"{results[side.key][-1]['eval_images_per_second']:.0f} img/s"
                          + (f", peak {memory:.0f} MiB" if memory is not None else ""))
                sys.stdout.flush()
        rows = []
        for side, args in present:
            rs = results[side.key]
            rows.append({"key": side.key, "side": side.name,
                         "command": " ".join(shlex.quote(x) for x in side.command + args),
                         "steps": rs[0]["steps"] if rs else None,
                         "images_per_second": median(r["images_per_second"] for r in rs),
                         "all": [r["images_per_second"] for r in rs],
                         "eval_images_per_second": median(r.get("eval_images_per_second") for r in rs),
                         "peak_gpu_memory_mb": max((r["peak_gpu_memory_mb"] for r in rs
                                                    if r.get("peak_gpu_memory_mb") is not None), default=None),
                         "peak_rss_mb": max((r.get("peak_rss_mb", 0) for r in rs), default=None),
                         "error": errors.get(side.key)})
        peers = [r["images_per_second"] for r in rows if not r["key"].startswith("ours") and r["images_per_second"]]
        best = max(peers) if peers else None
        for r in rows:
            r["ratio_to_best_peer"] = r["images_per_second"] / best if best and r["images_per_second"] else None
        record["points"].append({"members": point.members, "batch": point.batch, "precision": point.precision,
                                 "best_peer": best, "rows": rows})
        if a.json:  # after every point: an interrupted run keeps what it measured
            write_json(a.json, record)
    record["seconds"] = time.monotonic() - started
    table = markdown(record)
    if not a.markdown:  # a file named for the table takes it instead (gpu-check.sh puts it in its report)
        print("\n" + table)
    json_path = a.json
    if json_path:
        write_json(json_path, record)
    stem = os.path.splitext(json_path)[0] if json_path else None
    markdown_path = a.markdown or (stem + ".md" if stem else None)
    if markdown_path:
        os.makedirs(os.path.dirname(os.path.abspath(markdown_path)), exist_ok=True)
        with open(markdown_path, "w") as out:
            out.write(table)
        print(f"table: {markdown_path}")
    png = a.png or (stem + "-scaling.png" if stem else None)
    if png:
        plot(a, record, png)
    failed = sum(1 for p in record["points"] for r in p["rows"] if r["error"])
    if failed:  # the table is written all the same; the exit code tells a script (gpu-check.sh)
        print(f"run_bench.py --gpu: {failed} run(s) failed; the table's notes say why", file=sys.stderr)
    return 1 if failed else 0


def earlier_points(a, record):
    """--resume: the points of --json's earlier record, by (members, batch, precision), where that
    record was measured as this run would measure them; {} without --resume or an earlier file."""
    if not a.resume:
        return {}
    if not a.json:
        sys.exit("run_bench.py --gpu: --resume keeps the points of --json's file: name it with --json")
    if not os.path.exists(a.json):
        return {}
    try:
        with open(a.json) as f:
            earlier = json.load(f)
        points = {(p["members"], p["batch"], p["precision"]): p for p in earlier["points"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"run_bench.py --gpu --resume: {a.json} is not a record of run_bench.py --gpu ({e}); "
                 "name another --json, or move that file away")
    keys = ("mode", "device", "steps", "warmup", "repeats", "peer_repeats", "test_limit", "ours_deterministic")
    differs = [k for k in keys if earlier.get(k) != record[k]]
    if earlier.get("ours_environment", {}) != record["ours_environment"]:
        differs.append("ENSEMBLELAB_ variables")
    if [s.get("key") for s in earlier.get("sides", [])] != [s["key"] for s in record["sides"]]:
        differs.append("sides")
    if differs:
        sys.exit(f"run_bench.py --gpu --resume: {a.json} was measured with other {', '.join(differs)} than this run "
                 f"asks for; its points would not compare. Name another --json, or run the same setup.")
    return points


def write_json(path, record):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as out:
        json.dump(record, out, indent=1)


def number(value, digits=0):
    return "-" if value is None else f"{value:,.{digits}f}"


def markdown(record):
    """The record as Markdown: what was run, and one row per point and side."""
    lines = [f"### GPU bench: {record['device']}, {record['date']}", "",
             f"`{record['command']}` ({record.get('seconds', 0):.0f} s)", "",
             f"- torch {record['torch'].get('torch', '-')} (CUDA {record['torch'].get('cuda_version', '-')}) "
             f"under `{record['python']}`; jax {record['jax'].get('jax', '-')} under `{record['jax_python']}`; "
             f"ours: `ensemble-lab-bench`, deterministic {record['ours_deterministic']}",
             f"- member-images/s = steps x batch x members / seconds, {record['steps']} steps timed after "
             f"{record['warmup']} warm-up steps; medians of {record['repeats']} "
             + ("runs alternating over the sides" if record.get("peer_repeats") == "processes" else
                "runs of ours alternating with the peers, each peer's in one process (one warm-up, then "
                f"{record['repeats']} timed windows one after another)")
             + "; x best peer: the side's median over the fastest peer's at that point",
             f"- peak GPU memory: MiB allocated at most (torch.cuda.max_memory_allocated; JAX's peak_bytes_in_use; "
             f"our bench's CUDA allocator peak), the largest of the runs; eval: the ensemble's test images/s on "
             f"{record['test_limit']} images"]
    capped = sorted({(p["batch"], r["steps"]) for p in record["points"] for r in p["rows"]
                     if r["key"].startswith("ours") and r["steps"] and r["steps"] < record["steps"]})
    for batch, steps in capped:
        lines.append(f"- ours at batch {batch}: {steps} steps timed (the bench trains one epoch of "
                     f"{record['train_images']} images)")
    if record.get("ours_environment"):
        lines.append("- ours ran with " + ", ".join(f"`{k}={v}`" for k, v in record["ours_environment"].items()))
    for line in record["left_out"]:
        lines.append(f"- left out: {line}")
    if record.get("resumed"):
        lines.append(f"- {record['resumed']['points']} point(s) kept from an earlier call's record of the same "
                     f"setup (--resume), measured then")
    lines += ["", "| members | batch | precision | side | member-img/s | x best peer | peak GPU MiB | eval img/s |",
              "|---|---|---|---|---|---|---|---|"]
    notes = []
    for p in record["points"]:
        for r in p["rows"]:
            speed = number(r["images_per_second"])
            if r["error"]:
                notes.append(f"{p['members']} x {p['batch']} {p['precision']}, {r['side']}: {r['error']}")
                speed = f"failed ({len(notes)})" if r["images_per_second"] is None else f"{speed} ({len(notes)})"
            ratio = "-" if r["ratio_to_best_peer"] is None else f"{r['ratio_to_best_peer']:.2f}"
            lines.append(f"| {p['members']} | {p['batch']} | {p['precision']} | {r['side']} | {speed} | {ratio} | "
                         f"{number(r['peak_gpu_memory_mb'])} | {number(r['eval_images_per_second'])} |")
    if notes:
        lines.append("")
        lines += [f"({i}) {' '.join(note.split())[-400:]}" for i, note in enumerate(notes, 1)]
    return "\n".join(lines) + "\n"


def plot(a, record, png):
    """One scaling plot per precision by bench/plot_scaling.py, where matplotlib imports."""
    members = {p["members"] for p in record["points"]}
    if len(members) < 2:
        print(f"scaling plot skipped: the grid has one member count ({', '.join(map(str, members))})")
        return
    python = next((p for p in (a.python, a.jax_python) if probe(p, "import matplotlib; print('{}')").get("error")
                   is None), None)
    if not python:
        print(f"scaling plot skipped: matplotlib is not installed for {a.python}"
              + (f" or {a.jax_python}" if a.jax_python != a.python else ""))
        return
    points = []
    for p in record["points"]:
        for r in p["rows"]:
            if r["images_per_second"] is None:
                continue
            # Our single mode is the one-member point of both of our member forms' lines.
            lines = {"ours-single": ("ours-separate", "ours-stacked"), "ours-single-graphs": ("ours-stacked-graphs",)}
            forms = [s["name"] for s in record["sides"] if s["key"] in lines.get(r["key"], ())]
            names = forms if forms else [r["side"]]
            points += [{"members": p["members"], "batch": p["batch"], "precision": p["precision"], "side": name,
                        "images_per_second": r["images_per_second"],
                        "peak_gpu_memory_mb": r["peak_gpu_memory_mb"]} for name in names]
    points_file = os.path.splitext(png)[0] + "-points.json"
    write_json(points_file, points)
    precisions = list(dict.fromkeys(p["precision"] for p in record["points"]))
    for precision in precisions:
        out = png if len(precisions) == 1 else f"{os.path.splitext(png)[0]}-{precision}.png"
        result = subprocess.run([python, os.path.join(HERE, "plot_scaling.py"), points_file, out, "--precision",
                                 precision, "--title", f"CNN on Fashion-MNIST, {record['device']}, {precision}"],
                                capture_output=True, text=True)
        if result.returncode == 0:
            print(f"plot: {out} (from {points_file})")
        else:
            print(f"plot {out} failed: {result.stderr.strip()[-500:]}")
