#!/usr/bin/env bash
# Runs the two-builds recipe of docs/COMPARE.md (the block between its
# "recipe: begin" and "recipe: end" markers), as written, on one binary and
# two --protocol values: correct against itself must be "no difference"
# (exit 0), correct against connection-loss-still-leading "worse" (exit 1)
# with the newly failing seeds in the Markdown. Both CI examples must hold
# the recipe's commands.
#   recipe_test.sh LEASESIM SOURCE_DIR WORK_DIR
set -euo pipefail
leasesim=$1
source_dir=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
sed -n '/<!-- recipe: begin/,/<!-- recipe: end/p' "$source_dir/docs/COMPARE.md" | sed '/^```/d;/^<!--/d' >"$work/recipe.sh"
grep -q ' compare "$OUT/base" "$OUT/new"' "$work/recipe.sh" || { echo "no recipe block in docs/COMPARE.md"; exit 1; }

# Runs the recipe with the given flags for each side; prints its exit code.
recipe() {
  local out=$1 base_flags=$2 new_flags=$3 code=0
  (cd "$source_dir" && BASE_LEASESIM=$leasesim NEW_LEASESIM=$leasesim BASE_FLAGS=$base_flags NEW_FLAGS=$new_flags \
    SCENARIOS=tests/compare/recipe.json SEEDS=1-6 SHARDS=2 OUT=$out bash -e "$work/recipe.sh") >"$out.log" 2>&1 || code=$?
  echo "$code"
}

code=$(recipe "$work/same" "--protocol correct" "--protocol correct")
[ "$code" = 0 ] || { cat "$work/same.log"; echo "correct vs correct: exit $code, want 0"; exit 1; }
head -1 "$work/same/compare.md" | grep -q '^\*\*leasesim compare: no difference\*\* — 12 runs of 2 scenarios' ||
  { head -3 "$work/same/compare.md"; echo "correct vs correct: not 'no difference'"; exit 1; }

code=$(recipe "$work/broken" "" "--protocol connection-loss-still-leading")
[ "$code" = 1 ] || { cat "$work/broken.log"; echo "correct vs connection-loss-still-leading: exit $code, want 1"; exit 1; }
md="$work/broken/compare.md"
head -1 "$md" | grep -q '^\*\*leasesim compare: worse\*\* — 7 seeds newly fail' || { head -3 "$md"; exit 1; }
grep -q '| leader-partitioned-from-store | 1 2 3 4 5 6 | – | – |' "$md" || { cat "$md"; exit 1; }
grep -q -- '--scenario leader-partitioned-from-store --seed 1 --protocol connection-loss-still-leading`' "$md" ||
  { cat "$md"; exit 1; }
# A merged side is what an unsharded run writes.
(cd "$source_dir" && "$leasesim" run tests/compare/recipe.json --seeds 1-6 --out "$work/whole" --quiet >/dev/null) ||
  [ $? -eq 1 ]
cmp "$work/whole/summary.json" "$work/broken/base/summary.json" || { echo "merged base differs from the whole sweep"; exit 1; }

# The CI examples run the same commands.
for ci in github-compare.yml gitlab-compare.yml; do
  for command in 'run scenarios/ci.json --seeds' '--shard' 'merge out/base-' '|| [ $? -eq 1 ]' \
                 'compare out/base out/new --markdown out/compare.md --json out/compare.json'; do
    grep -qF -- "$command" "$source_dir/docs/ci/$ci" || { echo "docs/ci/$ci lacks: $command"; exit 1; }
  done
done
echo "recipe: ok"
