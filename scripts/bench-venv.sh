#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The Flax HOWTO's program, a peer of bench/run_bench.py, needs jax, flax and optax (CPU),
# which Debian does not package; bench/plot_scaling.py needs matplotlib. (The current-PyTorch
# peer runs in scripts/torch-venv.sh's environment.)
# Creates or completes a virtual environment in the cache folder, never in the system Python,
# and prints its folder on stdout; progress goes to stderr:
#   ${ENSEMBLELAB_CACHE:-${XDG_CACHE_HOME:-~/.cache}/ensemblelab}/bench-jax-<version>
set -euo pipefail
JAX_VERSION=0.10.2
FLAX_VERSION=0.12.8
OPTAX_VERSION=0.2.8
MATPLOTLIB_VERSION=3.11.2

cache="${ENSEMBLELAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ensemblelab}"
venv="$cache/bench-jax-$JAX_VERSION"
if ! "$venv/bin/python" -c "import jax, flax, optax, matplotlib, sys; sys.exit(jax.__version__ != '$JAX_VERSION')" 2>/dev/null; then
  echo "bench-venv: installing jax $JAX_VERSION, flax $FLAX_VERSION, optax $OPTAX_VERSION into $venv" >&2
  python="${PYTHON:-python3}"
  if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "bench-venv: $python cannot create virtual environments; install python3-venv (apt install python3-venv)" >&2
    exit 1
  fi
  mkdir -p "$cache"
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --no-cache-dir "jax==$JAX_VERSION" "flax==$FLAX_VERSION" "optax==$OPTAX_VERSION" \
    "matplotlib==$MATPLOTLIB_VERSION" >&2
fi
echo "$venv"
