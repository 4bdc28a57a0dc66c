#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time to accuracy (issue 18): seconds from a process's start to a target ensemble test
accuracy (0.85) on Fashion-MNIST — the full training set, an evaluation on the full test set
every quarter epoch — for EnsembleLab and for each peer, as a user waits for it: imports,
data loading, compilation and the evaluations included.

Sides (those whose program or environment is missing are left out, saying so), each an
ensemble of 4 CNNs, SGD lr 0.1 momentum 0.9, batch 128 per member, up to --max-epochs:
  ours        EnsembleLab on Debian's LibTorch: --build DIR's app/ensemble-lab-cli train
              --mode ensemble --devices cpu*4 ... --eval-every STEPS
  ours-wheel  the same on the wheel's LibTorch (--cuda-build DIR, run on the CPU)
  torch-1.13  bench/peer.py on Debian's PyTorch 1.13, channels-last (its best setting for
              the ensemble in docs/BENCHMARKS.md's record)
  torch-2     bench/peer.py on the wheel's PyTorch 2.x (scripts/torch-venv.sh), torch.compile
              (its best there; --no-compile: channels-last, the next best)
  flax        the Flax HOWTO's program, bench/flax_peer.py, pmap with one member per XLA host
              device (scripts/bench-venv.sh)
--gpu races on one GPU instead (issue 29), an ensemble of 8 (--members) on cuda:0:
  ours        --cuda-build DIR's CLI, --devices cuda:0*M (the defaults stack the members and
              replay each step from a CUDA graph)
  torch-vmap-compile, torch-loop, flax-vmap
              bench/peer.py --device cuda --vmap --compile, bench/peer.py --device cuda, and
              bench/flax_peer.py --device cuda --mapping vmap, under --python (default python3:
              the GPU machine's, whose torch and jax have CUDA)
  (--on-cpu runs that race on the CPU, cpu*M and the peers' --device cpu: a check of the
  script, not a measurement.)
Repeat r trains every side from seed r (ours --seed r, the peers' --seed r): the medians are
over seeds as well as runs.
The peers get bench/run_bench.py's tuning environment (OPENBLAS_NUM_THREADS=1, one intra-op
thread per core), run with --until-accuracy and stop themselves at the target (torch.compile
starts from an empty cache each run unless --warm-compile-cache: every run compiles, as the
Flax program's XLA does in each process); ours is
stopped with SIGINT at its first evaluation line at or above the target (then killed if
it lingers). Every side is timed the same way, by this driver: time.monotonic() from just
before the child is started to the moment its evaluation line is read (the peers' own clock,
from the top of their script, is recorded beside it). The repeats alternate over the sides;
the table reports medians. Usage:
    python3 bench/time_to_accuracy.py --json tta.json                  # every side, once
    python3 bench/time_to_accuracy.py --repeats 3 --only ours torch-2 flax
    python3 bench/time_to_accuracy.py --quick --only torch-1.13 flax   # a smoke run
    python3 bench/time_to_accuracy.py --gpu --repeats 3 --json tta-gpu.json   # on a GPU machine
"""
import argparse, gzip, json, os, queue, re, shutil, signal, statistics, struct, subprocess, sys, tempfile
import threading, time

from run_bench import CORES, HERE, ROOT, Side, Workload, venv

DATA = "/usr/share/datasets/fashion-mnist/"
TUNED = {"OPENBLAS_NUM_THREADS": "1"}  # as run_bench.py: OpenBLAS's pool spins against torch's threads
THREADS = ["--threads", str(CORES)]


class Entrant(Side):
    """A run_bench Side with one fixed setting, under a short `key` for --only; `ours` for
    EnsembleLab's CLI (a time-to-accuracy run needs other arguments there than a peer)."""

    def __init__(self, key, name, command, tuning=(), ours=False, **kwargs):
        super().__init__(name, command, candidates=[list(tuning)], **kwargs)
        self.key, self.ours, self.tuning = key, ours, list(tuning)

    def command_for(self, workload, extra):
        return self.command + self.shape(workload) + self.tuning + extra


def gpu_sides(a, wanted):
    """--gpu's race: ours from the CUDA build and the three GPU peers of bench/gpu_bench.py."""
    device = "cpu" if a.on_cpu else "cuda"
    found = []
    program = os.path.join(a.cuda_build, "app", "ensemble-lab-cli")
    name = "EnsembleLab (member form, CUDA graphs: auto)"
    if wanted("ours", name):
        if os.access(program, os.X_OK):
            found.append(Entrant("ours", name, [program, "train"], ours=True,
                                 shape=lambda w: w.ours_args))
        else:
            print(f"left out: EnsembleLab ({program} not built: scripts/build-cuda.sh, or .gpu-carry/on-device.sh)")
    peer, flax = os.path.join(HERE, "peer.py"), os.path.join(HERE, "flax_peer.py")
    for key, name, command, tuning in (
            ("torch-vmap-compile", "PyTorch, vmap + torch.compile", [a.python, peer], ["--vmap", "--compile"]),
            ("torch-loop", "PyTorch, loop of nn.Modules", [a.python, peer], []),
            ("flax-vmap", "Flax HOWTO, vmap on one device", [a.jax_python or a.python, flax], ["--mapping", "vmap"])):
        if wanted(key, name):
            shape = (lambda w: w.flax_args) if key == "flax-vmap" else (lambda w: w.peer_args)
            found.append(Entrant(key, name, command, ["--device", device] + tuning, shape=shape))
    return found


def sides(a):
    wanted = lambda key, name: not a.only or any(o == key or o.lower() in name.lower() for o in a.only)
    if a.gpu:
        return gpu_sides(a, wanted)
    found = []
    for key, name, build in (("ours", "EnsembleLab, Debian LibTorch 1.13", a.build),
                             ("ours-wheel", "EnsembleLab, wheel LibTorch (CPU)", a.cuda_build)):
        if not wanted(key, name):
            continue
        program = os.path.join(build, "app", "ensemble-lab-cli")
        if os.access(program, os.X_OK):
            found.append(Entrant(key, name, [program, "train"], ours=True, shape=lambda w: w.ours_args))
        else:
            print(f"left out: {name} ({program} not built)")
    peer = os.path.join(HERE, "peer.py")
    if wanted("torch-1.13", "PyTorch 1.13 (Debian, OpenBLAS)"):
        found.append(Entrant("torch-1.13", "PyTorch 1.13 (Debian, OpenBLAS)", ["/usr/bin/python3", peer],
                             THREADS + ["--channels-last"], env=TUNED))
    if wanted("torch-2", "PyTorch 2.x (wheel, MKL)"):
        torch_venv = a.torch_venv or venv("torch-venv.sh")
        if torch_venv:
            found.append(Entrant("torch-2", "PyTorch 2.x (wheel, MKL)",
                                 [os.path.join(torch_venv, "bin", "python"), peer],
                                 THREADS + (["--channels-last"] if a.no_compile else ["--compile"]), env=TUNED))
    if wanted("flax", "Flax HOWTO, pmap (one member per device)"):
        jax_venv = a.jax_venv or venv("bench-venv.sh")
        if jax_venv:
            found.append(Entrant("flax", "Flax HOWTO, pmap (one member per device)",
                                 [os.path.join(jax_venv, "bin", "python"), os.path.join(HERE, "flax_peer.py")],
                                 shape=lambda w: w.flax_args,
                                 env_of=lambda w: {"XLA_FLAGS": f"--xla_force_host_platform_device_count={w.members}"}))
    return found


def training_images(limit):
    with gzip.open(DATA + "train-images-idx3-ubyte.gz") as f:
        count = struct.unpack(">I", f.read(8)[4:])[0]
    return min(limit, count) if limit else count


ENSEMBLE = re.compile(r"ensemble (\d+(?:\.\d+)?)%")
FIRST = re.compile(r"test accuracy\D*?(\d+(?:\.\d+)?)%")
STEP = re.compile(r"^step (\d+)")
MID_EPOCH = re.compile(r"\(epoch (\d+(?:\.\d+)?)\)")
EPOCH_END = re.compile(r"^epoch (\d+)/\d+ done")


def our_evaluation(line, steps_per_epoch):
    """(accuracy, epoch or None, step or None) of one of our CLI's evaluation lines, None for
    other lines: 'epoch 1/5 done in 1m30s: test accuracy members 84.60% ..., ensemble 86.09%
    (nll 0.39)', 'step 117 (epoch 0.25) after 1m2s of training: test accuracy members ...',
    'test accuracy 85.00%' (one model)."""
    if "test accuracy" not in line:
        return None
    found = ENSEMBLE.search(line) or FIRST.search(line)
    if not found:
        return None  # the end-of-run summary ('ensemble test accuracy 0.8609  nll ...') has no %
    line = line.strip()
    step, epoch_end, epoch = STEP.search(line), EPOCH_END.search(line), MID_EPOCH.search(line)
    if step:
        step = int(step.group(1))
    elif epoch_end:
        step = int(epoch_end.group(1)) * steps_per_epoch
    elif epoch:
        step = round(float(epoch.group(1)) * steps_per_epoch)
    return float(found.group(1)) / 100, step / steps_per_epoch if step else None, step


def signal_group(process, signum):
    try:
        os.killpg(process.pid, signum)  # the child leads its own session: its helpers get it too
    except ProcessLookupError:
        pass


def parse(entrant, line, seconds, steps_per_epoch):
    """(evaluation or None, the peer's done record or None) of one line of a side's output."""
    if entrant.ours:
        parsed = our_evaluation(line, steps_per_epoch)
        if not parsed:
            return None, None
        accuracy, epoch, step = parsed
        return {"seconds": seconds, "accuracy": accuracy, "epoch": epoch, "step": step}, None
    if not line.startswith("{"):
        return None, None
    record = json.loads(line)
    if record.get("event") == "evaluation":
        return {"seconds": seconds, "accuracy": record["accuracy"], "epoch": record["epoch"], "step": record["step"],
                "own_seconds": record["seconds"]}, None
    return None, record if record.get("event") == "done" else None


def race(entrant, command, env, target, steps_per_epoch, timeout, grace=60):
    """Runs one side until an evaluation of its reaches `target` (or it ends, or `timeout`
    seconds pass); its evaluations, timed from just before the child starts."""
    evaluations, tail, done, reached = [], [], None, None
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                               env={**os.environ, **env}, start_new_session=True)
    lines = queue.Queue()

    def read():
        for line in process.stdout:
            lines.put((time.monotonic() - start, line))
        lines.put((time.monotonic() - start, None))

    threading.Thread(target=read, daemon=True).start()
    # At each deadline before the child is gone, the next signal; time's up: SIGINT, then SIGKILL.
    deadline, signals, status, rusage, left_open = start + timeout, [signal.SIGINT, signal.SIGKILL], None, None, False
    try:
        while True:
            try:
                seconds, line = lines.get(timeout=0.5)
            except queue.Empty:
                seconds, line = None, ""
            if line is None:
                break  # end of its output
            if line:
                tail = (tail + [line.rstrip()])[-30:]
                evaluation, record = parse(entrant, line, seconds, steps_per_epoch)
                done = record or done
                if evaluation:
                    evaluations.append(evaluation)
                    if reached is None and evaluation["accuracy"] >= target:
                        reached = len(evaluations) - 1
                        deadline = time.monotonic() + grace
                        if entrant.ours:  # a peer stops itself; ours is told to, at its next step
                            signal_group(process, signals.pop(0))
            if status is None:
                pid, code, usage = os.wait4(process.pid, os.WNOHANG)
                if pid:
                    status, rusage, deadline = code, usage, time.monotonic() + 5  # then what is left in the pipe
            if time.monotonic() > deadline:
                if status is not None:
                    left_open = True  # gone, but a helper of its holds the pipe
                    break
                if reached is None and signals == [signal.SIGINT, signal.SIGKILL]:
                    tail.append(f"(time_to_accuracy: stopped after {timeout:.0f} s)")
                if signals:
                    signal_group(process, signals.pop(0))
                deadline = time.monotonic() + grace
    except BaseException:
        if status is None:
            signal_group(process, signal.SIGKILL)
        raise
    finally:
        if status is None:
            patience = time.monotonic() + grace
            while status is None:
                pid, code, usage = os.wait4(process.pid, os.WNOHANG)
                if pid:
                    status, rusage = code, usage
                elif time.monotonic() > patience:
                    signal_group(process, signal.SIGKILL)
                    _, status, rusage = os.wait4(process.pid, 0)
                else:
                    time.sleep(0.1)
        process.returncode = os.waitstatus_to_exitcode(status)
        if left_open:
            signal_group(process, signal.SIGKILL)  # the helpers it left behind
    result = {"side": entrant.name, "key": entrant.key, "command": command, "returncode": process.returncode,
              "reached": reached is not None, "evaluations": len(evaluations) if reached is None else reached + 1,
              "log": evaluations, "peak_rss_mb": rusage.ru_maxrss / 1024,
              "own_peak_rss_mb": (done or {}).get("peak_rss_mb")}
    if reached is not None:
        hit = evaluations[reached]
        result.update(seconds=hit["seconds"], own_seconds=hit.get("own_seconds"), epoch=hit["epoch"], step=hit["step"],
                      accuracy=hit["accuracy"])
    elif process.returncode != 0 or not evaluations:
        result["error"] = "\n".join(tail)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--cuda-build", default=os.path.join(ROOT, "build-cuda"),
                   help="a second build of ours, on the wheel's LibTorch (left out when not built)")
    p.add_argument("--torch-venv", help="scripts/torch-venv.sh's folder (default: ask the script)")
    p.add_argument("--jax-venv", help="scripts/bench-venv.sh's folder (default: ask the script)")
    p.add_argument("--target", type=float, default=0.85)
    p.add_argument("--eval-fraction", type=float, default=0.25)
    p.add_argument("--max-epochs", type=int, default=5)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--train-limit", type=int, default=0, help="the first N training images (default: all)")
    p.add_argument("--test-limit", type=int, default=10000)
    p.add_argument("--only", nargs="+", default=[],
                   help="sides by key (ours, ours-wheel, torch-1.13, torch-2, flax) or by part of their name")
    p.add_argument("--no-compile", action="store_true", help="PyTorch 2.x with channels-last, not torch.compile")
    p.add_argument("--warm-compile-cache", action="store_true",
                   help="let torch.compile reuse its on-disk cache (default: an empty one each run, so every "
                        "run compiles, as the Flax program's XLA does)")
    p.add_argument("--timeout", type=float, default=7200, help="seconds a side may run before it is stopped")
    p.add_argument("--json", help="also write every run here")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: 6000 training and 2000 test images, target 0.7 (not for the record)")
    gpu = p.add_argument_group("--gpu", "one GPU: ours against vmap + torch.compile, the PyTorch loop, Flax vmap")
    gpu.add_argument("--gpu", action="store_true", help="race on cuda:0")
    gpu.add_argument("--on-cpu", action="store_true", help="--gpu's race on the CPU: a check of the script")
    gpu.add_argument("--members", type=int, help="ensemble members (default 4; --gpu: 8)")
    gpu.add_argument("--python", default="python3", help="--gpu: the peers' python (default python3)")
    gpu.add_argument("--jax-python", help="--gpu: the Flax peer's python (default --python)")
    a = p.parse_args()
    if a.quick:
        a.train_limit, a.test_limit, a.target = 6000, 2000, 0.7
    a.gpu = a.gpu or a.on_cpu
    members = a.members or (8 if a.gpu else 4)
    if members < 1:
        p.error("--members must be at least 1")
    if a.gpu:
        devices = f"{'cpu' if a.on_cpu else 'cuda:0'}*{members}"
        workload = Workload(f"CNN ensemble of {members}, batch 128, {'the CPU (a check)' if a.on_cpu else 'one GPU'}",
                            members, 128, "ensemble", devices, a.test_limit)
    else:
        workload = Workload(f"CNN ensemble of {members}, batch 128", members, 128, "ensemble", f"cpu*{members}",
                            a.test_limit)
    images = training_images(a.train_limit)
    steps_per_epoch = images // workload.batch
    every = max(1, round(a.eval_fraction * steps_per_epoch))
    limit = ["--train-limit", str(a.train_limit)] if a.train_limit else []
    peer_extra = ["--until-accuracy", str(a.target), "--eval-fraction", str(a.eval_fraction),
                  "--max-epochs", str(a.max_epochs)] + limit
    entrants = sides(a)
    print(f"time to {a.target} ensemble test accuracy: {workload.name}, {images} training images "
          f"({steps_per_epoch} steps an epoch), {a.test_limit} test images, an evaluation every {every} steps "
          f"and at epoch ends, at most {a.max_epochs} epochs; {CORES} cores; {a.repeats} repeat(s), alternating")
    runs = []

    def save(rows=None):  # after every run, so that a run cut short keeps what it measured
        if a.json:
            with open(a.json, "w") as out:
                json.dump({"workload": workload.name, "ours_args": workload.ours_args, "target": a.target,
                           "eval_fraction": a.eval_fraction, "eval_every_steps": every,
                           "steps_per_epoch": steps_per_epoch, "training_images": images,
                           "test_images": a.test_limit, "max_epochs": a.max_epochs, "repeats": a.repeats,
                           "cores": CORES, "rows": rows, "runs": runs}, out, indent=1)

    for repeat in range(a.repeats):
        for entrant in entrants:
            scratch = tempfile.mkdtemp(prefix="time-to-accuracy-")
            try:
                extra = (["--lr", "0.1", "--momentum", "0.9", "--epochs", str(a.max_epochs), "--eval-every", str(every),
                          "--out", os.path.join(scratch, "run")] + limit) if entrant.ours else list(peer_extra)
                extra += ["--seed", str(repeat)]  # repeat r: seed r on every side
                if entrant.ours and a.gpu:  # the GPU peers evaluate 1000 test images a call: so does ours
                    extra += ["--eval-batch-size", "1000"]
                command = entrant.command_for(workload, extra)
                env = entrant.env_of(workload)
                if not a.warm_compile_cache:  # torch.compile's code is generated in the run, as on a first run
                    env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(scratch, "inductor")
                result = race(entrant, command, env, a.target, steps_per_epoch, a.timeout)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            result["repeat"] = repeat
            runs.append(result)
            if result["reached"]:
                own = result.get("own_seconds")
                own = "" if own is None else f" (its own clock: {own:.1f} s)"
                epoch = "?" if result["epoch"] is None else f"{result['epoch']:.2f}"
                print(f"  {entrant.name}: {result['accuracy']:.4f} at epoch {epoch} "
                      f"(evaluation {result['evaluations']}) after {result['seconds']:.1f} s{own}; "
                      f"peak RSS {result['peak_rss_mb']:.0f} MB")
            else:
                best = max((e["accuracy"] for e in result["log"]), default=None)
                print(f"  {entrant.name}: target not reached (exit {result['returncode']}, {result['evaluations']} "
                      f"evaluations, best {best})")
                if result.get("error"):
                    print("    " + result["error"].replace("\n", "\n    "), file=sys.stderr)
            sys.stdout.flush()
            save()

    rows = []
    for entrant in entrants:
        mine = [r for r in runs if r["key"] == entrant.key]
        hits = [r for r in mine if r["reached"]]
        own = [r["own_seconds"] for r in hits if r.get("own_seconds") is not None]
        epochs = [r["epoch"] for r in hits if r["epoch"] is not None]
        settings = " ".join(t.lstrip("-") for t in entrant.tuning if t not in THREADS)
        rows.append({"side": entrant.name, "key": entrant.key, "ours": entrant.ours,
                     "settings": settings or ("-" if entrant.ours else "as written"),
                     "reached": f"{len(hits)}/{len(mine)}",
                     "seconds": statistics.median(r["seconds"] for r in hits) if hits else None,
                     "own_seconds": statistics.median(own) if own else None,
                     "epoch": statistics.median(epochs) if epochs else None,
                     "evaluations": statistics.median(r["evaluations"] for r in hits) if hits else None,
                     "all": [round(r["seconds"], 1) if r["reached"] else None for r in mine],
                     "peak_rss_mb": max(r["peak_rss_mb"] for r in mine) if mine else None})
    peers = [r for r in rows if not r["ours"] and r["seconds"] is not None]
    best_peer = min(peers, key=lambda r: r["seconds"]) if peers else None
    for r in rows:
        r["best_peer_over_this"] = best_peer["seconds"] / r["seconds"] if best_peer and r["seconds"] else None

    fmt = lambda x, spec: "-" if x is None else format(x, spec)
    print(f"\nseconds from process start to {a.target} ensemble test accuracy ({a.repeats} repeat(s), medians, "
          f"driver's clock; best peer / this > 1: faster than the best peer)")
    print("| side | settings | seconds to target | all runs | reached at epoch | evaluations | best peer / this "
          "| peer's own clock s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['side']} | {r['settings']} | {fmt(r['seconds'], '.1f')} | "
              f"{' / '.join('-' if s is None else str(s) for s in r['all'])} | {fmt(r['epoch'], '.2f')} | "
              f"{fmt(r['evaluations'], 'g')} | {fmt(r['best_peer_over_this'], '.2f')} | "
              f"{fmt(r['own_seconds'], '.1f')} | {fmt(r['peak_rss_mb'], '.0f')} |")
    if best_peer:
        for r in (r for r in rows if r["ours"] and r["seconds"] is not None):
            print(f"{r['side']}: best peer ({best_peer['side']}, {best_peer['seconds']:.1f} s) / ours "
                  f"({r['seconds']:.1f} s) = {r['best_peer_over_this']:.2f}")
    save(rows)


if __name__ == "__main__":
    main()
