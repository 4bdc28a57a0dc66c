#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The PyPI torch wheel in a virtual environment of its own, for the CUDA build (its LibTorch:
# CUDA, cuDNN and NCCL), for reading our checkpoints in current PyTorch, for torchrun, and
# TensorBoard's own reader (the test that our event files read back in TensorBoard).
# Creates or completes the environment and prints its folder on stdout; progress goes to
# stderr. The environment lives in a cache folder, never in the system Python:
#   ${ENSEMBLELAB_CACHE:-${XDG_CACHE_HOME:-~/.cache}/ensemblelab}/torch-<version>
# TORCH_WHEEL_VERSION below is the one place the wheel's version is pinned.
set -euo pipefail
TORCH_WHEEL_VERSION=2.15.0
TENSORBOARD_VERSION=2.21.0

cache="${ENSEMBLELAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ensemblelab}"
venv="$cache/torch-$TORCH_WHEEL_VERSION"
python="${PYTHON:-python3}"
if ! "$venv/bin/python" -c "import numpy, torch, tensorboard, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_WHEEL_VERSION')" 2>/dev/null; then
  mkdir -p "$cache"
  if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "torch-venv: $python cannot create virtual environments; install python3-venv (apt install python3-venv)" >&2
    exit 1
  fi
  echo "torch-venv: installing torch $TORCH_WHEEL_VERSION into $venv (about 5 GB with its CUDA libraries)" >&2
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --no-cache-dir "torch==$TORCH_WHEEL_VERSION" numpy "tensorboard==$TENSORBOARD_VERSION" >&2
fi
echo "$venv"
