#!/usr/bin/env bash
# Installs what tilec builds with (Debian packages) and builds it in build/.
#   scripts/setup.sh [cmake options...]
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake ninja-build g++ llvm-22-dev libmlir-22-dev mlir-22-tools
          llvm-22-tools libgtest-dev googletest python3 python3-pytest
          python3-numpy python3-matplotlib python3-pip python3-setuptools
          python3-wheel ccache)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/ptxas ] && ! command -v ptxas >/dev/null; then
  echo "warning: ptxas not found (CUDA toolkit): tilec can emit PTX but not cubins or bundles" >&2
fi

# An optimized build with assertions kept (TILEC_ENABLE_ASSERTIONS), as a
# user runs tilec; TILEC_BUILD_TYPE=Debug for development. The type is
# chosen when build/ is first configured; an existing build/ keeps its own.
type=${TILEC_BUILD_TYPE:-Release}
launcher=()
command -v ccache >/dev/null &&
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ -f build/CMakeCache.txt ]; then
  type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' build/CMakeCache.txt)
  cmake -S . -B build "$@" >/dev/null
else
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$type" "${launcher[@]}" "$@" >/dev/null
fi
echo "== building (build/, $type)"
ninja -C build -j"$(nproc)"
