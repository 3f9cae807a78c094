#!/usr/bin/env bash
# Installs, from Debian's apt, whatever the build (and, with --tests, the
# tests) need and is missing. Idempotent: a second run installs nothing and
# takes well under a second.
#   --tests  also the test-only tools: Chromium and fonts for the report's
#            browser test, xmllint for the JUnit schema check, promtool
#            (Debian's prometheus) for the metrics exposition check, help2man
#            for the man page (the build skips the page without it), clang 14
#            with its sanitizer and libFuzzer runtimes for the clang build
#            and the parser fuzzers (tests/portability), valgrind for the
#            speed guard's instruction count (bench_guard, docs/PERFORMANCE.md).
set -euo pipefail
packages=(
  g++ cmake ninja-build make pkg-config
  libboost-context-dev libabsl-dev librapidcheck-dev
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
  libcurl4-openssl-dev etcd-server libcpp-httplib-dev openssl
)
if [ "${1:-}" = "--tests" ]; then
  packages+=(chromium fonts-dejavu-core libxml2-utils prometheus help2man clang-14 libclang-rt-14-dev valgrind)
fi
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
