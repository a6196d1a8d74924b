#!/usr/bin/env bash
# The writer-memory figure of docs/RELIABILITY.md ("Writer memory"): N
# random 8-puzzles solved by `solverd run` with no writer running, so their
# results wait in TESSERA_RESULTS; then `results run` is started into that
# backlog and followed until the Nth row, and its peak resident size
# (VmHWM) is printed.
#
#   scripts/writer-rss.sh                  # N=300000
#   N=100000 RUNS=3 scripts/writer-rss.sh  # RUNS restarts into the same backlog
#   scripts/writer-rss.sh TESSERA_RESULTS_MAX_BYTES=33554432 GOMEMLIMIT=off   # env for the writer
#
# A private nats-server (NATS_SERVER, default the pinned one natstest builds
# into the user cache, else nats-server on PATH) on a random port with its
# store in a temporary directory; a private database (tessera_writer_rss) on
# $TESSERA_DATABASE_URL's server, or scripts/pg-local.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-300000}
RUNS=${RUNS:-1}
NATS_SERVER=${NATS_SERVER:-$(ls -1 "${XDG_CACHE_HOME:-$HOME/.cache}"/tessera/nats-server-v* 2> /dev/null | tail -n 1)}
NATS_SERVER=${NATS_SERVER:-nats-server}
url="${TESSERA_DATABASE_URL:-$(scripts/pg-local.sh)}"
psql=$(command -v psql || ls -1d /usr/lib/postgresql/*/bin/psql | tail -n 1)
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
	wait 2> /dev/null || true
	"$psql" -q -d "$url" -c "DROP DATABASE IF EXISTS tessera_writer_rss" 2> /dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/bin/" ./producer ./solverd ./results
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mon=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

startnats() {
	"$NATS_SERVER" -js -a 127.0.0.1 -p "$port" -m "$mon" -sd "$tmp/js" > "$tmp/nats.log" 2>&1 &
	nats=$!
	pids+=("$nats")
	for _ in $(seq 50); do curl -sf "http://127.0.0.1:$mon/healthz" > /dev/null && return; sleep 0.1; done
	echo "nats-server did not start" >&2
	exit 1
}
results_msgs() {
	curl -s "http://127.0.0.1:$mon/jsz?streams=true" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(s["state"]["messages"] for a in d.get("account_details", []) for s in a.get("stream_detail", []) if s["name"] == "TESSERA_RESULTS"))'
}
freshdb() {
	"$psql" -q -d "$url" -c "DROP DATABASE IF EXISTS tessera_writer_rss" -c "CREATE DATABASE tessera_writer_rss" > /dev/null
	db=$(python3 -c 'import sys, urllib.parse as u; p = u.urlparse(sys.argv[1]); print(p._replace(path="/tessera_writer_rss").geturl())' "$url")
	TESSERA_DATABASE_URL=$db "$tmp/bin/results" migrate > /dev/null 2>&1
}

export TESSERA_NATS_URL=nats://127.0.0.1:$port TESSERA_SOLVER_TABLES_DIR=$tmp/tables
export TESSERA_SOLVER_METRICS_ADDR= TESSERA_RESULTS_METRICS_ADDR=
mkdir -p "$tmp/tables"
startnats
freshdb
TESSERA_DATABASE_URL=$db "$tmp/bin/solverd" run > "$tmp/solverd.log" 2>&1 &
solverd=$!
pids+=("$solverd")
TESSERA_DATABASE_URL=$db "$tmp/bin/producer" --quiet --puzzle 8 --random "$N" --seed 3 > /dev/null
until [[ $(results_msgs) -ge $((N / 1000)) ]]; do sleep 1; done
kill "$solverd"
wait "$solverd" 2> /dev/null || true
kill "$nats"
wait "$nats" 2> /dev/null || true
cp -a "$tmp/js" "$tmp/js.backlog"
echo "backlog: $N results in TESSERA_RESULTS ($("$NATS_SERVER" --version))"

for run in $(seq "$RUNS"); do
	rm -rf "$tmp/js" && cp -a "$tmp/js.backlog" "$tmp/js"
	startnats
	freshdb
	"$psql" -q -d "$db" -c "INSERT INTO batches (id, puzzle, mode, total) OVERRIDING SYSTEM VALUE VALUES (1, 'sliding:3x3', 'optimal', $N)"
	start=$(date +%s.%N)
	env TESSERA_DATABASE_URL="$db" "$@" "$tmp/bin/results" run > "$tmp/results.log" 2>&1 &
	writer=$!
	pids+=("$writer")
	until [[ $("$psql" -d "$db" -tAc "SELECT count(*) FROM solutions") -ge $N ]]; do sleep 0.5; done
	hwm=$(awk '/VmHWM/ {print $2}' /proc/"$writer"/status)
	printf 'run %d: %d rows in %.1f s, peak resident %.1f MB\n' "$run" "$N" "$(echo "$(date +%s.%N) - $start" | bc)" "$(echo "$hwm / 1000" | bc -l)"
	kill "$writer" "$nats"
	wait "$writer" "$nats" 2> /dev/null || true
done
