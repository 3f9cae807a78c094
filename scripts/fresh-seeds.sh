#!/usr/bin/env bash
# Runs every RapidCheck property of the built test binaries on fresh random
# seeds (not in CI: ctest runs them on the fixed seeds of
# tests/rapidcheck_seeds.txt). Prints each failing seed as the line that
# file takes, so a failure found here becomes a fixed regression case.
#   scripts/fresh-seeds.sh [BUILD_DIR] [ROUNDS]     (defaults: build 20)
# Exit 0 all passed, 1 some seed failed, 2 usage.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${2:-20}
if ! [[ "$rounds" =~ ^[0-9]+$ ]] || [ ! -d "$build" ]; then
  echo "usage: scripts/fresh-seeds.sh [BUILD_DIR] [ROUNDS]" >&2
  exit 2
fi

# Suite.Name of every property in the sources.
mapfile -t properties < <(grep -rhoE --include='*.cc' --exclude-dir='build*' \
    'RC_GTEST_(FIXTURE_)?PROP\( *[A-Za-z0-9_]+, *[A-Za-z0-9_]+' . |
  sed -E 's/.*PROP\( *([A-Za-z0-9_]+), *([A-Za-z0-9_]+)/\1.\2/' | sort -u)

# The test binaries that hold some of them, with the filter naming them.
binaries=()
filters=()
for binary in $(find "$build" -name '*_tests' -type f -perm -u+x | sort); do
  listed=$("$binary" --gtest_list_tests 2>/dev/null |
    awk '/^[^ ]/ {suite=$1} /^  / {print suite $1}') || continue
  held=()
  for property in "${properties[@]}"; do
    if grep -qxF "$property" <<<"$listed"; then held+=("$property"); fi
  done
  if [ ${#held[@]} -gt 0 ]; then
    binaries+=("$binary")
    filters+=("$(IFS=:; echo "${held[*]}")")
  fi
done
if [ ${#binaries[@]} -eq 0 ]; then
  echo "fresh-seeds: no built test binary under $build holds a property (build the *_tests first)" >&2
  exit 2
fi

failed=0
for round in $(seq 1 "$rounds"); do
  seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
  for i in "${!binaries[@]}"; do
    binary=${binaries[$i]}
    if out=$(RC_PARAMS="seed=$seed" "$binary" --gtest_filter="${filters[$i]}" 2>&1); then continue; fi
    for test in $(sed -nE 's/^\[  FAILED  \] ([A-Za-z0-9_.]+) \(.*/\1/p' <<<"$out"); do
      echo "$(basename "$binary") $test $seed"
      failed=1
    done
  done
done
echo "fresh-seeds: $rounds rounds over ${#binaries[@]} binaries ($(IFS=' '; echo "${properties[*]}" | wc -w) properties);" \
  "$([ $failed -eq 0 ] && echo "no failure" || echo "add the lines above to tests/rapidcheck_seeds.txt once fixed")" >&2
exit $failed
