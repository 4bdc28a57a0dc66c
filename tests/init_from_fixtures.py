#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the files TestInitFrom starts runs from, with the PyTorch that runs this script.

    init_from_fixtures.py OUT_DIR

- cnn-0.pt, cnn-1.pt: state_dicts of python/ensemble_lab's CNN (seeds 10 and 11), as any
  PyTorch user writes them: torch.save(model.state_dict(), F);
- lenet.pt: a LeNet's (other keys than the CNN's);
- cnn-wide.pt: the CNN's, with one entry of another shape;
- views.pt (and views-p4.pt, pickle protocol 4): an OrderedDict whose tensors are views of
  shared storages at offsets and with strides, of several dtypes, one empty;
- list.pt, module.pt, nested.pt, legacy.pt: not state_dicts, or not in the zip format.
"""
import collections
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import ensemble_lab  # noqa: E402


def model(name, seed):
    torch.manual_seed(seed)
    return ensemble_lab.make_model(name)


def views():
    """What TestInitFrom rebuilds in C++ and compares entry for entry."""
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    state = collections.OrderedDict()
    state["base"] = base
    state["transposed"] = base.t()                  # same storage, strides (1, 4)
    state["corner"] = base[1:, 2:]                  # same storage, offset 6
    state["double"] = torch.tensor([1.5, -2.25], dtype=torch.float64)
    state["count"] = torch.tensor(7, dtype=torch.int64)  # a 0-d tensor (num_batches_tracked)
    state["empty"] = torch.zeros(0, 3)
    state._metadata = collections.OrderedDict(base={"version": 1})
    return state


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    path = lambda name: os.path.join(out, name)  # noqa: E731
    torch.save(model("cnn", 10).state_dict(), path("cnn-0.pt"))
    torch.save(model("cnn", 11).state_dict(), path("cnn-1.pt"))
    torch.save(model("lenet", 10).state_dict(), path("lenet.pt"))
    wide = model("cnn", 10).state_dict()
    last = next(reversed(wide))
    wide[last] = torch.zeros(wide[last].shape[0] + 1)
    torch.save(wide, path("cnn-wide.pt"))
    torch.save(views(), path("views.pt"))
    torch.save(views(), path("views-p4.pt"), pickle_protocol=4)
    torch.save([torch.ones(2)], path("list.pt"))
    torch.save(model("cnn", 10), path("module.pt"))
    torch.save({"state_dict": model("cnn", 10).state_dict(), "epoch": 3}, path("nested.pt"))
    torch.save(model("cnn", 10).state_dict(), path("legacy.pt"), _use_new_zipfile_serialization=False)
    print(last)


if __name__ == "__main__":
    main()
