# SPDX-License-Identifier: GPL-3.0-or-later
"""A run folder read into PyTorch: config.json, and a checkpoint's members and optimizers.

A checkpoint (RUN/checkpoints/step-<N>/) holds per model member-<i>.pt (its state_dict) and
member-<i>-optimizer.pt (its SGD momentum buffers, keyed by parameter name). load_run puts
the buffers into torch.optim.SGD's own layout (pytorch_optimizer_state), so PyTorch takes
the next step exactly as EnsembleLab would: grad += weight_decay * p; buf = momentum * buf + grad;
p -= lr * buf.
"""
import json
import math
import os
from dataclasses import dataclass, field
from typing import List

import torch
import torch.nn as nn

from ensemble_lab.models import make_model

# Each model's first convolution (input channels) and last linear layer (classes, and the
# flattened features before it where they depend on the image size).
_SHAPE_KEYS = {"cnn": ("conv1.weight", "dense2.weight", "dense1"), "lenet": ("conv1.weight", "fc3.weight", "fc1"),
               "resnet18": ("body.0.weight", "fc.weight", None)}


@dataclass
class Run:
    """What load_run returns."""
    config: dict                     # config.json
    checkpoint: str                  # the checkpoint folder read
    step: int                        # its global step
    members: List[nn.Module] = field(default_factory=list)  # in train() mode, as training leaves them
    optimizers: List[torch.optim.SGD] = field(default_factory=list)


def _load(path, map_location):
    # Plain dicts of tensors: torch.load at its defaults reads them (weights_only since 2.6).
    return torch.load(path, map_location=map_location)


def model_for_state(name, state):
    """The model `name` shaped for the weights in `state` (any image size, channels, classes)."""
    if name not in _SHAPE_KEYS:
        raise ValueError(f"unknown model '{name}'; EnsembleLab's models are {', '.join(sorted(_SHAPE_KEYS))}")
    first, last, flattened = _SHAPE_KEYS[name]
    model = make_model(name, channels=state[first].shape[1], classes=state[last].shape[0])
    if flattened is not None:  # the dense layer after the convolutions sees H x W's features
        layer = getattr(model, flattened)
        features = state[flattened + ".weight"].shape[1]
        if layer.in_features != features:
            setattr(model, flattened, nn.Linear(features, layer.out_features))
    return model


def learning_rate_at(config, steps_done, steps_per_epoch):
    """The learning rate of the step a run takes after `steps_done` steps (EnsembleLab's
    core/config/LearningRateSchedule.h). With W = lr_warmup_steps, the first W steps take
    lr * (steps_done + 1) / W; after them, over the T = epochs * steps_per_epoch - W steps left
    and the t = steps_done - W of them done: config's lr; for lr_schedule cosine
    lr * (1 + cos(pi * t / T)) / 2, torch.optim.lr_scheduler.CosineAnnealingLR(T_max=T)
    stepped every step; for step, lr times 0.1 for each of the milestones ceil(T / 2) and
    ceil(3 T / 4) that t has reached, MultiStepLR(milestones, gamma=0.1) stepped every step."""
    lr = config["lr"]
    warmup = max(config.get("lr_warmup_steps", 0), 0)
    if steps_done < warmup:
        return lr * float(max(steps_done, 0) + 1) / float(warmup)  # C++'s operations, to the last bit
    schedule = config.get("lr_schedule", "constant")
    if schedule == "constant":
        return lr
    total = config["epochs"] * steps_per_epoch - warmup
    if total <= 0:
        return lr
    if schedule == "step":
        for milestone in ((total + 1) // 2, (3 * total + 3) // 4):
            if steps_done - warmup >= milestone:
                lr = lr * 0.1  # one product per decay, as C++ and MultiStepLR take them
        return lr
    if schedule != "cosine":
        raise ValueError(f"unknown lr_schedule '{schedule}'; EnsembleLab's are constant, cosine and step")
    progress = min(max(steps_done - warmup, 0), total) / total  # in the order C++ computes it, to the last bit
    return lr * 0.5 * (1.0 + math.cos(math.pi * progress))


def sgd_for(model, config):
    """torch.optim.SGD with a run's settings: its lr, momentum and weight decay (0 in runs made
    before weight_decay was a setting)."""
    return torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"],
                           weight_decay=config.get("weight_decay", 0.0))


