#!/usr/bin/env bash
# Rebuilds the parser fuzzers' seed corpora (fuzz_parsers/corpus/) from the
# repository's own files. A developer tool, not run by CI: it needs python3
# and a built leasesim (BUILD, default build) for the recorded histories.
#   scripts/make-parser-corpora.sh [BUILD_DIR]
# What each corpus holds: fuzz_parsers/corpus/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
corpus=fuzz_parsers/corpus
rm -rf "$corpus"/{scenario_parser,history_reader,jepsen_log,edn_import,etcd_decode}
mkdir -p "$corpus"/{scenario_parser,history_reader,jepsen_log,edn_import,etcd_decode}

# Scenario files: every scenario of every file, one a file, compact.
python3 - "$corpus/scenario_parser" scenarios/*.json scenarios/findings/*.json <<'PY'
import json, sys
out = sys.argv[1]
for path in sys.argv[2:]:
    data = json.load(open(path))
    base = path.replace('/', '_').replace('.json', '')
    for i, scenario in enumerate(data.get('scenarios', [])):
        one = {k: v for k, v in data.items() if k != 'scenarios'}
        one['scenarios'] = [scenario]
        with open(f'{out}/{base}-{i:02d}.json', 'w') as f:
            json.dump(one, f, separators=(',', ':'))
PY

# Histories recorded by replays of a few ci.json scenarios, each cut to its
# header and the first records of every type (still a valid history).
for scenario in steady-state leader-crash-takeover leader-paused-beyond-lease wall-clock-steps stale-read-replica-campaign-unsafe; do
  out="$corpus/history_reader/$scenario.jsonl"
  "$build/leasesim" replay scenarios/ci.json --scenario "$scenario" --seed 1 --history "$out.full" >/dev/null || true
  [ -s "$out.full" ] || { rm -f "$out.full"; continue; }
  python3 - "$out.full" "$out" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
kept, seen = [lines[0]], {}
for line in lines[1:]:
    kind = json.loads(line).get('type')
    if seen.get(kind, 0) < 6:
        seen[kind] = seen.get(kind, 0) + 1
        kept.append(line)
open(sys.argv[2], 'w').write('\n'.join(kept) + '\n')
PY
  rm -f "$out.full"
done

# Jepsen logs and EDN histories: the real-shaped files of tests/histories.
cp tests/histories/*.log tests/histories/history.txt "$corpus/jepsen_log/"
cp tests/histories/*.edn "$corpus/edn_import/"

# etcd gateway bodies, as in backends/etcd/etcd_json_test.cc; the first byte
# picks the HTTP status and range (even) or txn (odd).
e="$corpus/etcd_decode"
printf '\x00{"header":{"cluster_id":"4517789691306810614","member_id":"2489693901910197374","revision":"3","raft_term":"2"},"kvs":[{"key":"bGVhc2UveA==","create_revision":"2","mod_revision":"3","version":"2","value":"eyJob2xkZXIiOiJuMSMyIiwidGVybSI6NywiZHVyYXRpb25fbnMiOjEwMDAwfQ=="}],"count":"1"}' >"$e/range.bin"
printf '\x01{"header":{"revision":"2"},"succeeded":true,"responses":[{"response_put":{"header":{"revision":"2"}}},{"response_range":{"header":{"revision":"2"},"kvs":[{"key":"bGVhc2UveA==","create_revision":"2","mod_revision":"2","version":"1","value":"eyJhIjoxfQ=="}],"count":"1"}}]}' >"$e/txn.bin"
printf '\x01{"header":{"revision":"2"},"responses":[{"response_range":{"header":{"revision":"2"},"kvs":[]}}]}' >"$e/txn-failed.bin"
printf '\x00{"holder":"n1#2","term":7,"duration_ns":10000000000,"acquired_wall_ns":5,"renewed_wall_ns":6,"preferred_successor":"n2"}' >"$e/record.bin"
printf '\x0b{"error":"etcdserver: request timed out","code":14,"message":"etcdserver: request timed out"}' >"$e/error-timeout.bin"
printf '\x07{"error":"etcdserver: too many requests","code":8,"message":"etcdserver: too many requests"}' >"$e/error-busy.bin"
printf '\x00bGVhc2UvYmlsbGluZy9zZXR0bGVtZW50' >"$e/base64.bin"
printf '\x00000000000000000042' >"$e/padded.bin"
# And every error body recorded from etcd's gateway (backends/etcd/testdata).
python3 - "$e" backends/etcd/testdata/gateway_errors.json <<'PY'
import json, sys
statuses = [200, 400, 401, 404, 408, 429, 500, 503]  # as etcd_decode_fuzz.cc indexes them
for i, case in enumerate(json.load(open(sys.argv[2]))):
    status = case.get('http_status', 500)
    selector = (statuses.index(status) if status in statuses else 6) << 1
    with open(f'{sys.argv[1]}/gateway-error-{i:02d}.bin', 'wb') as f:
        f.write(bytes([selector]) + case['body'].encode())
PY
ls "$corpus"/* | wc -l
