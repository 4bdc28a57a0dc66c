#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Evaluates an EnsembleLab run's latest checkpoint in plain PyTorch, with nothing of
EnsembleLab but its files: each member's weights are read by torch.load at its defaults
(weights_only=True since PyTorch 2.6), put into the same CNN written in torch.nn, and
scored on the run's test set. Prints one JSON object:
  {"checkpoint": ..., "members": [{"test_accuracy": ...}, ...], "ensemble": {"test_accuracy": ...}}
The ensemble averages the members' softmax probabilities, as EnsembleLab does.

  python3 scripts/pytorch_evaluate.py RUN_FOLDER [--dataset-folder DIR]

Works for the cnn model on an MNIST-format dataset (fashion-mnist or a folder); the
synthetic set exists only inside EnsembleLab.
"""
import argparse
import gzip
import json
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

FASHION_MNIST = "/usr/share/datasets/fashion-mnist"


class Cnn(nn.Module):
    """Flax's MNIST CNN as core/models/Cnn builds it: "same" 3x3 convolutions, ReLU and 2x2
    average pooling twice, then two dense layers. Sizes are taken from the state dict."""

    def __init__(self, state):
        super().__init__()
        channels = state["conv1.weight"].shape[1]
        self.conv1 = nn.Conv2d(channels, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.dense1 = nn.Linear(state["dense1.weight"].shape[1], 256)
        self.dense2 = nn.Linear(256, state["dense2.weight"].shape[0])

    def forward(self, x):
        x = F.avg_pool2d(F.relu(self.conv1(x)), 2)
        x = F.avg_pool2d(F.relu(self.conv2(x)), 2)
        return self.dense2(F.relu(self.dense1(x.flatten(1))))


def read_idx(folder, name):
    """An IDX file (raw or .gz) as a uint8 tensor of its declared shape."""
    for path in (os.path.join(folder, name), os.path.join(folder, name + ".gz")):
        if os.path.exists(path):
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rb") as f:
                data = f.read()
            dims = data[3]
            shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
            return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)
    sys.exit(f"pytorch_evaluate: {folder} holds no {name} (raw or .gz)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="an EnsembleLab run folder")
    parser.add_argument("--dataset-folder", help="where the run's MNIST-format test files are")
    args = parser.parse_args()

    with open(os.path.join(args.run, "config.json")) as f:
        config = json.load(f)
    if config["model"] != "cnn":
        sys.exit(f"pytorch_evaluate: the run trained '{config['model']}'; this reader knows the cnn model")
    folder = args.dataset_folder or (FASHION_MNIST if config["dataset"] == "fashion-mnist" else config["dataset"])
    if config["dataset"] == "synthetic":
        sys.exit("pytorch_evaluate: the synthetic dataset exists only inside EnsembleLab")

    checkpoints = os.path.join(args.run, "checkpoints")
    with open(os.path.join(checkpoints, "latest")) as f:
        checkpoint = os.path.join(checkpoints, f.read().strip())
    if not os.path.isdir(checkpoint):  # removed, as the app says of a damaged one: the newest left
        kept = sorted(name for name in os.listdir(checkpoints) if name.startswith("step-"))
        checkpoint = os.path.join(checkpoints, kept[-1]) if kept else checkpoint

    images = read_idx(folder, "t10k-images-idx3-ubyte")
    labels = read_idx(folder, "t10k-labels-idx1-ubyte").long()
    if images.dim() == 4:  # one channel, last or first: the engine reads it as count x rows x columns
        images = images.squeeze(3 if images.shape[3] == 1 else 1)
    limit = int(config.get("test_limit", 0))
    if limit > 0:
        images, labels = images[:limit], labels[:limit]
    x = images.float().div(255.0).unsqueeze(1)

    members, probabilities = [], []
    index = 0
    torch.set_grad_enabled(False)
    while os.path.exists(os.path.join(checkpoint, f"member-{index}.pt")):
        state = torch.load(os.path.join(checkpoint, f"member-{index}.pt"))  # the defaults, on purpose
        model = Cnn(state)
        model.load_state_dict(state)
        model.eval()
        p = torch.cat([F.softmax(model(batch), dim=1) for batch in x.split(256)])
        probabilities.append(p)
        members.append({"test_accuracy": (p.argmax(1) == labels).double().mean().item()})
        index += 1
    if not members:
        sys.exit(f"pytorch_evaluate: {checkpoint} holds no member-0.pt")
    ensemble = torch.stack(probabilities).mean(0)
    print(json.dumps({"checkpoint": checkpoint, "torch": torch.__version__, "test_samples": len(labels),
                      "members": members,
                      "ensemble": {"test_accuracy": (ensemble.argmax(1) == labels).double().mean().item()}}))


if __name__ == "__main__":
    main()