def pytorch_optimizer_state(model, momentum_buffers, lr, momentum, weight_decay=0.0):
    """EnsembleLab's momentum buffers ({parameter name: tensor}) as torch.optim.SGD's
    state_dict() ({"state": {index: {"momentum_buffer": ...}}, "param_groups": [...]}),
    indices in model.parameters() order."""
    names = [name for name, _ in model.named_parameters()]
    missing = [name for name in names if name not in momentum_buffers]
    if missing:
        raise KeyError(f"no momentum buffer for parameter '{missing[0]}'")
    template = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay).state_dict()
    template["state"] = {i: {"momentum_buffer": momentum_buffers[name].clone()} for i, name in enumerate(names)}
    return template


def _checkpoint_folder(path, step):
    checkpoints = os.path.join(path, "checkpoints")
    if step is None:
        latest = os.path.join(checkpoints, "latest")
        if not os.path.exists(latest):
            raise FileNotFoundError(f"{path} has no checkpoint yet (no {latest})")
        with open(latest) as f:
            folder = os.path.join(checkpoints, f.read().strip())
        kept = sorted(name for name in os.listdir(checkpoints) if name.startswith("step-"))
        if not os.path.isdir(folder) and kept:
            # removed, as the app says to do with a damaged latest checkpoint: the newest one left
            return os.path.join(checkpoints, kept[-1])
        return folder
    folder = os.path.join(checkpoints, f"step-{step:09d}")
    if not os.path.isdir(folder):
        kept = sorted(name for name in os.listdir(checkpoints) if name.startswith("step-"))
        raise FileNotFoundError(f"{path} has no checkpoint of step {step}; it keeps {', '.join(kept) or 'none'}")
    return folder


def _refuse_what_is_no_run(path):
    """Raises FileNotFoundError saying what `path`, which has no config.json, is instead: a
    folder of runs (a sweep's) names them."""
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{path} is not a run folder: " + ("it is a file" if os.path.exists(path)
                                                                    else "it does not exist"))
    runs = sorted(name for name in os.listdir(path) if os.path.exists(os.path.join(path, name, "config.json")))
    if runs:
        shown = ", ".join(os.path.join(path, name) for name in runs[:3]) + (", ..." if len(runs) > 3 else "")
        raise FileNotFoundError(f"{path} is a folder of {len(runs)} runs"
                                + (" (a sweep's)" if os.path.exists(os.path.join(path, "sweep.json")) else "")
                                + f", not a run: load one of them, e.g. {shown}")
    raise FileNotFoundError(f"{path} is not a run folder: it has no config.json")


def load_run(path, step=None, map_location="cpu"):
    """Reads run folder `path`: its config and the checkpoint of `step` (default: the latest),
    each model rebuilt with its weights and an SGD optimizer with its momentum."""
    path = os.path.expanduser(path)
    if not os.path.exists(os.path.join(path, "config.json")):
        _refuse_what_is_no_run(path)
    with open(os.path.join(path, "config.json")) as f:
        config = json.load(f)
    folder = _checkpoint_folder(path, step)
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    run = Run(config=config, checkpoint=folder, step=int(manifest.get("state", {}).get("global_step", -1)))
    # The rate of the run's next step, where a schedule moves it (steps per epoch from summary.json).
    steps_per_epoch = 0
    if os.path.exists(os.path.join(path, "summary.json")):
        with open(os.path.join(path, "summary.json")) as f:
            steps_per_epoch = int(json.load(f).get("steps_per_epoch", 0))
    next_lr = learning_rate_at(config, max(run.step, 0), steps_per_epoch)
    index = 0
    while os.path.exists(os.path.join(folder, f"member-{index}.pt")):
        state = _load(os.path.join(folder, f"member-{index}.pt"), map_location)
        model = model_for_state(config["model"], state).to(map_location)
        model.load_state_dict(state)  # strict: every key and shape must match
        optimizer = sgd_for(model, config)
        buffers = _load(os.path.join(folder, f"member-{index}-optimizer.pt"), map_location)
        optimizer.load_state_dict(pytorch_optimizer_state(model, buffers, next_lr, config["momentum"],
                                                          config.get("weight_decay", 0.0)))
        run.members.append(model)
        run.optimizers.append(optimizer)
        index += 1
    if not run.members:
        raise FileNotFoundError(f"{folder} holds no member-0.pt")
    return run
