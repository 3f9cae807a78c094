#!/usr/bin/env bash
# Configures (once) and builds a clang build of the project in its own
# directory, only the targets asked for; used by the portability and
# fuzz_parsers ctests. ccache is used when the caller's environment names it.
# Warnings are errors (the project builds warning-free with clang 14);
# LEASESIM_CLANG_WERROR=OFF lets a newer clang's new warnings through.
#   scripts/clang-build.sh CLANGXX BUILD_DIR TARGET... [-- CMAKE_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
  echo "usage: scripts/clang-build.sh CLANGXX BUILD_DIR TARGET... [-- CMAKE_ARGS...]" >&2
  exit 2
fi
compiler=$1 dir=$2
shift 2
targets=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do targets+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
launcher=()
if [ -n "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$CMAKE_CXX_COMPILER_LAUNCHER"); fi
configure=(-DCMAKE_CXX_COMPILER="$compiler" -DLEASESIM_WERROR="${LEASESIM_CLANG_WERROR:-ON}" "${launcher[@]}" "$@")
# Configured once; again only when the arguments changed (kept beside it).
if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$dir/clang-build.args" 2>/dev/null)" != "${configure[*]}" ]; then
  cmake -S . -B "$dir" -G Ninja "${configure[@]}" >/dev/null
  echo "${configure[*]}" >"$dir/clang-build.args"
fi
cmake --build "$dir" -j "${JOBS:-2}" --target "${targets[@]}"
