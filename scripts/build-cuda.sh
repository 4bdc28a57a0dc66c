#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The second build: EnsembleLab against the CUDA LibTorch of PyPI's torch wheel (CUDA, cuDNN
# and NCCL), into build-cuda/, from the same sources as build/ (Debian's LibTorch 1.13, CPU).
# The wheel lives in a virtual environment in a cache folder (scripts/torch-venv.sh pins its
# version); CMake finds the wheel's nvidia-nccl by itself (NCCL_ROOT overrides) and checks
# that the wheel's CUDA major version is the toolkit's. Needs the CUDA toolkit (nvcc) and
# the Debian packages of scripts/install-deps.sh. Builds with no GPU attached.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$(bash scripts/torch-venv.sh)"
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "build-cuda: no CUDA toolkit (nvcc): install NVIDIA's CUDA toolkit, the same major version as the torch wheel's CUDA" >&2
  exit 1
fi
export PATH="$PATH:/usr/local/cuda/bin"
torch_prefix="$("$venv/bin/python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B build-cuda "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$torch_prefix" \
  -DENSEMBLELAB_TEST_PYTHON="$venv/bin/python" -DENSEMBLELAB_TORCHRUN="$venv/bin/torchrun" "$@"
cmake --build build-cuda -j "${JOBS:-2}"
