#!/usr/bin/env bash
# Installs leasesim into a fresh prefix, builds examples/ttl_lock against
# it (as a team with its own lease code would), and runs the example's
# harness: fuzz must find the deliberate mistake of "ttl-lock" and shrink
# it to a counterexample that replays; "ttl-lock-fixed" must pass a sweep
# and, where etcd is installed, a live run with a leader killed.
#   check_example.sh CMAKE BUILD_DIR EXAMPLE_SRC WORK_DIR CXX GENERATOR [CXX_FLAGS]
set -euo pipefail
cmake=$1 build=$2 example=$3 work=$4 cxx=$5 generator=$6 flags=${7:-}
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log"
"$cmake" -S "$example" -B "$work/build" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$work/configure.log" \
  || { cat "$work/configure.log" >&2; exit 1; }
"$cmake" --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
harness="$work/build/ttl-lock-harness"

# The harness knows the protocols the example registered, and no others.
"$harness" run --help | grep -q "ttl-lock-fixed" || { echo "run --help does not list ttl-lock-fixed" >&2; exit 1; }

# 1. The generic search finds the mistake of the protocol as shipped.
set +e
"$harness" fuzz --protocol ttl-lock --runs 500 --seed 1 --out "$work/fuzz" >"$work/fuzz.log" 2>&1
code=$?
set -e
cat "$work/fuzz.log"
if [ "$code" -ne 1 ]; then echo "fuzz --protocol ttl-lock exited $code, not 1 (a counterexample)" >&2; exit 1; fi
counterexample="$work/fuzz/counterexample.json"
[ -s "$counterexample" ] || { echo "no counterexample written" >&2; exit 1; }
grep -q '"protocol": "ttl-lock"' "$counterexample" || { echo "the counterexample does not name its protocol" >&2; exit 1; }

# 2. The shrunk counterexample replays: the same violation, run again.
seed=$(sed -n 's/^  replay: .* --seed \([0-9]*\)$/\1/p' "$work/fuzz.log")
[ -n "$seed" ] || { echo "fuzz printed no replay command" >&2; exit 1; }
set +e
"$harness" run "$counterexample" --seed "$seed" --out "$work/replay" --quiet >"$work/replay.log" 2>&1
code=$?
set -e
if [ "$code" -ne 1 ]; then cat "$work/replay.log"; echo "the counterexample did not fail again (exit $code)" >&2; exit 1; fi

# 3. With the mistake fixed, the protocol passes the example's sweep.
"$harness" run "$example/scenarios.json" --protocol ttl-lock-fixed --seeds 1-5 --out "$work/fixed" --quiet \
  >"$work/fixed.log" 2>&1 || { cat "$work/fixed.log"; echo "ttl-lock-fixed failed its sweep" >&2; exit 1; }
# 4. Live, the same way: the example's own protocol in real node processes
# (started as `ttl-lock-harness live-node`) against a real etcd cluster.
if [ -x /usr/bin/etcd ]; then
  "$harness" live --protocol ttl-lock-fixed --duration 10 --faults kill:leader@3+2 --out "$work/live" \
    >"$work/live.log" 2>&1 || { cat "$work/live.log"; echo "ttl-lock-fixed failed its live run" >&2; exit 1; }
  grep -q '"live-ttl-lock-fixed"' "$work/live/summary.json" || { echo "the live summary does not name the protocol" >&2; exit 1; }
  live="; live run passed"
else
  live="; no /usr/bin/etcd: live run skipped"
fi
echo "example ok: ttl-lock caught and replayed (seed $seed); ttl-lock-fixed passed${live:-}"
