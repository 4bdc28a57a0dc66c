#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The GUI costs nothing (issue 18): the same run from the window and from the CLI, alternating,
medians. The window side is ensemble-lab-gui-bench (bench/GuiBench.cpp): the real MainWindow
shown under Xvfb, the form's widgets set, Start pressed, the plots following the run live; it
times Start to the run's end. The CLI side is ensemble-lab-cli train with the same settings,
timed from its start to its exit. Both report the engine's own training clock (summary.json's
train_seconds and images_per_second, evaluation excluded), so the table shows what the window
costs training and what it costs end to end. Usage:
    python3 bench/gui_vs_cli.py [--build build] [--repeats 3] [--train-limit 20000] [--epochs 1]
"""
import argparse, json, os, shutil, statistics, subprocess, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli_run(a, scratch):
    out = os.path.join(scratch, "run")
    command = [os.path.join(a.build, "app", "ensemble-lab-cli"), "train", "--dataset", "fashion-mnist",
               "--mode", "ensemble", "--devices", f"cpu*{a.members}", "--batch-size", str(a.batch_size),
               "--epochs", str(a.epochs), "--train-limit", str(a.train_limit), "--eval-every", str(a.eval_every),
               "--out", out]
    start = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return {"wall_seconds": wall, "train_seconds": summary["train_seconds"],
            "images_per_second": summary["images_per_second"]}


def gui_run(a, scratch, display):
    command = [os.path.join(a.build, "bench", "ensemble-lab-gui-bench"), "--runs", os.path.join(scratch, "runs"),
               "--cpu-replicas", str(a.members), "--batch-size", str(a.batch_size), "--epochs", str(a.epochs),
               "--train-limit", str(a.train_limit), "--eval-every", str(a.eval_every)]
    env = {**os.environ, "DISPLAY": display, "XDG_CONFIG_HOME": os.path.join(scratch, "config")}
    env.pop("QT_QPA_PLATFORM", None)  # a real X server: the window is drawn, as a person sees it
    start = time.monotonic()
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    process = time.monotonic() - start
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_seconds"] = process
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--train-limit", type=int, default=20000)
    p.add_argument("--members", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--eval-every", type=int, default=0)
    p.add_argument("--display", default=":93", help="the Xvfb display this starts (and stops)")
    p.add_argument("--json", help="also write every run here")
    a = p.parse_args()

    xvfb = subprocess.Popen(["Xvfb", a.display, "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    runs = {"cli": [], "gui": []}
    try:
        for repeat in range(a.repeats):
            for side in ("cli", "gui") if repeat % 2 == 0 else ("gui", "cli"):
                scratch = tempfile.mkdtemp(prefix="gui-vs-cli-")
                try:
                    result = cli_run(a, scratch) if side == "cli" else gui_run(a, scratch, a.display)
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
                runs[side].append(result)
                print(f"  {side}: {result['wall_seconds']:.1f} s wall, {result['images_per_second']:.0f} img/s "
                      f"over {result['train_seconds']:.1f} s of training", flush=True)
    finally:
        xvfb.terminate()
        xvfb.wait()

    median = lambda side, key: statistics.median(r[key] for r in runs[side])
    print(f"\nensemble of {a.members}, {a.train_limit or 60000} training images x {a.epochs} epoch(s), "
          f"{a.repeats} runs each, alternating, medians")
    print("| | CLI | window (Xvfb) | window / CLI |")
    print("|---|---|---|---|")
    for key, label in (("wall_seconds", "wall s (CLI: process; window: Start to end)"),
                       ("train_seconds", "training s (engine clock)"), ("images_per_second", "member-img/s")):
        cli, gui = median("cli", key), median("gui", key)
        print(f"| {label} | {cli:.2f} | {gui:.2f} | {gui / cli:.3f} |")
    if a.json:
        with open(a.json, "w") as out:
            json.dump({"settings": vars(a), "runs": runs}, out, indent=1)


if __name__ == "__main__":
    main()
