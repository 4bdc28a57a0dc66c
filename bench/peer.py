#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The PyTorch peer: the same recipe in plain PyTorch. As people write it, members are trained
one after another in the Python loop; tuned, as an expert would on a CPU (bench/run_bench.py
picks per PyTorch version):
  --threads N        intra-op threads (OPENBLAS_NUM_THREADS=1 in the environment keeps
                     OpenBLAS's own pool from spinning against them)
  --channels-last    NHWC tensors for the convolutions (oneDNN's preferred layout)
  --vmap             the members as one vmapped function of stacked parameters (torch.func,
                     PyTorch's "model ensembling" recipe, the counterpart of Flax's vmap)
  --compile          torch.compile (inductor) of the step's model, or of the vmapped loss
Prints one JSON line like ensemble-lab-bench.

On a GPU (bench/run_bench.py --gpu): --device cuda puts the models, the stacked parameters
and the data set (once, as our engine does) on cuda:0; the clock is read after
torch.cuda.synchronize(), and the JSON adds the GPU's name and its peak allocated memory
(torch.cuda.max_memory_allocated, MiB). --precision fp32 is IEEE float32 (cuBLAS's and
cuDNN's TF32 switches off), tf32 turns them on, bf16 runs forward and loss under
torch.autocast(bfloat16) with float32 weights (as our engine's bf16). The optimizers are
torch.optim.SGD(lr 0.1, momentum 0.9, foreach=True) on the GPU. The default, --device cpu,
runs as before. The batches wrap around the epoch (a new pass of the same permutation), so
--steps may exceed one epoch at any batch size.

Time to accuracy (bench/time_to_accuracy.py): --until-accuracy A trains the same recipe over
the whole training set (--train-limit N: its first N images), shuffled each epoch, the last
partial batch dropped, and scores the ensemble (the members' mean softmax) on the test set
every round(F x steps per epoch) steps (--eval-fraction F) and at each epoch's end; it stops
at the first evaluation with accuracy >= A, or after --max-epochs. One JSON line per
evaluation, flushed at once, {"event": "evaluation", "step", "epoch", "accuracy", "seconds"},
then {"event": "done", "reached", "seconds_to_target", "evaluations", "peak_rss_mb"};
seconds count from the process's start (imports and data loading included)."""
import time

PROCESS_START = time.time()  # before the heavy imports: what --until-accuracy's seconds count from

import argparse, contextlib, copy, gzip, json, resource, statistics

import until_accuracy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Cnn(nn.Module):  # Flax's MNIST CNN, as core/models/Cnn
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.dense1 = nn.Linear(64 * 7 * 7, 256)
        self.dense2 = nn.Linear(256, 10)

    def forward(self, x):
        x = F.avg_pool2d(F.relu(self.conv1(x)), 2)
        x = F.avg_pool2d(F.relu(self.conv2(x)), 2)
        return self.dense2(F.relu(self.dense1(x.flatten(1))))


class Residual(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1, stride=stride)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.bn1, self.bn2 = nn.BatchNorm2d(cout), nn.BatchNorm2d(cout)
        self.shortcut = nn.Conv2d(cin, cout, 1, stride=stride) if stride != 1 or cin != cout else None

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(y + (self.shortcut(x) if self.shortcut is not None else x))


def resnet18():  # d2l 13.6's variant, as core/models/ResNet18
    layers, cin = [nn.Conv2d(1, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU()], 64
    for cout in (64, 128, 256, 512):
        layers += [Residual(cin, cout, 1 if cout == 64 else 2), Residual(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 10)]
    return nn.Sequential(*layers)


def forward_flops(model, shape):
    """Multiply-adds x2 of the convolutions and linear layers for one image."""
    total = [0]

    def conv_hook(m, inp, out):
        total[0] += 2 * out.numel() // out.shape[0] * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]

    def linear_hook(m, inp, out):
        total[0] += 2 * m.in_features * m.out_features

    hooks = [m.register_forward_hook(conv_hook if isinstance(m, nn.Conv2d) else linear_hook)
             for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    with torch.no_grad():
        model.eval()
        model(torch.zeros(1, *shape))
        model.train()
    for h in hooks:
        h.remove()
    return total[0]


def idx(path, header):
    with gzip.open(path) as f:
        return np.frombuffer(f.read(), np.uint8)[header:]


def loaded_blas():
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libblas" in line or "libopenblas" in line:
                return line[line.index("/"):].strip()
    # The PyPI wheels link MKL into libtorch_cpu: no BLAS library of its own is mapped.
    return "MKL, linked into libtorch_cpu" if torch.backends.mkl.is_available() else "none"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="cnn")
    p.add_argument("--members", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--test-limit", type=int, default=10000)
    p.add_argument("--channels-last", action="store_true")
    p.add_argument("--vmap", action="store_true")
    p.add_argument("--seed", type=int, default=0, help="the members' initialisation and the batches' order")
    p.add_argument("--compile", action="store_true")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="cuda: cuda:0")
    p.add_argument("--precision", choices=("fp32", "tf32", "bf16"), default="fp32",
                   help="fp32: IEEE float32 (TF32 off on a GPU); tf32: TF32 on; bf16: autocast to bfloat16")
    p.add_argument("--repeats", type=int, default=1,
                   help="timed windows of --steps steps (each followed by a timed evaluation) after the one "
                        "warm-up, in this process: the JSON gives their medians and each in 'samples'")
    p.add_argument("--sgemm", action="store_true", help="measure the sgemm peak and exit")
    until_accuracy.add_arguments(p)
    a = p.parse_args()
    if a.vmap and a.model != "cnn":
        p.error("--vmap needs a model without batch-norm buffers: --model cnn")
    if a.threads:
        torch.set_num_threads(a.threads)
    cuda = a.device == "cuda"
    if cuda and not torch.cuda.is_available():
        raise SystemExit(f"peer.py: --device cuda, but this torch ({torch.__version__}, CUDA {torch.version.cuda}) "
                         "sees no CUDA device")
    device = torch.device("cuda:0" if cuda else "cpu")
    if cuda:  # fp32 means IEEE float32: TF32 only when asked for
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
    autocast = ((lambda: torch.autocast(device_type=device.type, dtype=torch.bfloat16)) if a.precision == "bf16"
                else contextlib.nullcontext)

    def synchronize():  # before reading a clock: the GPU's queued work is part of the time
        if cuda:
            torch.cuda.synchronize()
    if a.sgemm:
        x, y = torch.rand(2048, 2048), torch.rand(2048, 2048)
        torch.mm(x, y)
        times = []
        for _ in range(5):
            t = time.perf_counter(); torch.mm(x, y); times.append(time.perf_counter() - t)
        print(json.dumps({"sgemm_gflops": 2 * 2048 ** 3 / min(times) / 1e9, "threads": torch.get_num_threads(),
                          "blas": loaded_blas()}))
        return
    root = "/usr/share/datasets/fashion-mnist/"
    train_rows = a.train_limit or None
    images = torch.from_numpy(idx(root + "train-images-idx3-ubyte.gz", 16).copy()).view(-1, 1, 28, 28)[:train_rows]
    labels = torch.from_numpy(idx(root + "train-labels-idx1-ubyte.gz", 8).copy()).long()[:train_rows]
    test = torch.from_numpy(idx(root + "t10k-images-idx3-ubyte.gz", 16).copy()).view(-1, 1, 28, 28)[: a.test_limit]
    test_labels = torch.from_numpy(idx(root + "t10k-labels-idx1-ubyte.gz", 8).copy()).long()[: a.test_limit]
    make = Cnn if a.model == "cnn" else resnet18
    torch.manual_seed(a.seed)
    models = [make() for _ in range(a.members)]
    flops = 3 * forward_flops(models[0], (1, 28, 28))
    layout = torch.channels_last if a.channels_last else torch.contiguous_format
    models = [m.to(device=device, memory_format=layout) for m in models]
    if cuda:  # the data set on the GPU once, as our engine moves it to each device
        images, labels, test, test_labels = (t.to(device) for t in (images, labels, test, test_labels))
    order = torch.randperm(images.shape[0], device=device)
    steps_per_epoch = max(1, images.shape[0] // a.batch_size)
    # foreach=True is torch's default for CUDA tensors; on the CPU the default stays.
    foreach = True if cuda else None

    def batch(order, i):  # the i-th batch of a permutation of the training images (wrapping)
        i %= steps_per_epoch
        rows = order[i * a.batch_size:(i + 1) * a.batch_size]
        return (images[rows].float() / 255).contiguous(memory_format=layout), labels[rows]

    if a.vmap:
        from torch.func import functional_call, stack_module_state, vmap
        params, buffers = stack_module_state(models)
        skeleton = copy.deepcopy(models[0]).to("meta")

        def logits_of(p, b, x):
            return functional_call(skeleton, (p, b), (x,))

        ensemble_logits = vmap(logits_of, in_dims=(0, 0, None))
        if a.compile:
            ensemble_logits = torch.compile(ensemble_logits)
        optimizer = torch.optim.SGD(list(params.values()), lr=0.1, momentum=0.9, foreach=foreach)

        def step(x, y):
            with autocast():
                logits = ensemble_logits(params, buffers, x)  # [members, batch, 10]
                # The members' parameters are disjoint: the sum's gradient is each member's own.
                loss = F.cross_entropy(logits.flatten(0, 1), y.repeat(a.members), reduction="sum") / y.shape[0]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        def evaluate(chunk):
            with autocast():
                return torch.softmax(ensemble_logits(params, buffers, chunk).float(), -1).mean(0)
    else:
        run = [torch.compile(m) for m in models] if a.compile else models
        optimizers = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, foreach=foreach) for m in models]

        def step(x, y):
            for m, o in zip(run, optimizers):
                o.zero_grad()
                with autocast():
                    loss = F.cross_entropy(m(x), y)
                loss.backward()
                o.step()

        def evaluate(chunk):
            with autocast():
                return torch.stack([torch.softmax(m(chunk).float(), 1) for m in run]).mean(0)

    def test_accuracy(chunks=None):
        """The ensemble's accuracy on the test set (its members' mean softmax), in chunks of 1000
        (the first `chunks` of them only, when given: a warm-up)."""
        for m in models:
            m.eval()
        correct = 0
        with torch.no_grad():
            for chunk, truth in list(zip(test.split(1000), test_labels.split(1000)))[:chunks]:
                probabilities = evaluate((chunk.float() / 255).contiguous(memory_format=layout))
                correct += int((probabilities.argmax(1) == truth).sum())
        for m in models:
            m.train()
        return correct / test.shape[0]

    if a.until_accuracy is not None:
        train_until(a, images.shape[0], lambda: torch.randperm(images.shape[0], device=device),
                    lambda order, i: step(*batch(order, i)), test_accuracy)
        return
    if a.repeats < 1:
        raise SystemExit("peer.py: --repeats must be at least 1")
    for i in range(a.warmup):
        step(*batch(order, i))
    synchronize()
    samples = []
    for r in range(a.repeats):  # each window continues the batches where the last one stopped
        first = a.warmup + r * a.steps
        start = time.perf_counter()
        for i in range(first, first + a.steps):
            step(*batch(order, i))
        synchronize()
        train = time.perf_counter() - start
        if cuda and r == 0:  # the evaluation's kernels (and torch.compile's eval-mode graph) outside its timing
            test_accuracy(chunks=1)
            synchronize()
        start = time.perf_counter()
        test_accuracy()
        synchronize()
        evaluation = time.perf_counter() - start
        samples.append({"images_per_second": a.steps * a.batch_size * a.members / train,
                        "eval_images_per_second": test.shape[0] / evaluation})
    print(json.dumps({"side": "peer", "torch": torch.__version__, "threads": torch.get_num_threads(),
                      "tuning": [k for k in ("channels_last", "vmap", "compile") if getattr(a, k)],
                      "model": a.model, "members": a.members,
                      "batch_size": a.batch_size, "steps": a.steps, "warmup": a.warmup,
                      "device": torch.cuda.get_device_name(device) if cuda else "cpu",
                      "precision": a.precision,
                      "images_per_second": statistics.median(x["images_per_second"] for x in samples),
                      "eval_images_per_second": statistics.median(x["eval_images_per_second"] for x in samples),
                      "samples": samples,
                      "train_flops_per_image": flops,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "peak_gpu_memory_mb": torch.cuda.max_memory_allocated(device) / 2 ** 20 if cuda else None,
                      "blas": loaded_blas()}))


def train_until(a, size, shuffle, step, test_accuracy):
    """--until-accuracy: epochs of `step(order, i)` (batch i of the permutation `order`, a new
    `shuffle()` of the `size` training images each epoch, the last partial batch dropped),
    scored by `test_accuracy()` as until_accuracy.Race says, until it reaches the target or
    a.max_epochs are done."""
    race = until_accuracy.Race(a, size // a.batch_size, PROCESS_START)
    done = 0
    for epoch in range(a.max_epochs):
        order = shuffle()
        for i in range(race.steps_per_epoch):
            step(order, i)
            done += 1
            if race.due(done, i + 1) and race.evaluated(done, test_accuracy()):
                return race.finish()
    race.finish()


if __name__ == "__main__":
    main()
