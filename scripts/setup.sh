#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The first command of the README: install, build, and open EnsembleLab's window on
# Fashion-MNIST. With no display at all it says so and runs the CLI's main job instead:
# an ensemble of four CNNs on Fashion-MNIST on four CPU replicas, with a live progress
# line (EPOCHS, default 1, sets how long).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# What it runs, no more: the window and the CLI (the tests are scripts/test.sh's job).
TARGETS="ensemble-lab ensemble-lab-cli" bash scripts/build.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/ensemble-lab ]; then
  exec ./build/app/ensemble-lab
fi
echo "setup: no display found (DISPLAY and WAYLAND_DISPLAY are empty), so the window cannot open;" >&2
echo "setup: running the CLI's main job instead. For the window: xvfb-run -a ./build/app/ensemble-lab" >&2
exec ./build/app/ensemble-lab-cli train --dataset fashion-mnist --model cnn --mode ensemble \
  --devices 'cpu*4' --epochs "${EPOCHS:-1}"
