#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks python/ensemble_lab against a real run: PyTorch continues it as EnsembleLab did.

    python_package_check.py RUN_DIR [DATASET_FOLDER] [--tolerance T] [--from FILE[,FILE]]

RUN_DIR trained with train_limit == batch_size (so every step sees the whole training set,
in an order that does not change its mean gradient) and kept two checkpoints. From the
older one, every member and its torch.optim.SGD (load_run) take one step on that set in
PyTorch; their weights and buffers must equal the newer checkpoint's to 1e-6, and their
momentum to 1e-6 / lr (a momentum difference d moves the next step's weights by lr * d:
the same contract, one step on).
With --from, the run was started by `train --init-from FILE[,FILE]`: the models loaded from
those state_dicts, with a fresh torch.optim.SGD each, take the step instead, and must reach
the run's first checkpoint (step 1).
Then the Ensemble module of the newer checkpoint's members must score the run's test images
as summary.json says (accuracy to one image in 500).
Prints what it measured; exits 1 on the first difference.
"""
import json
import os
import shutil
import sys
import tempfile

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import ensemble_lab  # noqa: E402


def fail(message):
    print("python_package_check: " + message, file=sys.stderr)
    sys.exit(1)


def started_from(files, after):
    """The run as --init-from started it: each model from its file (or all from one), a fresh SGD."""
    config = after.config
    start = ensemble_lab.Run(config=config, checkpoint=",".join(files), step=0)
    for index in range(len(after.members)):
        state = torch.load(files[0 if len(files) == 1 else index], map_location="cpu")
        model = ensemble_lab.model_for_state(config["model"], state)
        model.load_state_dict(state)
        start.members.append(model)
        start.optimizers.append(ensemble_lab.sgd_for(model, config))
    return start


def main():
    arguments = sys.argv[1:]
    tolerance = 1e-6
    if "--tolerance" in arguments:
        at = arguments.index("--tolerance")
        tolerance = float(arguments[at + 1])
        del arguments[at:at + 2]
    init_files = None
    if "--from" in arguments:
        at = arguments.index("--from")
        init_files = arguments[at + 1].split(",")
        del arguments[at:at + 2]
    run_dir = arguments[0]
    folder = arguments[1] if len(arguments) > 1 else ensemble_lab.data.FASHION_MNIST
    torch.manual_seed(0)
    steps = sorted(int(name[5:]) for name in os.listdir(os.path.join(run_dir, "checkpoints")) if name.startswith("step-"))
    if init_files is not None:
        after = ensemble_lab.load_run(run_dir, step=1)
        before = started_from(init_files, after)
        steps = [0, 1]
    elif len(steps) < 2:
        fail(f"{run_dir} keeps {len(steps)} checkpoint(s); the check needs two")
    else:
        before = ensemble_lab.load_run(run_dir, step=steps[-2])
        after = ensemble_lab.load_run(run_dir)
    config = after.config
    if config["train_limit"] != config["batch_size"] or steps[-1] != steps[-2] + 1:
        fail("the run must train on exactly one batch per step (train_limit == batch_size), checkpointed every step")
    images, labels = ensemble_lab.load_split(folder, "train", config["train_limit"])

    momentum_tolerance = tolerance / config["lr"]
    worst_weight = worst_momentum = 0.0
    for index, (model, optimizer) in enumerate(zip(before.members, before.optimizers)):
        model.train()
        optimizer.zero_grad()
        F.cross_entropy(model(images), labels).backward()
        optimizer.step()
        expected = after.members[index].state_dict()
        for name, value in model.state_dict().items():
            difference = (value.double() - expected[name].double()).abs().max().item()
            worst_weight = max(worst_weight, difference)
            if difference > tolerance:
                fail(f"member {index}'s {name} differs from step {after.step}'s by {difference:.3g}")
        ours = optimizer.state_dict()["state"]
        theirs = after.optimizers[index].state_dict()["state"]
        for key in theirs:
            difference = (ours[key]["momentum_buffer"] - theirs[key]["momentum_buffer"]).abs().max().item()
            worst_momentum = max(worst_momentum, difference)
            if difference > momentum_tolerance:
                fail(f"member {index}'s momentum buffer {key} differs by {difference:.3g} (> {momentum_tolerance:.3g})")

    if init_files is None:
        # `latest` naming a removed checkpoint (as the app says to do with a damaged one): the newest left
        with tempfile.TemporaryDirectory() as scratch:
            copy = os.path.join(scratch, "run")
            shutil.copytree(run_dir, copy)
            shutil.rmtree(os.path.join(copy, "checkpoints", f"step-{steps[-1]:09d}"))
            if ensemble_lab.load_run(copy).step != steps[-2]:
                fail(f"with step {steps[-1]}'s checkpoint removed, load_run did not open step {steps[-2]}'s")

    with open(os.path.join(run_dir, "summary.json")) as f:
        summary = json.load(f)
    test_images, test_labels = ensemble_lab.load_split(folder, "test", config["test_limit"])
    ensemble = ensemble_lab.Ensemble(after.members).eval()
    with torch.no_grad():
        probabilities = torch.cat([ensemble(batch) for batch in test_images.split(500)])
    accuracy = (probabilities.argmax(1) == test_labels).double().mean().item()
    if abs(accuracy - summary["ensemble"]["test_accuracy"]) > 1 / 500:
        fail(f"the Ensemble module scores {accuracy}, the run {summary['ensemble']['test_accuracy']}")
    print(json.dumps({"torch": torch.__version__, "model": config["model"], "members": len(before.members),
                      "step": [before.step, after.step], "max_weight_difference": worst_weight,
                      "max_momentum_difference": worst_momentum, "ensemble_accuracy": accuracy,
                      "run_ensemble_accuracy": summary["ensemble"]["test_accuracy"]}))


if __name__ == "__main__":
    main()
