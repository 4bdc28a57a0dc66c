#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks python/ensemble_lab against a real run: PyTorch continues it as EnsembleLab did.

    python_package_check.py RUN_DIR [RUN_DIR...] [--dataset FOLDER] [--tolerance T] [--from FILE[,FILE]]

Each RUN_DIR (its images read from --dataset, else from the dataset its config.json names)
trained with train_limit == batch_size (so every step sees the whole training set,
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
A ReLU input within float rounding of zero (ROUNDING of its call's largest) may fall on either
side in two correct implementations, and then that pixel's gradient passes in one and not in
the other: a member's step that misses the tolerance is taken again with each such input (the
8 nearest zero, then pairs of the 4 nearest) on its other side, and passes if one of those
matches; the output names them.
For each run it prints what it measured as a JSON line naming the run (stdout), or the run and
its first difference (stderr); it exits 1 if any run differed, 3 if this Python has no torch.
Several runs in one call share one start of Python and torch (3-4 s each on CI's machines).
"""
import contextlib
import copy
import itertools
import json
import os
import shutil
import sys
import tempfile
import traceback

NO_TORCH = 3  # the exit status when this Python cannot import torch: nothing was checked

try:
    import torch
    import torch.nn.functional as F
except ImportError as error:
    print(f"python_package_check: {sys.executable} cannot import torch ({error})", file=sys.stderr)
    sys.exit(NO_TORCH)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import ensemble_lab  # noqa: E402


# How close to zero, relative to the largest input of its call, a ReLU input may round to either
# side: our convolutions (Winograd on the CPU) and PyTorch's sum in other orders, about 1e-7 of
# their scale apart; a flipped input seen on 2026-12-04 was 1e-9 from zero.
ROUNDING = 1e-6


class Difference(Exception):
    """What the run and PyTorch disagree on (the check of that run stops there)."""


def fail(message):
    raise Difference(message)


class ReluEdges:
    """Wraps F.relu (which the models and nn.ReLU call): records the inputs within ROUNDING of
    zero, call by call, or puts chosen ones on their other side. The sign flips in the forward
    only (the added term is detached), so the gradient passes or stops there as it would have."""

    def __init__(self):
        self.found = []  # (|x|, call, flat index) in the order seen; trials() takes the nearest zero

    @contextlib.contextmanager
    def _wrapped(self, treat):
        relu, calls = F.relu, itertools.count()

        def wrapped(x, inplace=False):
            return relu(treat(next(calls), x), inplace=inplace)

        F.relu = wrapped
        try:
            yield
        finally:
            F.relu = relu

    def recording(self):
        def record(call, x):
            size = x.detach().abs().reshape(-1)
            near = ((size <= ROUNDING * size.max()) & (size > 0)).nonzero().flatten()
            self.found += [(size[i].item(), call, i.item()) for i in near]
            return x

        self.found = []
        return self._wrapped(record)

    def trials(self):
        """The flips to try: each of the 8 inputs nearest zero, then pairs of the 4 nearest."""
        nearest = [(call, index) for _, call, index in sorted(self.found)[:8]]
        return [[one] for one in nearest] + [list(pair) for pair in itertools.combinations(nearest[:4], 2)]

    def flipping(self, flips):
        def flip(call, x):
            delta = torch.zeros(x.numel(), dtype=x.dtype, device=x.device)
            for at, index in flips:
                if at == call:
                    delta[index] = -2 * x.detach().reshape(-1)[index]
            return x + delta.view(x.shape) if delta.any() else x

        return self._wrapped(flip)


def one_step(model, optimizer, images, labels):
    model.train()
    optimizer.zero_grad()
    F.cross_entropy(model(images), labels).backward()
    optimizer.step()


def differences(index, model, optimizer, after, tolerance, momentum_tolerance):
    """The first weight or momentum past its tolerance against the run's member `index` (a
    message, or None), and the largest differences."""
    problem, worst_weight, worst_momentum = None, 0.0, 0.0
    expected = after.members[index].state_dict()
    for name, value in model.state_dict().items():
        difference = (value.double() - expected[name].double()).abs().max().item()
        worst_weight = max(worst_weight, difference)
        if difference > tolerance and problem is None:
            problem = f"member {index}'s {name} differs from step {after.step}'s by {difference:.3g}"
    ours = optimizer.state_dict()["state"]
    theirs = after.optimizers[index].state_dict()["state"]
    for key in theirs:
        difference = (ours[key]["momentum_buffer"] - theirs[key]["momentum_buffer"]).abs().max().item()
        worst_momentum = max(worst_momentum, difference)
        if difference > momentum_tolerance and problem is None:
            problem = f"member {index}'s momentum buffer {key} differs by {difference:.3g} (> {momentum_tolerance:.3g})"
    return problem, worst_weight, worst_momentum


def step_like_the_run(index, model, optimizer, images, labels, after, tolerance, momentum_tolerance):
    """One step in PyTorch from the older state; if it misses the run's, again with ReLU inputs
    near zero on their other side. Fails with the plain step's difference if none matches;
    returns the largest differences and the flips that matched ([] for none needed)."""
    start = copy.deepcopy(model.state_dict()), copy.deepcopy(optimizer.state_dict())
    edges = ReluEdges()
    with edges.recording():
        one_step(model, optimizer, images, labels)
    problem, worst_weight, worst_momentum = differences(index, model, optimizer, after, tolerance, momentum_tolerance)
    if problem is None:
        return worst_weight, worst_momentum, []
    for flips in edges.trials():
        model.load_state_dict(start[0])
        optimizer.load_state_dict(start[1])
        with edges.flipping(flips):
            one_step(model, optimizer, images, labels)
        flipped = differences(index, model, optimizer, after, tolerance, momentum_tolerance)
        if flipped[0] is None:
            return flipped[1], flipped[2], flips
    tried = f"; also with each of the {min(len(edges.found), 8)} ReLU inputs nearest zero, and pairs, on the other side"
    fail(problem + (tried if edges.found else ""))


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


def check(run_dir, folder, tolerance, init_files):
    """The whole check of one run: what it measured, or Difference."""
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
    folder = folder or config["dataset"]  # as config.json records it: a folder, or "fashion-mnist"
    images, labels = ensemble_lab.load_split(folder, "train", config["train_limit"])

    momentum_tolerance = tolerance / config["lr"]
    worst_weight = worst_momentum = 0.0
    relu_flips = {}
    for index, (model, optimizer) in enumerate(zip(before.members, before.optimizers)):
        weight, momentum, flips = step_like_the_run(index, model, optimizer, images, labels, after, tolerance,
                                                    momentum_tolerance)
        worst_weight, worst_momentum = max(worst_weight, weight), max(worst_momentum, momentum)
        if flips:
            relu_flips[index] = [{"relu_call": call, "index": at} for call, at in flips]

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
    return {"torch": torch.__version__, "model": config["model"], "members": len(before.members),
            "step": [before.step, after.step], "max_weight_difference": worst_weight,
            "max_momentum_difference": worst_momentum, "relu_inputs_on_their_other_side": relu_flips,
            "ensemble_accuracy": accuracy, "run_ensemble_accuracy": summary["ensemble"]["test_accuracy"]}


def option(arguments, name, default):
    """The value after `name` (removed from arguments with it), or default."""
    if name not in arguments:
        return default
    at = arguments.index(name)
    if at + 1 == len(arguments):
        sys.exit(f"python_package_check: {name} needs a value")
    value = arguments[at + 1]
    del arguments[at:at + 2]
    return value


def main():
    arguments = sys.argv[1:]
    tolerance = float(option(arguments, "--tolerance", "1e-6"))
    init_files = option(arguments, "--from", None)
    folder = option(arguments, "--dataset", None)
    if not arguments:
        sys.exit("usage:" + __doc__.split("\n\n")[1])
    if init_files is not None and len(arguments) > 1:
        sys.exit("python_package_check: --from names the files of one run; give one RUN_DIR with it")
    differed = 0
    for run_dir in arguments:
        try:
            measured = check(run_dir, folder, tolerance, init_files.split(",") if init_files else None)
            print(json.dumps({"run": run_dir, **measured}, ensure_ascii=False), flush=True)
        except Difference as difference:
            print(f"python_package_check: {run_dir}: {difference}", file=sys.stderr, flush=True)
            differed += 1
        except Exception:  # a run the package cannot read: the others are still checked
            print(f"python_package_check: {run_dir}: {traceback.format_exc()}", file=sys.stderr, flush=True)
            differed += 1
    sys.exit(1 if differed else 0)


if __name__ == "__main__":
    main()
