#!/usr/bin/env bash
# Runs one parser fuzz target (fuzz_parsers/) for a fixed number of
# executions from its committed corpus, on a fixed libFuzzer seed, so a CI
# run is a function of the commit. New inputs go to a scratch directory (the
# committed corpus is read, never written); a crash's input is kept under
# ARTIFACT_DIR and its reproduction command printed.
#   scripts/run-parser-fuzzer.sh FUZZER CORPUS_DIR RUNS ARTIFACT_DIR [LIBFUZZER_FLAGS...]
# Prints the executions, coverage (cov, ft) and corpus size; exit 0 clean,
# 1 a crash, leak, timeout or broken invariant, 2 usage.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: scripts/run-parser-fuzzer.sh FUZZER CORPUS_DIR RUNS ARTIFACT_DIR [LIBFUZZER_FLAGS...]" >&2
  exit 2
fi
fuzzer=$1 corpus=$2 runs=$3 artifacts=$4
shift 4
name=$(basename "$fuzzer")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$artifacts"
code=0
"$fuzzer" -runs="$runs" -seed=1 -max_len=16384 -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 \
  -artifact_prefix="$artifacts/$name-" "$@" "$scratch" "$corpus" >"$scratch.log" 2>&1 || code=$?
stats=$(grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$scratch.log" | tr '\n' ' ' || true)
last=$(grep -E '#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$scratch.log" | tail -1 || true)
echo "$name: ${stats}| ${last}"
if [ "$code" -ne 0 ]; then
  grep -E 'ERROR|SUMMARY|invariant|Test unit written|deadly signal' "$scratch.log" | head -20 >&2
  echo "$name: failed (exit $code); reproduce: $fuzzer $artifacts/$name-<crash file>" >&2
  rm -f "$scratch.log"
  exit 1
fi
rm -f "$scratch.log"
