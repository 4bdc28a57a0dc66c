#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the .npz archives TestNpzImport imports, with NumPy's own writers (numpy.savez,
numpy.savez_compressed), in the forms people save datasets in, and the ones the import must
refuse. Usage: python3 tests/npz_fixtures.py FOLDER; exit status 3 where NumPy is missing.

A split of n images of rows x columns: pixel j of image i is (7 i + 3 j + offset) % 256
(offset 0 for training, 100 for test), label i % 4 (training) or (i + 1) % 4 (test);
TestNpzImport computes the same numbers to compare the IDX files with."""
import os
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(3)

out = sys.argv[1]


def split(n, rows, columns, offset, shift):
    i = np.arange(n).reshape(n, 1)
    j = np.arange(rows * columns).reshape(1, -1)
    images = ((7 * i + 3 * j + offset) % 256).astype(np.uint8).reshape(n, rows, columns)
    return images, ((np.arange(n) + shift) % 4).astype(np.uint8)


x_train, y_train = split(30, 6, 5, 0, 0)
x_test, y_test = split(10, 6, 5, 100, 1)


def save(name, compressed=False, **arrays):
    (np.savez_compressed if compressed else np.savez)(os.path.join(out, name + ".npz"), **arrays)


# Imported: every one must make the same four IDX files.
save("stored-uint8", x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)
save("compressed-int64-labels", True, x_train=x_train, y_train=y_train.astype(np.int64), x_test=x_test,
     y_test=y_test.astype(np.int64))
save("fortran-float-channels", train_images=np.asfortranarray(x_train.astype(np.float32)),
     train_labels=y_train.astype(np.int16).reshape(-1, 1), test_images=x_test.astype(np.uint16)[:, None, :, :],
     test_labels=y_test.astype(">i4"))
save("channels-last-float64", x_train=x_train[..., None].astype(np.float64), y_train=y_train,
     x_test=x_test[..., None].astype(">f8"), y_test=y_test)
save("flattened", x_train=x_train.reshape(30, -1), y_train=y_train, x_test=x_test.reshape(10, -1), y_test=y_test)
save("capital-names", X_train=x_train, Y_train=y_train, X_test=x_test, Y_test=y_test)
save("train-x-names", train_x=x_train, train_y=y_train, test_x=x_test, test_y=y_test)

# Refused, each with its own words.
save("scaled", x_train=x_train / 255.0, y_train=y_train, x_test=x_test / 255.0, y_test=y_test)
save("one-hot", x_train=x_train, y_train=np.eye(4)[y_train], x_test=x_test, y_test=y_test)
save("positional", **{"arr_%d" % k: a for k, a in enumerate((x_train, y_train, x_test, y_test))})
save("a-label-short", x_train=x_train, y_train=y_train[:-1], x_test=x_test, y_test=y_test)
over = x_train.astype(np.uint16)
over[2, 1, 3] = 256
save("over-255", x_train=over, y_train=y_train, x_test=x_test, y_test=y_test)
negative = y_test.astype(np.int8)
negative[5] = -1
save("negative-label", x_train=x_train, y_train=y_train, x_test=x_test, y_test=negative)
save("text-labels", x_train=x_train, y_train=y_train.astype(str), x_test=x_test, y_test=y_test)
save("object-labels", x_train=x_train, y_train=np.array(list(y_train), dtype=object), x_test=x_test, y_test=y_test)
save("two-sizes", x_train=x_train, y_train=y_train, x_test=x_test.reshape(10, 5, 6), y_test=y_test)
save("colour", x_train=np.repeat(x_train[..., None], 3, axis=3), y_train=y_train, x_test=x_test, y_test=y_test)
save("no-images", x_train=x_train[:0], y_train=y_train[:0], x_test=x_test, y_test=y_test)
