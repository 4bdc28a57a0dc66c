#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the checked-in seed corpora of the fuzz harnesses (tests/fuzz/corpus/<harness>/):
real files cut small, plus the broken kinds the engine must reject. Standard library only.
Usage: python3 tests/fuzz/make_corpus.py [FASHION_MNIST_DIR] [RUN_DIR]
(FuzzCheckpoint's seeds come from the harness itself: ENSEMBLELAB_FUZZ_WRITE_SEEDS=DIR.)"""
import gzip
import io
import json
import os
import struct
import sys
import zipfile

here = os.path.dirname(os.path.abspath(__file__))
fashion = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/datasets/fashion-mnist"
run = sys.argv[2] if len(sys.argv) > 2 else None


def write(harness, name, data):
    folder = os.path.join(here, "corpus", harness)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as out:
        out.write(data if isinstance(data, bytes) else data.encode())


def idx(dims, payload, type_code=0x08):
    return bytes([0, 0, type_code, len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + payload


# CSV (import): Kaggle's form with a header, without one, Windows line ends, and the broken
# kinds import must refuse (a row cut short, a value over 255, scaled pixels, no labels).
csv_header = "label," + ",".join("pixel%d" % j for j in range(1, 5)) + "\n"
csv_rows = "".join("%d,%s\n" % (i % 2, ",".join(str((7 * i + j) % 256) for j in range(4))) for i in range(4))
write("FuzzCsvImport", "kaggle", csv_header + csv_rows)
write("FuzzCsvImport", "no-header", csv_rows)
write("FuzzCsvImport", "crlf", (csv_header + csv_rows).replace("\n", "\r\n"))
write("FuzzCsvImport", "row-cut-short", csv_rows + "1,2,3\n")
write("FuzzCsvImport", "over-255", csv_rows + "1,2,3,256,4\n")
write("FuzzCsvImport", "scaled", "1,0.5,0,0,0\n0,0,0,0,1\n")
write("FuzzCsvImport", "unlabelled", "pixel0,pixel1,pixel2,pixel3\n0,0,0,0\n")

# NumPy archives (import --npz), written as numpy.savez writes them (zipfile, ZIP64 forced; the
# .npy header padded to 64 bytes): Keras's four arrays of 3 + 2 images of 4x4, stored and
# deflated, other element types, and the broken kinds import must refuse.
def npy(descr, shape, payload, fortran=False):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, tuple(shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload


def npz(arrays, method=zipfile.ZIP_STORED):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=method) as archive:
        for name, data in arrays:
            entry = zipfile.ZipInfo(name + ".npy", (1980, 1, 1, 0, 0, 0))  # dated, for the same bytes each time
            entry.compress_type = method
            with archive.open(entry, "w", force_zip64=True) as member:
                member.write(data)
    return out.getvalue()


pixels = bytes((7 * i + 3) % 256 for i in range(5 * 16))
keras = [("x_train", npy("|u1", (3, 4, 4), pixels[:48])), ("y_train", npy("|u1", (3,), b"\x00\x01\x02")),
         ("x_test", npy("|u1", (2, 4, 4), pixels[48:])), ("y_test", npy("|u1", (2,), b"\x01\x00"))]
write("FuzzNpzImport", "keras-stored", npz(keras))
write("FuzzNpzImport", "keras-deflated", npz(keras, zipfile.ZIP_DEFLATED))
write("FuzzNpzImport", "int64-labels-fortran", npz(keras[:1] + [("y_train", npy("<i8", (3,), struct.pack("<3q", 0, 1, 2)))] +
                                                   [("x_test", npy("|u1", (2, 4, 4), pixels[48:], True))] + keras[3:]))
write("FuzzNpzImport", "float-flattened", npz([("x_train", npy("<f4", (3, 16), struct.pack("<48f", *pixels[:48])))] +
                                              keras[1:2] + [("x_test", npy(">f8", (2, 16), struct.pack(">32d", *pixels[48:])))] +
                                              keras[3:]))
write("FuzzNpzImport", "positional", npz([("arr_%d" % k, a) for k, (_, a) in enumerate(keras)]))
write("FuzzNpzImport", "npy-cut-short", npz(keras[:1] + [("y_train", npy("|u1", (3,), b"\x00"))] + keras[2:]))
write("FuzzNpzImport", "objects", npz(keras[:1] + [("y_train", npy("|O", (3,), b"\x80\x04N."))] + keras[2:]))
write("FuzzNpzImport", "archive-cut-short", npz(keras)[:300])

# IDX: the real Fashion-MNIST files cut to a few items, raw and gzip, and the broken kinds.
with gzip.open(os.path.join(fashion, "train-images-idx3-ubyte.gz")) as f:
    images = f.read(16 + 3 * 784)
with gzip.open(os.path.join(fashion, "train-labels-idx1-ubyte.gz")) as f:
    labels = f.read(8 + 3)
images = images[:4] + struct.pack(">I", 3) + images[8:]
labels = labels[:4] + struct.pack(">I", 3) + labels[8:]
write("FuzzIdx", "images-3", images)
write("FuzzIdx", "labels-3", labels)
write("FuzzIdx", "images-3.gz", gzip.compress(images, mtime=0))
write("FuzzIdx", "labels-3.gz", gzip.compress(labels, mtime=0))
write("FuzzIdx", "wrong-magic", b"\x01\x02" + images[2:])
write("FuzzIdx", "truncated", images[:-100])
write("FuzzIdx", "trailing-bytes", images + b"\x00" * 7)
write("FuzzIdx", "claims-billions", idx([4_000_000_000, 28, 28], b"\x00" * 64))
write("FuzzIdx", "zero-dims", idx([], b""))
write("FuzzIdx", "float-type", idx([2, 2], b"\x00" * 16, 0x0D))
write("FuzzIdx", "gzip-truncated", gzip.compress(images, mtime=0)[:-20])
write("FuzzIdx", "gzip-claims-billions", gzip.compress(idx([4_000_000_000], b"\x00" * 256), mtime=0))

# Experiment configs: what config.json holds, and each kind of mistake.
config = {"dataset": "fashion-mnist", "model": "cnn", "mode": "ensemble", "devices": "cpu*4", "lr": 0.1,
          "momentum": 0.9, "batch_size": 128, "epochs": 10, "seed": 0, "train_limit": 0, "test_limit": 0,
          "checkpoint_every": 0, "log_every": 10, "eval_batch_size": 1000, "memory_budget_mb": 0,
          "version": "0.1.0"}
write("FuzzExperimentConfig", "config", json.dumps(config, indent=2))
write("FuzzExperimentConfig", "minimal", '{"lr": 0.05}')
write("FuzzExperimentConfig", "truncated", json.dumps(config)[:70])
write("FuzzExperimentConfig", "wrong-type", '{"batch_size": "big"}')
write("FuzzExperimentConfig", "unknown-key", '{"learning_rate": 0.1}')
write("FuzzExperimentConfig", "negative", '{"epochs": -3, "lr": -1e308}')
write("FuzzExperimentConfig", "not-an-object", "[1, 2, 3]")
write("FuzzExperimentConfig", "huge-seed", '{"seed": 18446744073709551615, "batch_size": 9223372036854775807}')
write("FuzzExperimentConfig", "run-state", json.dumps({
    "epoch": 1, "step_in_epoch": 3, "global_step": 471, "train_seconds": 12.5, "samples_trained": 60000,
    "metrics_bytes": 4096, "window": [], "epoch_totals": []}))

# Device specs as people type them.
for name, spec in [("cpu", "cpu"), ("cpu4", "cpu*4"), ("cuda-list", "cuda:0,cuda:1"), ("cuda2", "cuda*2"),
                   ("all", "all"), ("cuda", "cuda"), ("zero", "cpu*0"), ("spaces", " cpu , cuda:1 "),
                   ("overflow", "cpu*99999999999999999999"), ("negative", "cuda:-1"), ("empty-item", "cpu,,cpu")]:
    write("FuzzDeviceSpec", name, spec)

# Run folders: config.json NUL summary.json NUL metrics.csv, real and damaged.
if run:
    parts = [open(os.path.join(run, f), "rb").read() for f in ("config.json", "summary.json", "metrics.csv")]
    write("FuzzRunFolder", "real-run", b"\0".join(parts))
    write("FuzzRunFolder", "torn-metrics", b"\0".join(parts[:2] + [parts[2][:-9]]))
    write("FuzzRunFolder", "no-header", b"\0".join(parts[:2] + [parts[2].split(b"\n", 1)[1]]))
    write("FuzzRunFolder", "summary-wrong-types", b"\0".join(
        [parts[0], b'{"status": 3, "ensemble": [], "members": "x", "epochs_completed": "a"}', parts[2]]))
write("FuzzRunFolder", "empty", b"\0\0")
