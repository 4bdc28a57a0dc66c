# SPDX-License-Identifier: GPL-3.0-or-later
"""--until-accuracy, shared by the peers (bench/peer.py, bench/flax_peer.py) that
bench/time_to_accuracy.py races: the options, and the report of each evaluation and of the
end, one JSON line each, flushed at once:
  {"event": "evaluation", "step", "epoch", "accuracy", "seconds"}
  {"event": "done", "reached", "seconds_to_target", "evaluations", "peak_rss_mb"}
Seconds count from `process_start`, taken by the peer before its heavy imports."""
import json, resource, time


def add_arguments(parser):
    parser.add_argument("--until-accuracy", type=float, help="train until the ensemble's test accuracy reaches this")
    parser.add_argument("--eval-fraction", type=float, default=0.25, help="evaluate every this much of an epoch")
    parser.add_argument("--max-epochs", type=int, default=5)
    parser.add_argument("--train-limit", type=int, default=0, help="train on the first N images (default: all)")


class Race:
    """Counts a peer's evaluations against the target: every round(eval_fraction x steps per
    epoch) steps and at each epoch's end."""

    def __init__(self, a, steps_per_epoch, process_start):
        if steps_per_epoch == 0:
            raise SystemExit(f"--train-limit {a.train_limit} is less than one batch of {a.batch_size}")
        self.target, self.max_epochs, self.steps_per_epoch = a.until_accuracy, a.max_epochs, steps_per_epoch
        self.every = max(1, round(a.eval_fraction * steps_per_epoch))
        self.start, self.evaluations, self.reached = process_start, 0, None

    def due(self, done, step_in_epoch):
        """Whether an evaluation is due after `done` steps, `step_in_epoch` of them this epoch."""
        return done % self.every == 0 or step_in_epoch == self.steps_per_epoch

    def evaluated(self, done, accuracy):
        """Reports an evaluation after `done` steps; True once the target is reached."""
        self.evaluations += 1
        seconds = time.time() - self.start
        print(json.dumps({"event": "evaluation", "step": done, "epoch": done / self.steps_per_epoch,
                          "accuracy": accuracy, "seconds": seconds}), flush=True)
        if accuracy >= self.target and self.reached is None:
            self.reached = seconds
        return self.reached is not None

    def finish(self):
        print(json.dumps({"event": "done", "reached": self.reached is not None, "seconds_to_target": self.reached,
                          "evaluations": self.evaluations,
                          "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)
