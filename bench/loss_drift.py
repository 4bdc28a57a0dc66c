#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""How far apart two runs' mean train loss over steps 1-100 drifts: the scale a tolerance over
100 steps must sit on (scripts/gpu-check.sh 2d, bench/gpu_layers_ab.sh's training check).

Trains the same ensemble (fp32, seed 1, 12,800 images: one epoch of 100 steps at batch 128,
separate members) with the CLI several times and prints each run's mean train loss over steps
1-100 and its difference from the first run's:
  - the baseline (learning rate 0.1, momentum 0.9: the defaults);
  - small real changes a tolerance should catch: the learning rate and the momentum 1% off;
  - forms of the same arithmetic that only sum in another order (--same NAME=VAR=VALUE, an
    environment setting such as ENSEMBLELAB_GPU_FIRST_LAYER=unfused on a GPU): what a tolerance
    must let through.
A bound between the two groups' differences separates a wrong result from float drift.

  python3 bench/loss_drift.py [--cli build/app/ensemble-lab-cli] [--devices 'cpu*2']
                              [--same unfused=ENSEMBLELAB_GPU_FIRST_LAYER=unfused ...]
"""
import argparse
import os
import subprocess
import sys
import tempfile

from run_losses import mean_train_loss

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = 100


def train(cli, devices, out, extra_args=(), extra_env=None):
    args = [cli, "train", "--dataset", "fashion-mnist", "--mode", "ensemble", "--epochs", "1",
            "--train-limit", str(STEPS * 128), "--batch-size", "128", "--seed", "1", "--precision", "fp32",
            "--member-form", "separate", "--log-every", "1", "--devices", devices, "--out", out, *extra_args]
    env = dict(os.environ, **(extra_env or {}))
    done = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"loss_drift: {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return mean_train_loss(out, STEPS)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default=os.path.join(ROOT, "build", "app", "ensemble-lab-cli"))
    p.add_argument("--devices", default="cpu*2")
    p.add_argument("--same", action="append", default=[], metavar="NAME=VAR=VALUE",
                   help="a run with environment variable VAR set to VALUE, the same arithmetic summed otherwise")
    a = p.parse_args()
    changes = [("learning rate 0.101 (+1%)", ["--lr", "0.101"]), ("learning rate 0.099 (-1%)", ["--lr", "0.099"]),
               ("momentum 0.909 (+1%)", ["--momentum", "0.909"]), ("momentum 0.891 (-1%)", ["--momentum", "0.891"])]
    with tempfile.TemporaryDirectory() as work:
        base = train(a.cli, a.devices, os.path.join(work, "base"))
        print(f"devices {a.devices}, fp32, {STEPS} steps of batch 128, seed 1")
        print(f"| run | mean train loss, steps 1-{STEPS} | difference from the baseline |")
        print("|---|---|---|")
        print(f"| baseline (learning rate 0.1, momentum 0.9) | {base:.7f} | |")
        for i, (name, args) in enumerate(changes):
            value = train(a.cli, a.devices, os.path.join(work, f"change{i}"), args)
            print(f"| a real change: {name} | {value:.7f} | {abs(value - base):.2e} |", flush=True)
        for i, same in enumerate(a.same):
            name, _, setting = same.partition("=")
            variable, _, value_text = setting.partition("=")
            if not variable or not value_text:
                sys.exit(f"loss_drift: --same takes NAME=VAR=VALUE, not '{same}'")
            value = train(a.cli, a.devices, os.path.join(work, f"same{i}"), extra_env={variable: value_text})
            print(f"| the same arithmetic: {name} ({variable}={value_text}) | {value:.7f} | {abs(value - base):.2e} |",
                  flush=True)


if __name__ == "__main__":
    main()
