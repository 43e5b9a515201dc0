#!/usr/bin/env bash
# Sets up nnir on Debian 12 and shows it working: installs the Debian packages
# it needs (only those missing), configures a Release build with Ninja in
# build/, builds everything and runs nnir-opt on the bundled example model.
# Safe to run again: every step is skipped or incremental when already done.
#
#   bash .ci/setup.sh            # as root, or as a user with sudo
#   BUILD_DIR=out bash .ci/setup.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
build_dir=${BUILD_DIR:-build}

packages=(cmake ninja-build g++ python3 llvm-19-dev llvm-19-tools
          libgtest-dev libbenchmark-dev ccache libzip-dev libjemalloc-dev
          libzstd-dev python3-numpy python3-dev pybind11-dev python3-pybind11
          python3-pytest
          libonnx-dev libprotobuf-dev python3-onnx libonnx-testdata)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [[ ! -f $build_dir/build.ninja ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    "${launcher[@]}"
fi
cmake --build "$build_dir"

echo "setup: $build_dir/bin/nnir-opt examples/mlp.nnir"
"$build_dir/bin/nnir-opt" examples/mlp.nnir
echo # The metadata section ends without a newline.
