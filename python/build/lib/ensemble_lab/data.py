# SPDX-License-Identifier: GPL-3.0-or-later
"""MNIST-format datasets (IDX files, raw or .gz) as EnsembleLab feeds them to its models."""
import gzip
import os
import struct

import torch

FASHION_MNIST = "/usr/share/datasets/fashion-mnist"
_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
          "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def read_idx(path):
    """An IDX file (raw or .gz) as a uint8 tensor of its declared shape."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


def _find(folder, name):
    for path in (os.path.join(folder, name), os.path.join(folder, name + ".gz")):
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"{folder} holds no {name} (raw or .gz)")


def load_split(folder=FASHION_MNIST, split="test", limit=0):
    """(images, labels) of a split: images N x 1 x H x W floats in [0, 1] (pixels / 255),
    labels int64; the first `limit` samples when limit > 0 (config.json's train_limit and
    test_limit take the first samples too)."""
    image_file, label_file = _FILES[split]
    images = read_idx(_find(folder, image_file))
    labels = read_idx(_find(folder, label_file)).long()
    if limit > 0:
        images, labels = images[:limit], labels[:limit]
    if images.dim() == 3:
        images = images.unsqueeze(1)
    return images.float().div(255.0), labels
