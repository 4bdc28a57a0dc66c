#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Out-of-distribution test sets made from Fashion-MNIST, for `eval --ood` where no other
dataset is installed (this machine has Debian's Fashion-MNIST only).

    python3 scripts/make_ood_sets.py OUT_DIR [--source /usr/share/datasets/fashion-mnist]

writes two MNIST-format folders (the test split is what `--ood` scores; a one-image
training split satisfies the loader):
  OUT_DIR/inverted  every test image as its negative (255 - x): far out of distribution,
                    the same shapes on a white background;
  OUT_DIR/uniform   uniform noise images, seeded: nothing like any class.
Standard library only.
"""
import argparse
import gzip
import os
import random
import struct


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    zero, dtype, dims = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype != 0x08:
        raise SystemExit(f"{path}: not an IDX file of unsigned bytes")
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return shape, data[4 + 4 * dims:]


def write_idx(path, shape, payload):
    with open(path, "wb") as f:
        f.write(struct.pack(">HBB", 0, 0x08, len(shape)))
        f.write(struct.pack(">" + "I" * len(shape), *shape))
        f.write(payload)


def find(folder, stem):
    for name in (stem, stem + ".gz"):
        if os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    raise SystemExit(f"{folder}: no {stem}[.gz]")


def write_set(folder, shape, images, labels):
    os.makedirs(folder, exist_ok=True)
    count, rows, cols = shape
    write_idx(os.path.join(folder, "t10k-images-idx3-ubyte"), shape, images)
    write_idx(os.path.join(folder, "t10k-labels-idx1-ubyte"), (count,), labels)
    write_idx(os.path.join(folder, "train-images-idx3-ubyte"), (1, rows, cols), images[:rows * cols])
    write_idx(os.path.join(folder, "train-labels-idx1-ubyte"), (1,), labels[:1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--source", default="/usr/share/datasets/fashion-mnist")
    args = parser.parse_args()
    shape, images = read_idx(find(args.source, "t10k-images-idx3-ubyte"))
    _, labels = read_idx(find(args.source, "t10k-labels-idx1-ubyte"))
    write_set(os.path.join(args.out, "inverted"), shape, bytes(255 - b for b in images), labels)
    noise = random.Random(0)
    write_set(os.path.join(args.out, "uniform"), shape, bytes(noise.randrange(256) for _ in images), labels)
    print(f"wrote {args.out}/inverted and {args.out}/uniform: {shape[0]} images of {shape[1]}x{shape[2]}")


if __name__ == "__main__":
    main()
