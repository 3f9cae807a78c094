#!/usr/bin/env bash
# Installs, from Debian's apt, whatever is missing of:
#   (no option)  what the build of the `leasesim` command and its libraries
#                needs (`make demo`, `make install`): compiler, CMake, Ninja,
#                Boost.Context, Abseil, nlohmann/json, CLI11, libcurl,
#                cpp-httplib;
#   --tests      that, and what the tests need: GoogleTest, RapidCheck,
#                Google Benchmark, etcd and openssl for the live tests,
#                Chromium and fonts for the report's browser test, xmllint
#                for the JUnit schema check, promtool (Debian's prometheus)
#                for the metrics exposition check, help2man for the man page
#                (the build skips the page without it), clang 14 with its
#                sanitizer and libFuzzer runtimes for the clang build and the
#                parser fuzzers (tests/portability), dpkg-dev for the package
#                test (tests/package), valgrind for the speed guard's
#                instruction count (bench_guard, docs/PERFORMANCE.md);
#   --package    the build's, and help2man and dpkg-dev for `make package`.
# Idempotent: a second run installs nothing and takes well under a second.
set -euo pipefail
packages=(
  g++ cmake ninja-build make pkg-config
  libboost-context-dev libabsl-dev nlohmann-json3-dev libcli11-dev
  libcurl4-openssl-dev libcpp-httplib-dev
)
case "${1:-}" in
  "") ;;
  --tests)
    packages+=(librapidcheck-dev libgtest-dev libgmock-dev libbenchmark-dev etcd-server openssl
               chromium fonts-dejavu-core libxml2-utils prometheus help2man clang-14 libclang-rt-14-dev dpkg-dev valgrind) ;;
  --package)
    packages+=(help2man dpkg-dev) ;;
  *)
    echo "usage: scripts/install-deps.sh [--tests | --package]" >&2
    exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
