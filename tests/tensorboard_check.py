#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reads a run's TensorBoard log with TensorBoard's own code and checks it against metrics.csv.

    tensorboard_check.py RUN_DIR LOG_DIR [--live]

- Every value of metrics.csv is found, tag for tag and step for step, by EventAccumulator
  (size_guidance 0: every point kept): a logged step's row as train/loss and
  train/accuracy, an epoch's row as train/epoch_loss, train/epoch_accuracy, test/loss,
  test/accuracy (and test/nll for the ensemble), and each member's logged step also as
  train/learning_rate, the rate ensemble_lab.learning_rate_at gives that step from
  config.json and summary.json (metrics.csv has no column for it); the ensemble's
  test/brier, test/ece and test/disagreement may come on top. Nothing else, and no point twice.
- Every record is the bytes TensorBoard's own writer gives: each raw record (read with its
  CRCs checked) re-encoded by tensorboard's RecordWriter, and each Event re-serialized by
  protobuf, equals the file byte for byte.
- With --live, wall times are real: within the last day, never decreasing.
Exit 0 when all holds; 1 with the first difference on stderr; 77 when tensorboard is missing.
"""
import csv
import io
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

try:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto import event_pb2
    from tensorboard.summary.writer.record_writer import RecordWriter
except ImportError as error:
    print(f"tensorboard is not installed for {sys.executable}: {error}", file=sys.stderr)
    sys.exit(77)
import numpy as np
from ensemble_lab.run import learning_rate_at

EXTRAS = {"test/brier", "test/ece", "test/disagreement"}


def fail(message):
    print("tensorboard_check: " + message, file=sys.stderr)
    sys.exit(1)


def expected_points(run_dir):
    """{(model, tag, step): value} from metrics.csv, as float32 like TensorBoard keeps them."""
    points = {}
    with open(os.path.join(run_dir, "config.json")) as f:
        config = json.load(f)
    with open(os.path.join(run_dir, "summary.json")) as f:
        steps_per_epoch = json.load(f).get("steps_per_epoch", 0)
    with open(os.path.join(run_dir, "metrics.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    if steps_per_epoch == 0:  # a run from before summary.json kept it: an epoch row's step over its epoch
        epoch_rows = [r for r in rows if r["train_loss"] != "" and r["test_loss"] != ""]
        steps_per_epoch = round(int(epoch_rows[0]["step"]) / int(epoch_rows[0]["epoch"])) if epoch_rows else 0
    for row in rows:
        model = "ensemble" if row["member"] == "ensemble" else "member-" + row["member"]
        step = int(row["step"])
        epoch_row = row["test_loss"] != "" or row["test_accuracy"] != ""
        columns = {"train_loss": "train/epoch_loss" if epoch_row else "train/loss",
                   "train_accuracy": "train/epoch_accuracy" if epoch_row else "train/accuracy",
                   "test_loss": "test/loss", "test_accuracy": "test/accuracy"}
        if epoch_row and model == "ensemble":
            points[(model, "test/nll", step)] = np.float32(float(row["test_loss"]))
        if not epoch_row and model != "ensemble":  # the rate this step was taken with
            points[(model, "train/learning_rate", step)] = np.float32(
                learning_rate_at(config, step - 1, steps_per_epoch))
        for column, tag in columns.items():
            if row[column] != "":
                key = (model, tag, step)
                if key in points:
                    fail(f"metrics.csv has {key} twice")
                points[key] = np.float32(float(row[column]))
    return points


def check_bytes(path):
    """Each record re-encoded by TensorBoard's writer equals the file; returns the Events."""
    with open(path, "rb") as f:
        original = f.read()
    rewritten = io.BytesIO()
    writer = RecordWriter(rewritten)
    events = []
    for raw in RawEventFileLoader(path).Load():
        event = event_pb2.Event.FromString(raw)
        if event.SerializeToString() != raw:
            fail(f"{path}: record {len(events)} is not protobuf's own encoding of its Event")
        writer.write(raw)
        events.append(event)
    if rewritten.getvalue() != original:
        fail(f"{path}: {len(original)} bytes, but TensorBoard's writer gives {len(rewritten.getvalue())} for its records")
    if not events or events[0].file_version != "brain.Event:2":
        fail(f"{path}: the first record is not the file_version event")
    return events


def main():
    run_dir, log_dir = sys.argv[1], sys.argv[2]
    live = "--live" in sys.argv[3:]
    expected = expected_points(run_dir)
    found = {}
    # A folder per model; files beside them (the export's .ensemble-lab-export) are no run's.
    for model in sorted(m for m in os.listdir(log_dir) if os.path.isdir(os.path.join(log_dir, m))):
        folder = os.path.join(log_dir, model)
        files = sorted(f for f in os.listdir(folder) if "tfevents" in f)
        if len(files) != 1:
            fail(f"{folder}: {len(files)} event files, expected 1")
        events = check_bytes(os.path.join(folder, files[0]))
        if live:
            times = [e.wall_time for e in events]
            if times != sorted(times) or min(times) < time.time() - 86400 or max(times) > time.time() + 60:
                fail(f"{folder}: wall times are not real and increasing: {times[:3]}...")
        accumulator = EventAccumulator(folder, size_guidance={"scalars": 0})
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            for point in accumulator.Scalars(tag):
                key = (model, tag, point.step)
                if key in found:
                    fail(f"{key} appears twice")
                found[key] = point.value
    for key, value in expected.items():
        if key not in found:
            fail(f"{key} of metrics.csv is not in the log")
        if np.float32(found[key]) != value:
            source = "learning_rate_at" if key[1] == "train/learning_rate" else "metrics.csv"
            fail(f"{key}: the log says {found[key]}, {source} {value}")
    extra = {key for key in found if key not in expected}
    unexpected = {key for key in extra if key[0] != "ensemble" or key[1] not in EXTRAS}
    if unexpected:
        fail(f"points that metrics.csv does not have: {sorted(unexpected)[:5]}")
    print(f"tensorboard_check: {len(expected)} values of metrics.csv and learning rates found, "
          f"{len(extra)} ensemble scores beside them")


if __name__ == "__main__":
    main()
