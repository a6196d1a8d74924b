#!/usr/bin/env bash
# The wall-time figure of docs/BENCHMARKS.md ("Split search"): one
# hard 24-puzzle (Korf–Felner #IDS, default 29) solved by two solverd
# processes with one worker and one search thread each, split
# (producer --split), against one solverd with one worker and two search
# threads, unsplit, in alternating runs. Each run starts its solverd
# processes on a private nats-server (file storage) with one `results run`
# writer, enqueues the state with `producer --wait`, and reports the wall
# time from enqueue to the row, the solverd processes' CPU (user+sys) and
# the load average when the run began.
#
#   scripts/bench-split.sh                  # ID=29 REPS=2 TABLES=24-pdb-6666
#   ID=36 REPS=1 scripts/bench-split.sh
#   ID=20 ONLY=split RECORD=/tmp/kf20.tsv TIMEOUT=4h scripts/bench-split.sh
#
# ONLY=split (or unsplit) runs one side only; RECORD appends the split
# runs' solver.split_record there (every walk and subtree job, for
# internal/splitplan's makespan model); TIMEOUT is the state's budget
# (default 2h).
#
# PostgreSQL: TESSERA_DATABASE_URL, else scripts/pg-local.sh. Every run
# adds a batch of one row there. The tables must be built
# (solverd tables build 24-pdb-6666).
set -euo pipefail
cd "$(dirname "$0")/.."
ID=${ID:-29}
REPS=${REPS:-2}
TABLES=${TABLES:-24-pdb-6666}
ONLY=${ONLY:-}
RECORD=${RECORD:-}
TIMEOUT=${TIMEOUT:-2h}
export TESSERA_SOLVER_TABLES="$TABLES"
export TESSERA_SOLVER_QUICK_WORKERS=0 TESSERA_SOLVER_WORKERS=1 TESSERA_SOLVER_TIMEOUT=$TIMEOUT # no host cap below the job's
. scripts/bench-stack.sh
awk -F'\t' -v id="$ID" '$1 == id {print $3}' internal/instances/korf-felner-24.tsv > "$tmp/state.txt"
awk -F'\t' '$1 == 40 {print $3}' internal/instances/korf-felner-24.tsv > "$tmp/warm.txt" # 82 moves, under a second

cpu() { # PID...: user+sys seconds so far
	local p
	for p in "$@"; do cat /proc/"$p"/stat; done | awk '{t += $14 + $15} END {printf "%.2f", t / 100}'
}

# run NAME PROCS THREADS FLAGS FILE: one measured state.
run() {
	local name=$1 procs=$2 threads=$3 flags=$4 file=$5 record=${6:-} sp=()
	start_solverd "$procs" "TESSERA_SOLVER_SPLIT_RECORD=$record" "TESSERA_SOLVER_THREADS=$threads"
	local load t0 t1 c0 c1
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	c0=$(cpu "${sp[@]}")
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # flags are words
	"$tmp/bin/producer" -q --puzzle 24 --file "$file" $flags --timeout "$TIMEOUT" --wait > "$tmp/producer.out" 2> "$tmp/producer.log"
	t1=$(date +%s.%N)
	c1=$(cpu "${sp[@]}")
	stop_solverd
	printf '%-34s %7.2f s  solverd CPU %7.2f s  load %s\n' "$name" "$(echo "$t1 - $t0" | bc)" "$(echo "$c1 - $c0" | bc)" "$load"
}

echo "== Korf-Felner #$ID (tables $TABLES), $REPS alternating repetitions, $(nproc) cores"
run warm-up 2 1 --split "$tmp/warm.txt" > /dev/null # maps the tables into the page cache
for r in $(seq "$REPS"); do
	if [[ $ONLY == split ]]; then
		run "2 processes x 1 thread, split" 2 1 --split "$tmp/state.txt" "$RECORD"
	elif [[ $ONLY == unsplit ]]; then
		run "1 process, --threads 2, unsplit" 1 2 "" "$tmp/state.txt"
	elif ((r % 2)); then
		run "1 process, --threads 2, unsplit" 1 2 "" "$tmp/state.txt"
		run "2 processes x 1 thread, split" 2 1 --split "$tmp/state.txt"
	else
		run "2 processes x 1 thread, split" 2 1 --split "$tmp/state.txt"
		run "1 process, --threads 2, unsplit" 1 2 "" "$tmp/state.txt"
	fi
done
"$tmp/bin/results" batches --limit $((2 * REPS + 1)) --nats-url "$TESSERA_NATS_URL"
