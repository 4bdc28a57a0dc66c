#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The seed recipe's own program: Flax's "Ensembling on multiple devices" HOWTO (its
ensemble side, ../shared/references/001_*), timed like bench/peer.py. The CNN, SGD with
lr 0.1 and momentum 0.9, batch 128, one member per split RNG key, every member on the same
batches, lax.pmean of the members' losses and softmax probabilities.

With one member per device it runs the HOWTO's jax.pmap as written. With more members than
devices (an ensemble of 8 on one GPU) it maps the same functions with jax.vmap over the
member axis, named 'ensemble' so that lax.pmean means what it means under pmap.
Prints one JSON line like bench/peer.py: member-images per second after warm-up, test
images per second (the members' averaged probabilities), peak resident memory. On a CPU,
XLA_FLAGS=--xla_force_host_platform_device_count=N gives pmap N devices (run_bench.py sets
it). Usage, in scripts/bench-venv.sh's environment:
    python bench/flax_peer.py --members 8 --steps 200 --warmup 20

On a GPU (bench/run_bench.py --gpu): --device cuda runs on JAX's CUDA backend (--device cpu,
the default, pins JAX to the CPU as before), and --mapping vmap maps the members over one
GPU even where their number equals the devices' (auto: pmap when it does, as the HOWTO).
--precision fp32 is IEEE float32 on the GPU (jax_default_matmul_precision 'highest'; XLA's
default there is TF32), tf32 is 'tensorfloat32', bf16 gives the Flax modules a bfloat16
compute dtype (float32 parameters; the loss and softmax in float32). The clock is read after
jax.block_until_ready, and the JSON adds the device and its peak memory in use
(device.memory_stats()['peak_bytes_in_use'], MiB; null where the backend keeps none).

