# SPDX-License-Identifier: GPL-3.0-or-later
"""MNIST-format datasets (IDX files, raw or .gz) as EnsembleLab feeds them to its models.

A dataset folder is found as EnsembleLab finds it (core/data/DatasetSource.cpp): MNIST's four
names, each raw or .gz, also spelt with a dot before "idx" (train-images.idx3-ubyte, as some
MNIST mirrors ship it) or behind a prefix the four share (EMNIST's
emnist-letters-train-images-idx3-ubyte.gz). So a folder a run trained on loads here too.
"""
import gzip
import os
import re
import struct

import torch

FASHION_MNIST = "/usr/share/datasets/fashion-mnist"
_ROLES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
_SPLIT_ROLES = {"train": (0, 1), "test": (2, 3)}
_IDX_NAME = re.compile(r"^(.*)(train-images|train-labels|t10k-images|t10k-labels)([-.])(idx[13])-ubyte(\.gz)?$")
_UNSIGNED_BYTE = 0x08  # the only IDX element type MNIST-format datasets use


def read_idx(path):
    """An IDX file of unsigned bytes (raw or .gz, any number of gzip members) as a uint8
    tensor of its declared shape; a file that is not one, or is cut short, raises ValueError."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError) as error:  # gzip's BadGzipFile is an OSError; a cut .gz an EOFError
        raise ValueError(f"{path} cannot be read as {'gzip' if path.endswith('.gz') else 'an IDX file'}: {error}") from None
    # The engine's checks and words (core/data/IdxFile.cpp).
    if len(data) < 4:
        raise ValueError(f"{path} is not an IDX file: it holds {len(data)} bytes, fewer than the 4-byte magic number")
    if data[0] != 0 or data[1] != 0:
        raise ValueError(f"{path} has a wrong IDX magic number 0x{data[:4].hex().upper()} (expected 0x000008NN); "
                         "is it an MNIST-format file?")
    if data[2] != _UNSIGNED_BYTE:
        raise ValueError(f"{path} holds IDX elements of type 0x{data[2]:02X}; EnsembleLab reads unsigned-byte (0x08) "
                         "IDX files")
    dims = data[3]
    header = 4 + 4 * dims
    if not 1 <= dims <= 4:
        raise ValueError(f"{path} declares {dims} dimensions; IDX image and label files have 1 to 4")
    if len(data) < header:
        raise ValueError(f"{path} is truncated inside its header ({len(data)} of {header} bytes)")
    shape = struct.unpack(">" + "I" * dims, data[4:header])
    declared = 1
    for size in shape:
        declared *= size
    present = len(data) - header
    if present < declared:
        raise ValueError(f"{path} is truncated: its header declares {dims} dimension{'s' if dims > 1 else ''}, "
                         f"{' x '.join(map(str, shape))}, so {declared} bytes of data, but it holds {present}; "
                         "download or copy it again")
    if present > declared:
        raise ValueError(f"{path} has {present - declared} bytes after the data its header declares; the file is corrupt")
    return torch.frombuffer(bytearray(data[header:]), dtype=torch.uint8).reshape(shape)


def _file_sets(folder):
    """{prefix: [path of each of _ROLES or None]}: the IDX files `folder` holds, by the prefix
    their names share. Where a role has several spellings, MNIST's raw one wins, then its .gz,
    then the dotted raw and .gz."""
    ranked = {}
    for name in sorted(os.listdir(folder)):
        match = _IDX_NAME.match(name)
        path = os.path.join(folder, name)
        if not match or not os.path.isfile(path):
            continue
        role = f"{match.group(2)}-{match.group(4)}-ubyte"
        if role not in _ROLES:
            continue  # train-images-idx1-ubyte names no file of MNIST's
        rank = (2 if match.group(3) == "." else 0) + (1 if match.group(5) else 0)
        slots = ranked.setdefault(match.group(1), [None] * len(_ROLES))
        index = _ROLES.index(role)
        if slots[index] is None or rank < slots[index][0]:
            slots[index] = (rank, path)
    return {prefix: [slot[1] if slot else None for slot in slots] for prefix, slots in ranked.items()}


def _split_files(folder):
    """The four files of the dataset in `folder`; raises FileNotFoundError or ValueError
    saying what is missing, or which datasets a folder of several holds."""
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"dataset folder {folder} " + ("is a file, not a folder" if os.path.exists(folder)
                                                               else "does not exist"))
    sets = _file_sets(folder)
    complete = sorted(prefix for prefix, files in sets.items() if None not in files)
    if "" in complete:  # an unprefixed set wins over prefixed copies beside it, as MNIST's own does
        return sets[""]
    if len(complete) == 1:
        return sets[complete[0]]
    if len(complete) > 1:
        names = ", ".join(prefix + _ROLES[0] for prefix in complete)
        raise ValueError(f"dataset folder {folder} holds {len(complete)} datasets ({names}, each with its three other "
                         "files); name a folder that holds one")
    prefix, files = max(sets.items(), key=lambda item: (sum(f is not None for f in item[1]), item[0] == ""),
                        default=("", [None] * len(_ROLES)))
    missing = prefix + _ROLES[files.index(None)]
    raise FileNotFoundError(f"dataset folder {folder} has no {missing} (or {missing}.gz); an MNIST-format folder holds "
                            f"{', '.join(_ROLES)}, each raw or .gz (also spelt train-images.idx3-ubyte, or behind a "
                            "prefix the four share, as EMNIST's emnist-letters-train-images-idx3-ubyte.gz)")


def load_split(folder=FASHION_MNIST, split="test", limit=0):
    """(images, labels) of a split: images N x 1 x H x W floats in [0, 1] (pixels / 255),
    labels int64; the first `limit` samples when limit > 0 (config.json's train_limit and
    test_limit take the first samples too). `folder` may be what a run's config.json records
    as its "dataset": a folder, or "fashion-mnist"."""
    if split not in _SPLIT_ROLES:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if folder == "fashion-mnist":
        folder = FASHION_MNIST
    elif folder == "synthetic":
        raise ValueError("the 'synthetic' dataset is generated inside EnsembleLab and has no files; "
                         "train on an MNIST-format folder to read its images here")
    files = _split_files(os.path.expanduser(folder))
    image_role, label_role = _SPLIT_ROLES[split]
    images = read_idx(files[image_role])
    labels = read_idx(files[label_role]).long()
    if images.dim() != 3 or labels.dim() != 1 or images.shape[0] != labels.shape[0]:
        raise ValueError(f"{files[image_role]} ({' x '.join(map(str, images.shape))}) and {files[label_role]} "
                         f"({' x '.join(map(str, labels.shape))}) are not N images of H x W and their N labels")
    if limit > 0:
        images, labels = images[:limit], labels[:limit]
    return images.unsqueeze(1).float().div(255.0), labels
