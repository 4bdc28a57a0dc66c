# SPDX-License-Identifier: GPL-3.0-or-later
"""EnsembleLab's models in torch.nn (core/models/*.cpp), module for module, so that their
state_dict keys and shapes are the checkpoints'. Images are N x C x H x W floats in [0, 1]
(uint8 pixels divided by 255, as EnsembleLab feeds them)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Cnn(nn.Module):
    """Flax's MNIST CNN: "same" 3x3 convolutions of 32 and 64 channels, each followed by ReLU
    and 2x2 average pooling, then Dense 256 and Dense `classes`."""

    def __init__(self, channels=1, height=28, width=28, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.dense1 = nn.Linear(64 * (height // 4) * (width // 4), 256)
        self.dense2 = nn.Linear(256, classes)

    def forward(self, x):
        x = F.avg_pool2d(F.relu(self.conv1(x)), 2)
        x = F.avg_pool2d(F.relu(self.conv2(x)), 2)
        return self.dense2(F.relu(self.dense1(x.flatten(1))))


class LeNet(nn.Module):
    """LeNet-5 as d2l.ai builds it: a "same" 5x5 convolution of 6, a valid 5x5 of 16, each
    with ReLU and 2x2 average pooling, then 120, 84 and `classes` units."""

    def __init__(self, channels=1, height=28, width=28, classes=10):
        super().__init__()

        def side(s):
            return (s // 2 - 4) // 2

        self.conv1 = nn.Conv2d(channels, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * side(height) * side(width), 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, classes)

    def forward(self, x):
        x = F.avg_pool2d(F.relu(self.conv1(x)), 2)
        x = F.avg_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc3(F.relu(self.fc2(x)))


class Residual(nn.Module):
    """d2l's residual block: conv-BN-ReLU-conv-BN plus the input (a 1x1 convolution when the
    shape changes), then ReLU."""

    def __init__(self, in_channels, out_channels, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, padding=1, stride=stride)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.shortcut = (nn.Conv2d(in_channels, out_channels, 1, stride=stride)
                         if stride != 1 or in_channels != out_channels else None)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (self.shortcut(x) if self.shortcut is not None else x))


class ResNet18(nn.Module):
    """d2l.ai 13.6's ResNet-18 for small images: a 3x3 stem without max-pooling, four stages
    of two residual blocks (64, 128, 256, 512 channels), global average pooling, `fc`."""

    def __init__(self, channels=1, height=28, width=28, classes=10):
        super().__init__()
        layers = [nn.Conv2d(channels, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU()]
        previous = 64
        for stage in (64, 128, 256, 512):
            layers += [Residual(previous, stage, 1 if stage == 64 else 2), Residual(stage, stage, 1)]
            previous = stage
        layers.append(nn.AdaptiveAvgPool2d((1, 1)))
        self.body = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        return self.fc(self.body(x).flatten(1))


MODELS = {"cnn": Cnn, "lenet": LeNet, "resnet18": ResNet18}


def make_model(name, channels=1, height=28, width=28, classes=10):
    """The model EnsembleLab calls `name` (config.json's "model") for images of that shape."""
    if name not in MODELS:
        raise ValueError(f"unknown model '{name}'; EnsembleLab's models are {', '.join(sorted(MODELS))}")
    return MODELS[name](channels, height, width, classes)


class Ensemble(nn.Module):
    """The ensemble's prediction: the mean of its members' softmax probabilities (not logits),
    as EnsembleLab's all-reduce computes it. forward returns probabilities, N x classes."""

    def __init__(self, members):
        super().__init__()
        if len(members) == 0:
            raise ValueError("an ensemble needs at least one member")
        self.members = nn.ModuleList(members)

    def forward(self, x):
        return torch.stack([F.softmax(member(x), dim=1) for member in self.members]).mean(0)