Time to accuracy (bench/time_to_accuracy.py), as bench/peer.py: --until-accuracy A trains over
the whole training set (--train-limit N: its first N images), a new permutation each epoch
(the HOWTO's, the last partial batch dropped), scores the ensemble (the members' pmean'd
softmax) on the test set every round(F x steps per epoch) steps (--eval-fraction F) and at
each epoch's end, and stops at the first evaluation with accuracy >= A, or after
--max-epochs. One JSON line per evaluation, flushed at once, {"event": "evaluation", "step",
"epoch", "accuracy", "seconds"}, then {"event": "done", "reached", "seconds_to_target",
"evaluations", "peak_rss_mb"}; seconds count from the process's start (imports included).
"""
import time

PROCESS_START = time.time()  # before the heavy imports: what --until-accuracy's seconds count from

import argparse, gzip, json, resource, statistics

import until_accuracy

import numpy as np
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from flax import jax_utils
from flax.training import train_state


class CNN(nn.Module):  # the HOWTO's model, as core/models/Cnn
    dtype: jnp.dtype = jnp.float32  # the compute dtype (bf16: --precision bf16); parameters stay float32

    @nn.compact
    def __call__(self, x):
        x = nn.avg_pool(nn.relu(nn.Conv(features=32, kernel_size=(3, 3), dtype=self.dtype)(x)), window_shape=(2, 2),
                        strides=(2, 2))
        x = nn.avg_pool(nn.relu(nn.Conv(features=64, kernel_size=(3, 3), dtype=self.dtype)(x)), window_shape=(2, 2),
                        strides=(2, 2))
        x = x.reshape((x.shape[0], -1))
        x = nn.relu(nn.Dense(features=256, dtype=self.dtype)(x))
        return nn.Dense(features=10, dtype=self.dtype)(x).astype(jnp.float32)


def idx(path, header):
    with gzip.open(path) as f:
        return np.frombuffer(f.read(), np.uint8)[header:]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--members", type=int, default=8)
    p.add_argument("--seed", type=int, default=0, help="the members' initialisation and the batches' order")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--test-limit", type=int, default=10000)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist/")
    p.add_argument("--repeats", type=int, default=1,
                   help="timed windows of --steps steps (each followed by a timed evaluation) after the one "
                        "warm-up, in this process: the JSON gives their medians and each in 'samples'")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="JAX's backend (cuda: its first GPUs)")
    p.add_argument("--mapping", choices=("auto", "pmap", "vmap"), default="auto",
                   help="auto: pmap when the members equal the devices, else vmap")
    p.add_argument("--precision", choices=("fp32", "tf32", "bf16"), default="fp32",
                   help="fp32: IEEE float32 matmuls and convolutions on a GPU; tf32; bf16: bfloat16 compute dtype")
    until_accuracy.add_arguments(p)
    a = p.parse_args()
    jax.config.update("jax_platforms", a.device)
    try:  # a backend JAX lacks fails in its own way (RuntimeError, or an AssertionError with no plugin)
        device = jax.local_devices()[0]
    except Exception as e:
        raise SystemExit(f"flax_peer.py: --device {a.device}, but JAX {jax.__version__} has no such backend here "
                         f"({type(e).__name__}: {e}); on a GPU, install jax with its CUDA plugin") from None
    if a.device == "cuda":  # XLA's default on a GPU is TF32: fp32 asks for IEEE float32
        jax.config.update("jax_default_matmul_precision", "highest" if a.precision != "tf32" else "tensorfloat32")
    cnn = CNN(dtype=jnp.bfloat16 if a.precision == "bf16" else jnp.float32)

    def create_train_state(rng):
        params = cnn.init(rng, jnp.ones([1, 28, 28, 1]))["params"]
        return train_state.TrainState.create(apply_fn=cnn.apply, params=params, tx=optax.sgd(0.1, 0.9))

    def apply_model(state, images, labels):
        def loss_fn(params):
            logits = cnn.apply({"params": params}, images)
            loss = optax.softmax_cross_entropy(logits=logits, labels=jax.nn.one_hot(labels, 10)).mean()
            return loss, logits

        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
        loss = jax.lax.pmean(loss, axis_name="ensemble")
        probs = jax.lax.pmean(jax.nn.softmax(logits), axis_name="ensemble")
        return grads, loss, jnp.mean(jnp.argmax(probs, -1) == labels)

    def update_model(state, grads):
        return state.apply_gradients(grads=grads)

    def probabilities(state, images):
        return jax.lax.pmean(jax.nn.softmax(cnn.apply({"params": state.params}, images)), axis_name="ensemble")

    pmapped = a.mapping == "pmap" or (a.mapping == "auto" and a.members == jax.local_device_count())
    if pmapped and a.members != jax.local_device_count():
        raise SystemExit(f"flax_peer.py: --mapping pmap needs one member per device: {a.members} members, "
                         f"{jax.local_device_count()} devices")
    if pmapped:  # the HOWTO as written: one member per device
        create = jax.pmap(create_train_state)
        step_grads = jax.pmap(apply_model, axis_name="ensemble")
        update = jax.pmap(update_model)
        predict = jax.pmap(probabilities, axis_name="ensemble")
        feed = jax_utils.replicate
    else:  # several members per device: the same functions mapped over the member axis
        create = jax.jit(jax.vmap(create_train_state))
        step_grads = jax.jit(jax.vmap(apply_model, in_axes=(0, None, None), axis_name="ensemble"))
        update = jax.jit(jax.vmap(update_model))
        predict = jax.jit(jax.vmap(probabilities, in_axes=(0, None), axis_name="ensemble"))
        feed = lambda x: x

    train_rows = a.train_limit or None
    images = jnp.asarray(idx(a.data + "train-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28, 1)[:train_rows]
                         / np.float32(255))
    labels = jnp.asarray(idx(a.data + "train-labels-idx1-ubyte.gz", 8).astype(np.int32)[:train_rows])
    test = jnp.asarray(idx(a.data + "t10k-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28, 1)[: a.test_limit] / np.float32(255))
    test_labels = idx(a.data + "t10k-labels-idx1-ubyte.gz", 8)[: a.test_limit]
    chunks = [(test[i:i + 1000], test_labels[i:i + 1000]) for i in range(0, test.shape[0], 1000)]
    rng, init_rng, input_rng = jax.random.split(jax.random.key(a.seed), 3)
    state = create(jax.random.split(init_rng, a.members))
    perms = jax.random.permutation(input_rng, images.shape[0])
    steps_per_epoch = images.shape[0] // a.batch_size

    def run(first, count, state, perms):
        """Steps first..first+count-1 of the batches of the permutation `perms` (wrapping)."""
        losses = []
        for i in range(first, first + count):
            perm = perms[(i % steps_per_epoch) * a.batch_size:(i % steps_per_epoch + 1) * a.batch_size]
            grads, loss, accuracy = step_grads(state, feed(images[perm]), feed(labels[perm]))
            state = update(state, grads)
            losses.append(loss)  # kept on the device, as the HOWTO's epoch_loss list
        jax.block_until_ready(state)
        return state, losses

    def test_accuracy(state):
        """The ensemble's accuracy on the test set: the members' pmean'd softmax, 1000 images a call."""
        correct = 0
        for chunk, truth in chunks:
            probabilities = np.asarray(predict(state, feed(chunk))[0])  # every member holds the mean
            correct += int((probabilities.argmax(-1) == truth).sum())
        return correct / test.shape[0]

    if a.until_accuracy is not None:
        train_until(a, steps_per_epoch, state, rng, perms, run, test_accuracy)
        return
    if a.repeats < 1:
        raise SystemExit("flax_peer.py: --repeats must be at least 1")
    state, _ = run(0, a.warmup, state, perms)
    jax.block_until_ready(predict(state, feed(chunks[0][0])))  # compiled outside the timing
    samples = []
    for r in range(a.repeats):  # each window continues the batches where the last one stopped
        start = time.perf_counter()
        state, losses = run(a.warmup + r * a.steps, a.steps, state, perms)
        seconds = time.perf_counter() - start
        start = time.perf_counter()
        test_accuracy(state)
        evaluation = time.perf_counter() - start
        samples.append({"images_per_second": a.steps * a.batch_size * a.members / seconds,
                        "eval_images_per_second": test.shape[0] / evaluation})
    stats = device.memory_stats() if hasattr(device, "memory_stats") else None
    peak = (stats or {}).get("peak_bytes_in_use")
    print(json.dumps({"side": "flax", "jax": jax.__version__, "mapping": "pmap" if pmapped else "vmap",
                      "members": a.members, "devices": len(jax.local_devices()), "batch_size": a.batch_size,
                      "steps": a.steps, "warmup": a.warmup, "device": getattr(device, "device_kind", str(device)),
                      "platform": device.platform, "precision": a.precision,
                      "images_per_second": statistics.median(x["images_per_second"] for x in samples),
                      "eval_images_per_second": statistics.median(x["eval_images_per_second"] for x in samples),
                      "samples": samples,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "peak_gpu_memory_mb": peak / 2 ** 20 if peak is not None and device.platform == "gpu" else None,
                      "last_loss": float(np.asarray(losses[-1]).ravel()[0])}))


def train_until(a, steps_per_epoch, state, rng, perms, run, test_accuracy):
    """--until-accuracy: epochs of `run` over the HOWTO's permutations (`perms` the first, then
    one split off `rng` each epoch), scored by `test_accuracy(state)` as until_accuracy.Race
    says, until it reaches the target or a.max_epochs are done."""
    race = until_accuracy.Race(a, steps_per_epoch, PROCESS_START)
    done = 0
    for epoch in range(a.max_epochs):
        if epoch > 0:
            rng, input_rng = jax.random.split(rng)
            perms = jax.random.permutation(input_rng, perms.shape[0])
        i = 0
        while i < steps_per_epoch:
            count = min(race.every - done % race.every, steps_per_epoch - i)  # up to the next evaluation
            state, _ = run(i, count, state, perms)
            i, done = i + count, done + count
            if race.due(done, i) and race.evaluated(done, test_accuracy(state)):
                return race.finish()
    race.finish()


if __name__ == "__main__":
    main()
