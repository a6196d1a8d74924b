#!/usr/bin/env bash
# The figures of docs/BENCHMARKS.md ("Pipeline as fast
# as its search"): the same N random 15-puzzles solved by the bare search
# (`solverd solve --workers 2`) and by the whole pipeline in one process
# (`producer --local --wait`: embedded JetStream, the workers, the results
# writer into PostgreSQL), in alternating runs so that both see the same
# load. Per run: wall time of the whole command, states per second, the
# CPU it spent (user + sys, which other processes' load inflates less
# than wall time) per 1,000 states, and the load average at its start.
# The producer's own "done in" (enqueue to last row) is printed too.
#
#   scripts/bench-pipeline-search.sh                # N=2000 REPS=3 SEED=30 TABLES=15-pdb-78
#   N=1000 REPS=5 WORKERS=2 scripts/bench-pipeline-search.sh
#   BASE=main scripts/bench-pipeline-search.sh      # also the binaries of git revision main,
#                                                   # each round: both commands of both builds
#
# PROFILE=DIR also records each pipeline run with `perf record -g` into
# DIR/pipeline-R.perf (read with `perf report -i ... --no-children`).
# PostgreSQL: TESSERA_DATABASE_URL, else scripts/pg-local.sh. Every
# pipeline run adds a batch of N rows there.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-2000}
REPS=${REPS:-3}
SEED=${SEED:-30}
WORKERS=${WORKERS:-2}
TABLES=${TABLES:-15-pdb-78}
export TESSERA_SOLVER_TABLES="$TABLES" TESSERA_SOLVER_WORKERS="$WORKERS"
export TESSERA_SOLVER_METRICS_ADDR= TESSERA_RESULTS_METRICS_ADDR=
export TESSERA_DATABASE_URL="${TESSERA_DATABASE_URL:-$(scripts/pg-local.sh)}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bin/" ./producer ./solverd
builds=(bin)
if [[ -n "${BASE:-}" ]]; then
	mkdir -p "$tmp/src"
	git archive "$BASE" | tar -x -C "$tmp/src"
	(cd "$tmp/src" && go build -o "$tmp/base/" ./producer ./solverd)
	builds=(base bin)
fi
"$tmp/bin/solverd" scramble --puzzle 15 --count "$N" --seed "$SEED" > "$tmp/states.txt" 2>/dev/null

# measure NAME CMD...: one run, its figures on one line.
measure() {
	local name=$1 load
	shift
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" < "$tmp/states.txt" > "$tmp/out" 2> "$tmp/err" || {
		echo "$name failed:"
		cat "$tmp/err"
		exit 1
	}
	read -r wall user sys < "$tmp/time"
	local done
	done=$(grep -o 'done in [^:]*' "$tmp/err" || true)
	awk -v n="$N" -v name="$name" -v w="$wall" -v u="$user" -v s="$sys" -v l="$load" -v d="$done" 'BEGIN {
		printf "%-10s %7.2f s wall %7.1f states/s  CPU %6.2f s (user %.2f + sys %.2f) = %5.3f s per 1,000 states  load %s  %s\n",
			name, w, n / w, u + s, u, s, (u + s) * 1000 / n, l, d }'
}

# solve BUILD, pipeline BUILD ROUND: one run of each command of a build.
name() { if [[ $1 == base ]]; then echo "base-$2"; else echo "$2"; fi; }
solve() { measure "$(name "$1" solve)" "$tmp/$1/solverd" solve --puzzle 15; }
pipeline() {
	if [[ -n "${PROFILE:-}" ]]; then
		mkdir -p "$PROFILE"
		measure "$(name "$1" pipeline)" perf record -g -q -o "$PROFILE/$1-pipeline-$2.perf" "$tmp/$1/producer" -q --puzzle 15 --file - --local --wait
	else
		measure "$(name "$1" pipeline)" "$tmp/$1/producer" -q --puzzle 15 --file - --local --wait
	fi
}

echo "== $N random 15-puzzles (seed $SEED, tables $TABLES, $WORKERS workers), $REPS alternating rounds, $(nproc) cores"
"$tmp/bin/solverd" solve --puzzle 15 < "$tmp/states.txt" > /dev/null # maps the tables into the page cache
for r in $(seq "$REPS"); do
	for b in "${builds[@]}"; do
		if ((r % 2)); then
			solve "$b"
			pipeline "$b" "$r"
		else
			pipeline "$b" "$r"
			solve "$b"
		fi
	done
	builds=($(printf '%s\n' "${builds[@]}" | tac)) # the other build first next round
done
