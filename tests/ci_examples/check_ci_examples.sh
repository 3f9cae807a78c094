#!/usr/bin/env bash
# Runs the shard and merge commands of each CI example in docs/ci/ locally,
# as its engine would (the engine's variables set per job), and checks that
# the merged output is byte for byte what one unsharded run writes, with the
# same exit code. The commands are read from the example files (the lines
# marked "# leasesim-ci:shard", ":merge", ":env"), never copied here.
#   check_ci_examples.sh SOURCE_DIR BUILD_DIR WORK_DIR [SEEDS]
# With SEEDS (a sanitizer build, where the suite's 100 default seeds take
# too long four times over), every `leasesim run scenarios/ci.json`, the
# unsharded reference's and each shard's, runs `--seeds SEEDS` instead:
# fewer runs through the same commands, shards and merge.
set -euo pipefail
src=$1 build=$2 work=$3 seeds=${4:-}
examples="$src/docs/ci"
files=(summary.json junit.xml report.html timelines.json)
rm -rf "$work"
mkdir -p "$work"
unset LEASESIM_SHARD

fail() { echo "FAIL: $*" >&2; exit 1; }

# The one line of FILE marked TAG, without its marker and YAML list dash.
marked() {
  local file=$1 tag=$2 lines
  lines=$(grep -F "# leasesim-ci:$tag" "$file" || true)
  [ "$(grep -c . <<<"$lines")" = 1 ] || fail "$file: expected one line marked leasesim-ci:$tag"
  sed -e 's/[[:space:]]*# leasesim-ci:.*$//' -e 's/^[[:space:]]*//' -e 's/^- //' <<<"$lines"
}

# A job's working directory: the checkout's layout (build/, scenarios/) and
# leasesim on PATH (the Kubernetes image has it installed).
job_dir() {
  local dir="$work/$1"
  mkdir -p "$dir"
  ln -sfn "$build" "$dir/build"
  ln -sfn "$src/scenarios" "$dir/scenarios"
  echo "$dir"
}

# A run command with SEEDS given: --seeds added after the suite's file (a
# command that does not run the suite is an error, not left running all).
with_seeds() {
  local command=$1 run='leasesim run scenarios/ci.json'
  if [ -z "$seeds" ] || [[ "$command" != *"leasesim run "* ]]; then
    printf '%s' "$command"
    return
  fi
  [[ "$command" == *"$run "* ]] || fail "expected '$run' in: $command"
  printf '%s' "${command/"$run "/"$run --seeds $seeds "}"
}

# Runs one job's command; exit 0 or 1 are results, anything else is broken.
run_job() {
  local dir=$1 command code=0
  command=$(with_seeds "$2")
  (cd "$dir" && PATH="$build:$PATH" bash -c "$command") >"$dir/job.log" 2>&1 || code=$?
  [ "$code" -le 1 ] || { cat "$dir/job.log" >&2; fail "exit $code from: $command"; }
  echo "$code"
}

# The merged output against the unsharded run.
compare() {
  local name=$1 merged=$2 merge_code=$3
  for f in "${files[@]}"; do
    cmp -s "$reference/out/$f" "$merged/$f" || fail "$name: merged $f differs from the unsharded run's"
  done
  [ "$merge_code" = "$reference_code" ] || fail "$name: merge exited $merge_code, the unsharded run $reference_code"
  echo "ok $name: $(ls "$merged" | wc -l) files identical to the unsharded run, exit $merge_code"
}

reference=$(job_dir reference)
reference_code=$(run_job "$reference" "build/leasesim run scenarios/ci.json --out out --quiet")

# GitHub Actions: a matrix of shard values; ${{ matrix.shard }} and
# ${{ strategy.job-total }} are what GitHub substitutes.
github() {
  local file="$examples/github-actions-shards.yml" dir values count command code
  dir=$(job_dir github)
  values=$(grep -E '^[[:space:]]+shard: \[' "$file" | sed -e 's/.*\[//' -e 's/\].*//' -e 's/,/ /g')
  count=$(wc -w <<<"$values")
  [ "$count" -ge 2 ] || fail "$file: no shard matrix"
  for k in $values; do
    command=$(marked "$file" shard | sed -e "s/\${{ matrix.shard }}/$k/g" -e "s/\${{ strategy.job-total }}/$count/g")
    [[ "$command" != *'${{'* ]] || fail "$file: an expression this test does not know: $command"
    code=$(run_job "$dir" "$command")
  done
  code=$(run_job "$dir" "$(marked "$file" merge)")
  compare github "$dir/out/merged" "$code"
}

# GitLab CI: parallel: N jobs with CI_NODE_INDEX (1..N) and CI_NODE_TOTAL;
# the job's variables (LEASESIM_SHARD) expanded as GitLab does.
gitlab() {
  local file="$examples/gitlab-ci-shards.yml" dir count value command shard code
  dir=$(job_dir gitlab)
  count=$(grep -E '^[[:space:]]+parallel: [0-9]+' "$file" | sed 's/.*parallel: //')
  [ -n "$count" ] || fail "$file: no parallel: N"
  value=$(marked "$file" env | sed 's/^LEASESIM_SHARD:[[:space:]]*//')
  command=$(marked "$file" shard)
  for k in $(seq 1 "$count"); do
    shard=$(CI_NODE_INDEX=$k CI_NODE_TOTAL=$count bash -c "printf '%s' $value")
    code=$(CI_NODE_INDEX=$k CI_NODE_TOTAL=$count LEASESIM_SHARD=$shard run_job "$dir" "$command")
  done
  code=$(run_job "$dir" "$(marked "$file" merge)")
  compare gitlab "$dir/out/merged" "$code"
}

# Kubernetes: an Indexed Job of `completions: N` pods, JOB_COMPLETION_INDEX
# 0..N-1, the shell of the container's args.
kubernetes() {
  local file="$examples/kubernetes-indexed-job.yaml" dir count command code
  dir=$(job_dir kubernetes)
  mkdir -p "$dir/results"
  count=$(grep -E '^[[:space:]]+completions: [0-9]+' "$file" | sed 's/.*completions: //')
  [ -n "$count" ] || fail "$file: no completions: N"
  command=$(marked "$file" shard)
  for index in $(seq 0 $((count - 1))); do
    code=$(JOB_COMPLETION_INDEX=$index run_job "$dir" "$command")
    [ "$code" = 0 ] || fail "$file: a shard pod failed (its command keeps exit 1 as a result)"
  done
  code=$(run_job "$dir" "$(marked "$file" merge)")
  compare kubernetes "$dir/results/merged" "$code"
}

github
gitlab
kubernetes
