#!/usr/bin/env bash
# The figures of docs/BENCHMARKS.md ("Pipeline as fast as its search",
# the million 8-puzzles against the COPY floor): N (default 1,000,000) random
# 8-puzzles end to end with `producer --local --wait` into an empty
# database, against the COPY floor measured the same way: the same rows,
# exported from that database as CSV, loaded with psql's \copy into the
# solutions table (same indexes and checks) of another empty database —
# the least any writer could pay to store them. Rounds alternate the
# order of the two. Every database is created for the run and dropped.
#
#   scripts/bench-pipeline-8.sh                  # N=1000000 REPS=2 SEED=1
#   BASE=main scripts/bench-pipeline-8.sh        # also the binaries of git revision
#                                                # main, alternating with these
#
# PostgreSQL: TESSERA_DATABASE_URL, else scripts/pg-local.sh; its role must
# be allowed to create databases.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-1000000}
REPS=${REPS:-2}
SEED=${SEED:-1}
url="${TESSERA_DATABASE_URL:-$(scripts/pg-local.sh)}"
export TESSERA_SOLVER_METRICS_ADDR= TESSERA_RESULTS_METRICS_ADDR=
tmp=$(mktemp -d)
dbs=()
cleanup() {
	for d in "${dbs[@]}"; do psql -q -d "$url" -c "DROP DATABASE IF EXISTS $d" 2> /dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/bin/" ./producer ./results
builds=(bin)
if [[ -n "${BASE:-}" ]]; then
	mkdir -p "$tmp/src"
	git archive "$BASE" | tar -x -C "$tmp/src"
	(cd "$tmp/src" && go build -o "$tmp/base/" ./producer)
	builds=(base bin)
fi

# fresh NAME: an empty database NAME (dropped at exit), its URL in $db.
# Not in a subshell: the list the exit trap drops must see NAME.
fresh() {
	psql -q -d "$url" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" > /dev/null
	dbs+=("$1")
	db=$(python3 -c 'import sys, urllib.parse as u; p = u.urlparse(sys.argv[1]); print(p._replace(path="/" + sys.argv[2]).geturl())' "$url" "$1")
}

# pgcpu: CPU seconds of this host's postgres processes so far, those of
# exited backends included (the postmaster's children's times); other
# sessions' queries count too, so read it as an upper bound.
pgcpu() {
	local p
	for p in $(pgrep -x postgres); do cat /proc/"$p"/stat 2> /dev/null || true; done |
		awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); t += $12 + $13 + $14 + $15 } END { printf "%.2f", t / hz }'
}

# timed NAME CMD...: runs CMD, prints NAME, wall and CPU (its own, and
# PostgreSQL's meanwhile), and the load.
timed() {
	local name=$1 load pg0 pg1
	shift
	load=$(cut -d' ' -f1 /proc/loadavg)
	pg0=$(pgcpu)
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" > /dev/null 2> "$tmp/err" || {
		echo "$name failed:"
		cat "$tmp/err"
		exit 1
	}
	pg1=$(pgcpu)
	read -r wall user sys < "$tmp/time"
	printf '%-10s %7.2f s wall  CPU %6.2f s (user %.2f + sys %.2f), PostgreSQL %6.2f s  load %s\n' \
		"$name" "$wall" "$(echo "$user + $sys" | bc)" "$user" "$sys" "$(echo "$pg1 - $pg0" | bc)" "$load"
	echo "$wall" > "$tmp/$name.wall"
}

# pipeline BUILD: one end-to-end run of BUILD's producer.
pipeline() {
	local db name=pipeline
	[[ $1 == base ]] && name=base-pipe
	fresh tessera_bench8_pipeline_$$
	TESSERA_DATABASE_URL="$db" timed "$name" "$tmp/$1/producer" -q --puzzle 8 --random "$N" --seed "$SEED" --local --wait
	psql -q -d "$db" -c "\\copy (SELECT * FROM solutions) TO '$tmp/rows.csv' CSV"
	echo "$name" > "$tmp/last"
}

floor() {
	local db
	fresh tessera_bench8_copy_$$
	TESSERA_DATABASE_URL="$db" "$tmp/bin/results" migrate > /dev/null
	timed copy psql -q -d "$db" -c "\\copy solutions FROM '$tmp/rows.csv' CSV"
}

echo "== $N random 8-puzzles (seed $SEED): producer --local --wait against the COPY floor, $REPS rounds, $(nproc) cores"
for r in $(seq "$REPS"); do
	for b in "${builds[@]}"; do
		pipeline "$b" # before its floor: it makes the rows the floor loads
		floor
		name=$(cat "$tmp/last")
		echo "round $r: $name end to end / COPY floor = $(echo "scale=2; $(cat "$tmp/$name.wall") / $(cat "$tmp/copy.wall")" | bc)"
	done
	builds=($(printf '%s\n' "${builds[@]}" | tac)) # the other build first next round
done
