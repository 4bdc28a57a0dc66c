#!/usr/bin/env bash
# The first command of the README: install, build, and run the main job -- an ensemble of
# four CNNs trained on Fashion-MNIST on four CPU replicas, with a live progress line.
# EPOCHS (default 1) sets how long it trains; the run folder is printed at the start.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
exec ./build/app/ensemble-lab-cli train --dataset fashion-mnist --model cnn --mode ensemble \
  --devices 'cpu*4' --epochs "${EPOCHS:-1}"
