#!/usr/bin/env bash
# Runs the non-live suite N times in one build and says whether every run
# gave the same result: a test that passes on one run and fails on another
# is a flake, whatever the cause. Each run's per-test outcome (passed,
# failed, skipped, timeout, not-run, ...) is kept, so a flake is named with
# the runs it differed on, and the ctest output of every run stays for the
# failing test's log.
#   nice -n 19 scripts/repeat-ctest.sh N [BUILD_DIR] [-- CTEST_ARGS...]
# CTEST_ARGS default to CI's: -j2 -LE live --output-on-failure. Results go to
# BUILD_DIR/repeat-ctest/ (run-K.outcomes "test outcome" lines, run-K.log the
# ctest output); an interrupted series still prints the summary of the runs
# it finished. Exit 0 all runs identical, 1 some test differed, 2 usage or no
# run finished.
set -uo pipefail
if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
  echo "usage: scripts/repeat-ctest.sh N [BUILD_DIR] [-- CTEST_ARGS...]" >&2
  exit 2
fi
runs=$1 build=${2:-build}
shift $(($# >= 2 ? 2 : 1))
[ "${1:-}" = "--" ] && shift
ctest_args=("$@")
[ ${#ctest_args[@]} -eq 0 ] && ctest_args=(-j2 -LE live --output-on-failure)
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  echo "repeat-ctest: $build is not a configured build (no CTestTestfile.cmake)" >&2
  exit 2
fi
out=$build/repeat-ctest
rm -rf "$out"
mkdir -p "$out"
done_runs=0

# "name outcome" per test, sorted, from ctest's progress lines, e.g.
#   12/458 Test  #12: Foo.Bar ......................***Failed    0.02 sec
outcomes() {
  sed -n -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.*(.*) +[0-9.]+ sec$/\1 \2/p' "$1" |
    awk '{name = $1; $1 = ""; gsub(/^ +|\*/, ""); gsub(/ +/, "-"); print name, tolower($0)}' | sort
}

summary() {
  if [ "$done_runs" -eq 0 ]; then
    echo "repeat-ctest: no run finished" >&2
    exit 2
  fi
  # Every (test, outcome) pair with the runs it occurred in; a test with
  # more than one outcome differed.
  for k in $(seq 1 "$done_runs"); do awk -v k="$k" '{print $1, $2, k}' "$out/run-$k.outcomes"; done |
    awk '{seen[$1 " " $2] = seen[$1 " " $2] "," $3; count[$1]++; outcomes[$1] = outcomes[$1] " " $2}
         END {for (pair in seen) {split(pair, p, " "); print p[1], p[2], substr(seen[pair], 2)}}' |
    sort >"$out/pairs"
  awk '{n[$1]++} END {for (t in n) if (n[t] > 1) print t}' "$out/pairs" | sort >"$out/differed"
  # A test missing from some run differs too.
  awk -v runs="$done_runs" '{split($3, r, ","); total[$1] += length(r)} END {for (t in total) if (total[t] != runs) print t}' \
    "$out/pairs" | sort >"$out/missing"
  sort -u "$out/differed" "$out/missing" >"$out/flaky"
  tests=$(awk '{print $1}' "$out/pairs" | sort -u | wc -l)
  echo "repeat-ctest: $done_runs of $runs runs finished (ctest ${ctest_args[*]}), $tests tests"
  if [ ! -s "$out/flaky" ]; then
    echo "repeat-ctest: all $done_runs runs gave identical results: $(awk '{print $2}' "$out/run-1.outcomes" | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep = ", "}')"
    [ "$done_runs" -eq "$runs" ] && exit 0
    exit 2
  fi
  echo "repeat-ctest: NOT identical: $(wc -l <"$out/flaky") tests differed between runs:"
  while read -r test; do
    echo "  $test: $(awk -v t="$test" '$1 == t {printf "%s%s in runs %s", sep, $2, $3; sep = "; "}' "$out/pairs")"
  done <"$out/flaky"
  echo "repeat-ctest: each run's ctest output is in $out/run-K.log"
  exit 1
}
# A signal ends the series after the run in progress, which is not counted.
interrupted=0
trap 'interrupted=1' INT TERM

for k in $(seq 1 "$runs"); do
  start=$(date +%s)
  (cd "$build" && exec ctest "${ctest_args[@]}") >"$out/run-$k.log" 2>&1 &
  wait $! 2>/dev/null
  code=$?
  if [ "$interrupted" -eq 1 ]; then
    kill "$!" 2>/dev/null
    wait "$!" 2>/dev/null
    echo "repeat-ctest: interrupted during run $k, which is not counted"
    break
  fi
  outcomes "$out/run-$k.log" >"$out/run-$k.outcomes"
  if [ ! -s "$out/run-$k.outcomes" ]; then
    echo "repeat-ctest: run $k (ctest exit $code) reported no test; its output is in $out/run-$k.log" >&2
    break
  fi
  done_runs=$k
  same="identical to run 1"
  cmp -s "$out/run-1.outcomes" "$out/run-$k.outcomes" || same="DIFFERS from run 1"
  echo "run $k/$runs: ctest exit $code, $(grep -c ' passed$' "$out/run-$k.outcomes") passed, $(grep -vc ' passed$' "$out/run-$k.outcomes") other, $(($(date +%s) - start)) s, $same"
done
summary
