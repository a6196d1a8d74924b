#!/usr/bin/env bash
# The figures of docs/BENCHMARKS.md ("Processes add up"):
# K solverd processes with one worker each against one solverd with K
# workers, on the same batch, in alternating runs. Each run starts its
# solverd processes on a private nats-server (the version go.mod pins,
# file storage) with one `results run` writer, enqueues N random
# 15-puzzles with `producer --wait`, and reports the wall time from enqueue
# to the last row, the states per second, the CPU the solverd processes
# spent (user+sys, which the machine's other load does not inflate) and
# the time their threads spent runnable but waiting for a core (the
# scheduler's run-queue wait, /proc/PID/task/*/schedstat), both read just
# before they stop.
#
#   scripts/bench-processes.sh                 # K=2 N=4000 REPS=4 TABLES=15-pdb-663
#   K=2 N=2000 REPS=6 SEED=7 scripts/bench-processes.sh
#
# PostgreSQL: TESSERA_DATABASE_URL, else scripts/pg-local.sh. Every run
# adds a batch of N rows there.
set -euo pipefail
cd "$(dirname "$0")/.."
K=${K:-2}
N=${N:-4000}
REPS=${REPS:-4}
SEED=${SEED:-26}
TABLES=${TABLES:-15-pdb-663}
export TESSERA_SOLVER_TABLES="$TABLES"
export TESSERA_SOLVER_QUICK_WORKERS=0 # K workers in all: no reserved quick-lane worker on top
. scripts/bench-stack.sh

# sched PID...: "CPU WAIT", the seconds the processes' threads ran and
# waited runnable for a core, so far.
sched() {
	local p
	for p in "$@"; do cat /proc/"$p"/task/*/schedstat; done | awk '{r += $1; w += $2} END {printf "%.2f %.2f", r / 1e9, w / 1e9}'
}

# run NAME PROCS WORKERS: one measured batch with PROCS solverd of WORKERS workers.
run() {
	local name=$1 procs=$2 workers=$3 sp=()
	start_solverd "$procs" "TESSERA_SOLVER_WORKERS=$workers"
	local load t0 t1 s0 s1
	load=$(cut -d' ' -f1 /proc/loadavg)
	s0=$(sched "${sp[@]}")
	t0=$(date +%s.%N)
	"$tmp/bin/producer" -q --puzzle 15 --random "$N" --seed "$SEED" --wait > /dev/null 2> "$tmp/producer.log"
	t1=$(date +%s.%N)
	s1=$(sched "${sp[@]}")
	stop_solverd
	read -r c w < <(echo "$s0 $s1" | awk '{printf "%.2f %.2f\n", $3 - $1, $4 - $2}')
	printf '%-22s %6.2f s  %6.1f states/s  solverd CPU %6.2f s (%5.2f ms/state), waited for a core %6.2f s  load %s\n' \
		"$name" "$(echo "$t1 - $t0" | bc)" "$(echo "$N / ($t1 - $t0)" | bc -l)" "$c" "$(echo "$c * 1000 / $N" | bc -l)" "$w" "$load"
}

echo "== $N random 15-puzzles (seed $SEED, tables $TABLES), $REPS alternating repetitions, $(nproc) cores"
run warm-up "$K" 1 > /dev/null # maps the tables into the page cache
for r in $(seq "$REPS"); do
	if ((r % 2)); then
		run "1 process x $K workers" 1 "$K"
		run "$K processes x 1 worker" "$K" 1
	else
		run "$K processes x 1 worker" "$K" 1
		run "1 process x $K workers" 1 "$K"
	fi
done
