#!/usr/bin/env bash
# Runs one scenario file over the same seeds with two leasesim binaries (say
# GCC's and clang's build) and fails if any run's trace hash differs: the
# determinism a seed's replay depends on must not depend on the compiler.
#   scripts/compare-trace-hashes.sh BINARY_A BINARY_B FILE SEEDS [WORK_DIR]
# Exit 0 every hash equal, 1 some differ (each named with both hashes, then
# the list of seeds), 2 usage or a run that could not be made.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: scripts/compare-trace-hashes.sh BINARY_A BINARY_B FILE SEEDS [WORK_DIR]" >&2
  exit 2
fi
a=$1 b=$2 file=$3 seeds=$4
work=${5:-$(mktemp -d)}
mkdir -p "$work"

# "scenario seed hash" per run, in the summary's order (scenario, then seed).
hashes() {
  local binary=$1 out=$2 code=0
  "$binary" run "$file" --seeds "$seeds" --out "$out" --jobs 2 --quiet >"$out.log" 2>&1 || code=$?
  if [ "$code" -gt 1 ]; then
    echo "compare-trace-hashes: $binary run $file --seeds $seeds exited $code:" >&2
    cat "$out.log" >&2
    exit 2
  fi
  awk '/"runs": \[/ {runs = 1}
       runs && /"scenario":/ {gsub(/[",]/, "", $2); scenario = $2}
       runs && /"seed":/ {gsub(/,/, "", $2); seed = $2}
       runs && /"trace_hash":/ {gsub(/[",]/, "", $2); print scenario, seed, $2}' "$out/summary.json"
}
hashes "$a" "$work/a" >"$work/a.hashes"
hashes "$b" "$work/b" >"$work/b.hashes"
count=$(wc -l <"$work/a.hashes")
if [ "$count" -eq 0 ]; then
  echo "compare-trace-hashes: no run in $work/a/summary.json" >&2
  exit 2
fi
if ! cmp -s "$work/a.hashes" "$work/b.hashes"; then
  # Joined on "scenario seed": each differing run once, with both hashes; a
  # run only one side made counts as differing too.
  awk 'NR == FNR {a[$1 " " $2] = $3; next}
       {key = $1 " " $2; b[key] = $3}
       END {for (key in a) if (!(key in b)) b[key] = "(no run)";
            for (key in b) if (!(key in a)) a[key] = "(no run)";
            for (key in a) if (a[key] != b[key]) print key, a[key], b[key]}' \
    "$work/a.hashes" "$work/b.hashes" | sort -k1,1 -k2,2n >"$work/differ"
  differ=$(wc -l <"$work/differ")
  echo "compare-trace-hashes: FAIL: $differ of $count runs ($file, seeds $seeds) have a different trace hash" >&2
  echo "  A = $a" >&2
  echo "  B = $b" >&2
  awk '{printf "  scenario %s seed %s: A %s, B %s\n", $1, $2, $3, $4}' "$work/differ" | head -20 >&2
  [ "$differ" -gt 20 ] && echo "  ... and $((differ - 20)) more ($work/differ)" >&2
  echo "  seeds that differ: $(awk '{print $2}' "$work/differ" | sort -n -u | paste -sd, -)" >&2
  echo "  scenarios that differ: $(awk '{print $1}' "$work/differ" | sort -u | paste -sd' ' -)" >&2
  echo "replay one on either side: BINARY replay $file --scenario NAME --seed N --trace FILE, then diff the traces" >&2
  exit 1
fi
echo "compare-trace-hashes: $count runs ($file, seeds $seeds), every trace hash identical"
