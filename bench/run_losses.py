#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ensemble's training loss step by step, from a run's metrics.csv, and the comparison of
two runs by it: what scripts/gpu-check.sh (2c, 2d), bench/gpu_layers_ab.sh's training check and
bench/loss_drift.py read.

  python3 bench/run_losses.py RUN_A RUN_B STEP TOLERANCE [batch|mean]

batch: the loss of step STEP's batch; mean: the mean of the batch losses of steps 1..STEP (what
a progress bar shows). Two summation orders make SGD's trajectories drift apart, and one batch's
loss at step 100 then differs by 5e-3 to 5e-2 (docs/GPU.md, "fp32 on two devices"); the mean
shows the arithmetic. Exits 1 when the two differ by more than TOLERANCE, 2 on bad arguments,
and with the reason when a run does not log the ensemble at every step up to STEP.
"""
import csv
import os
import sys


def ensemble_step_losses(run_dir, last_step):
    """{step: train loss} of the ensemble's per-step rows 1..last_step of `run_dir`'s metrics.csv
    (the epoch rows, which carry a test loss, left out). Exits naming the run where a step is missing."""
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        rows = {int(r["step"]): float(r["train_loss"]) for r in csv.DictReader(f)
                if r["member"] == "ensemble" and r["train_loss"] and not r["test_loss"] and int(r["step"]) <= last_step}
    if sorted(rows) != list(range(1, last_step + 1)):
        sys.exit(f"{run_dir} does not log the ensemble every step up to {last_step}")
    return rows


def mean_train_loss(run_dir, last_step):
    """The mean of the ensemble's batch losses over steps 1..last_step."""
    return sum(ensemble_step_losses(run_dir, last_step).values()) / last_step


def main(argv):
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] not in ("batch", "mean")):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    run_a, run_b, step, tolerance = argv[0], argv[1], int(argv[2]), float(argv[3])
    kind = argv[4] if len(argv) == 5 else "batch"
    a, b = ensemble_step_losses(run_a, step), ensemble_step_losses(run_b, step)
    value = (lambda r: r[step]) if kind == "batch" else (lambda r: sum(r.values()) / step)
    what = f"batch train loss at step {step}" if kind == "batch" else f"mean train loss of steps 1-{step}"
    print("%s: %.9f vs %.9f, difference %.2e (allowed %g)" % (what, value(a), value(b), abs(value(a) - value(b)), tolerance))
    if kind == "mean":
        print("(for the record, the batch loss at step %d: %.9f vs %.9f, difference %.2e)"
              % (step, a[step], b[step], abs(a[step] - b[step])))
    return int(abs(value(a) - value(b)) > tolerance)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
