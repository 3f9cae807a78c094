#!/usr/bin/env bash
# Starts or stops a 3-member etcd cluster on loopback, for live runs and by
# hand. Uses Debian's etcd-server (/usr/bin/etcd, 3.4); data lives under a
# temporary directory that `stop` removes.
#
#   scripts/etcd-cluster.sh start [BASE_PORT]   # prints the cluster directory and client URLs
#   scripts/etcd-cluster.sh stop DIR            # stops every member and removes DIR
#   scripts/etcd-cluster.sh status DIR          # which members run, who leads
#
# Member i (1..3) listens for clients on BASE_PORT+2*(i-1) and for peers on
# BASE_PORT+2*(i-1)+1 (default BASE_PORT 32379: 32379..32384). `start` prints
#   dir=/tmp/leasesim-etcd.XXXX
#   endpoints=http://127.0.0.1:32379,http://127.0.0.1:32381,http://127.0.0.1:32383
# and exits once every member answers; `leasesim live --etcd URLS` takes the
# endpoints line as is. The leasesim live command starts its own cluster (on
# free ports) when no --etcd is given, so this script is for manual runs.
set -euo pipefail

ETCD=${ETCD:-/usr/bin/etcd}
cmd=${1:-}

member_ports() {  # base i -> "client peer"
  local base=$1 i=$2
  echo "$((base + 2 * (i - 1))) $((base + 2 * (i - 1) + 1))"
}

start() {
  local base=${1:-32379}
  if [ ! -x "$ETCD" ]; then
    echo "etcd-cluster: $ETCD not found (apt-get install etcd-server)" >&2
    exit 2
  fi
  local dir
  dir=$(mktemp -d "${TMPDIR:-/tmp}/leasesim-etcd.XXXXXX")
  local initial="" endpoints=""
  for i in 1 2 3; do
    read -r client peer < <(member_ports "$base" "$i")
    initial+="${initial:+,}m$i=http://127.0.0.1:$peer"
    endpoints+="${endpoints:+,}http://127.0.0.1:$client"
  done
  echo "$base" >"$dir/base_port"
  for i in 1 2 3; do
    read -r client peer < <(member_ports "$base" "$i")
    "$ETCD" --name "m$i" --data-dir "$dir/m$i.data" \
      --listen-client-urls "http://127.0.0.1:$client" \
      --advertise-client-urls "http://127.0.0.1:$client" \
      --listen-peer-urls "http://127.0.0.1:$peer" \
      --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
      --initial-cluster "$initial" --initial-cluster-state new \
      --initial-cluster-token "leasesim-$base" \
      --logger zap --log-outputs stderr --log-level warn \
      >"$dir/m$i.log" 2>&1 &
    echo $! >"$dir/m$i.pid"
  done
  # Wait (at most 20 s) until every member answers /health.
  for _ in $(seq 1 200); do
    local healthy=0
    for i in 1 2 3; do
      read -r client _peer < <(member_ports "$base" "$i")
      if curl -fsS -m 1 "http://127.0.0.1:$client/health" 2>/dev/null | grep -q '"health":"true"'; then
        healthy=$((healthy + 1))
      fi
    done
    if [ "$healthy" -eq 3 ]; then
      echo "dir=$dir"
      echo "endpoints=$endpoints"
      return 0
    fi
    sleep 0.1
  done
  echo "etcd-cluster: members did not become healthy; logs in $dir" >&2
  stop "$dir" keep
  exit 1
}

stop() {
  local dir=$1 keep=${2:-}
  case "$dir" in
    */leasesim-etcd.*) ;;
    *) echo "etcd-cluster: refusing to stop '$dir' (not a leasesim-etcd directory)" >&2; exit 2 ;;
  esac
  for i in 1 2 3; do
    if [ -f "$dir/m$i.pid" ]; then
      local pid
      pid=$(cat "$dir/m$i.pid")
      kill -CONT "$pid" 2>/dev/null || true
      kill -TERM "$pid" 2>/dev/null || true
    fi
  done
  for i in 1 2 3; do
    if [ -f "$dir/m$i.pid" ]; then
      local pid
      pid=$(cat "$dir/m$i.pid")
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  if [ -z "$keep" ]; then rm -rf "$dir"; fi
}

status() {
  local dir=$1 base
  base=$(cat "$dir/base_port")
  for i in 1 2 3; do
    read -r client _peer < <(member_ports "$base" "$i")
    local state="down"
    if kill -0 "$(cat "$dir/m$i.pid")" 2>/dev/null; then
      state=$(curl -fsS -m 1 -X POST -d '{}' "http://127.0.0.1:$client/v3/maintenance/status" 2>/dev/null || echo unreachable)
    fi
    echo "m$i http://127.0.0.1:$client $state"
  done
}

case "$cmd" in
  start) shift; start "$@" ;;
  stop) [ $# -ge 2 ] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
  status) [ $# -ge 2 ] || { echo "usage: $0 status DIR" >&2; exit 2; }; status "$2" ;;
  *) echo "usage: $0 start [BASE_PORT] | stop DIR | status DIR" >&2; exit 2 ;;
esac
