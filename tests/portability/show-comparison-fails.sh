#!/usr/bin/env bash
# Shows that the clang-vs-GCC trace-hash comparison CI runs
# (portability.trace_hashes_match_gcc) catches compiler-dependent
# nondeterminism. Not in CI: a reviewer runs it by hand (a few minutes with
# a warm ccache).
#
# It copies the checkout's tracked files into WORK/src, applies
# argument-order.patch there (the PRNG's range draw keeps the first of two
# draws passed as function arguments, whose evaluation order C++ leaves to
# the compiler), builds that leasesim with GCC and with clang, and runs
# scripts/compare-trace-hashes.sh on scenarios/ci.json seeds 1-20:
#   1. GCC's patched build against itself: identical (the patch is
#      deterministic for one compiler, so what follows is the compiler's
#      doing, not randomness);
#   2. GCC's patched build against clang's: must fail, naming the seeds.
# The checkout itself is never modified.
#   tests/portability/show-comparison-fails.sh [WORK] (default build-nondet)
# Exit 0 when the comparison failed as it must, 1 when it did not, 2 when
# something could not be built or run.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${1:-build-nondet}
gxx=${GXX:-g++}
clangxx=${CLANGXX:-$(command -v clang++-14 || command -v clang++ || true)}
if [ -z "$clangxx" ]; then
  echo "show-comparison-fails: no clang++ installed (scripts/install-deps.sh --tests)" >&2
  exit 2
fi
command -v patch >/dev/null || { echo "show-comparison-fails: needs patch(1)" >&2; exit 2; }

# The copy: tracked files as they are in the work tree, then the patch. The
# build folders sit inside it as build/ does in the checkout, so a shared
# ccache (relative paths) serves every file the patch leaves alone.
rm -rf "$work/src"
mkdir -p "$work/src"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$work/src"
patch -d "$work/src" -p1 --quiet <tests/portability/argument-order.patch

build() {  # build COMPILER DIR: the leasesim binary alone, no tests
  local compiler=$1 dir=$2
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$work/src" -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER="$compiler" -DBUILD_TESTING=OFF \
      -DLEASESIM_BENCHMARKS=OFF -DLEASESIM_WERROR=ON ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER} >/dev/null
  fi
  cmake --build "$dir" -j "${JOBS:-2}" --target leasesim >"$dir.log" 2>&1 || {
    echo "show-comparison-fails: building $dir failed:" >&2; tail -30 "$dir.log" >&2; exit 2; }
}
echo "== building the patched leasesim with $gxx and $clangxx"
build "$gxx" "$work/src/build-gcc"
build "$clangxx" "$work/src/build-clang"
gcc_bin=$work/src/build-gcc/leasesim clang_bin=$work/src/build-clang/leasesim

echo "== 1. patched GCC build against itself"
scripts/compare-trace-hashes.sh "$gcc_bin" "$gcc_bin" scenarios/ci.json 1-20 "$work/same" || {
  echo "show-comparison-fails: the patched GCC build does not agree with itself" >&2; exit 2; }

echo "== 2. patched GCC build against patched clang build (must fail)"
code=0
scripts/compare-trace-hashes.sh "$gcc_bin" "$clang_bin" scenarios/ci.json 1-20 "$work/cross" || code=$?
if [ "$code" -eq 1 ]; then
  echo "show-comparison-fails: OK: the comparison exited 1 on the compiler-dependent change"
  exit 0
fi
echo "show-comparison-fails: the comparison exited $code, not 1: it missed the compiler-dependent change" >&2
exit 1
