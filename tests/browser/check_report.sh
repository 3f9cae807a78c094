#!/usr/bin/env bash
# Loads report pages in headless Chromium (Debian's `chromium`) from disk and
# checks the rendered DOM: the timeline's lanes and markers are there, and the
# page logged nothing to the console (it has no script; any console line is
# an error). Takes a screenshot of each page into OUT_DIR.
# Exits 77 (ctest: skipped) when chromium is not installed.
# usage: check_report.sh FIXTURE SOURCE_DIR OUT_DIR
set -uo pipefail
fixture=$1 source_dir=$2 out=$3

chromium_bin=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium_bin" ]; then
  echo "SKIP: chromium is not installed (apt-get install chromium)"
  exit 77
fi

mkdir -p "$out"
"$fixture" "$source_dir" "$out" || { echo "FAIL: fixture could not write the pages"; exit 1; }

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --disable-extensions --hide-scrollbars
       --user-data-dir="$profile" --enable-logging=stderr --v=0)

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# count PATTERN FILE: how many times PATTERN (fixed string) occurs.
count() { grep -oF -- "$1" "$2" | wc -l; }

# expect_at_least N PATTERN FILE
expect_at_least() {
  local n
  n=$(count "$2" "$3")
  if [ "$n" -lt "$1" ]; then fail "$(basename "$3"): expected at least $1 of '$2', found $n"; fi
}

render() {  # render PAGE: writes PAGE.dom, PAGE.log, PAGE.png (one browser launch)
  local page=$1
  local url="file://$out/$page.html"
  rm -f "$out/$page.png"
  timeout 90 "$chromium_bin" "${flags[@]}" --window-size=1240,1400 --screenshot="$out/$page.png" \
    --dump-dom "$url" >"$out/$page.dom" 2>"$out/$page.log" || fail "$page: chromium exited $?"
  [ -s "$out/$page.png" ] || fail "$page: no screenshot written"
  # Console output of the page (Chromium logs it as CONSOLE lines), uncaught
  # errors, and failed loads (the page must need nothing from anywhere).
  if grep -E 'CONSOLE|Uncaught|ERR_FILE_NOT_FOUND|Failed to load' "$out/$page.log"; then
    fail "$page: the page logged console errors or failed loads (see above)"
  fi
}

# A real failing sweep, as `leasesim run` writes it.
render run/report
dom="$out/run/report.dom"
expect_at_least 1 '3 of 6 runs failed' "$dom"
expect_at_least 1 '<tr class="scenario fail"' "$dom"
expect_at_least 1 '<tr class="scenario pass"' "$dom"
expect_at_least 3 '<svg class="timeline"' "$dom"
expect_at_least 9 'class="lane lane-node"' "$dom"
expect_at_least 3 'class="lane lane-store"' "$dom"
expect_at_least 3 'class="lane lane-ledger"' "$dom"
expect_at_least 6 'class="belief term-1"' "$dom"
expect_at_least 6 'class="holder term-1"' "$dom"
expect_at_least 3 'class="fault fault-partition"' "$dom"
expect_at_least 3 'class="fault fault-pause beyond"' "$dom"
expect_at_least 3 'class="fault fault-clock_step instant"' "$dom"
expect_at_least 3 'class="fault fault-store_outage"' "$dom"
expect_at_least 3 'class="fault fault-crash"' "$dom"
expect_at_least 10 'class="write applied"' "$dom"
expect_at_least 3 'data-kind="term_reuse"' "$dom"
expect_at_least 3 'data-kind="dual_writer"' "$dom"
expect_at_least 3 'class="violation-list"' "$dom"
expect_at_least 3 'leasesim replay' "$dom"

# A hand-made run: a stale-token write applied, another rejected.
render sample
dom="$out/sample.dom"
expect_at_least 1 '<svg class="timeline"' "$dom"
expect_at_least 3 'class="lane lane-node"' "$dom"
expect_at_least 1 'class="belief term-2"' "$dom"
expect_at_least 1 'class="fault fault-pause beyond"' "$dom"
expect_at_least 1 'class="write rejected"' "$dom"
expect_at_least 1 'class="write lost"' "$dom"
expect_at_least 1 'data-kind="stale_token_write"' "$dom"
expect_at_least 1 'class="violation expected"' "$dom"

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "ok: rendered $out/run/report.html and $out/sample.html; screenshots $out/run/report.png $out/sample.png"
