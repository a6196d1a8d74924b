# Sourced by the pipeline benchmarks (bench-processes.sh, bench-split.sh):
# builds the three binaries and the pinned nats-server into $tmp/bin,
# starts that nats-server (file storage) on a free port, ensures the
# streams and starts one `results run` writer; start_solverd and
# stop_solverd run the solverd processes of one measurement. Every process it starts is
# in $pids and killed on exit, with $tmp removed. PostgreSQL is
# TESSERA_DATABASE_URL, else scripts/pg-local.sh; the caller exports the
# solver's settings first (they reach `queue apply` and the writer too).
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
export TESSERA_DATABASE_URL="${TESSERA_DATABASE_URL:-$(scripts/pg-local.sh)}"
go build -o "$tmp/bin/" ./producer ./solverd ./results
go build -o "$tmp/bin/nats-server" github.com/nats-io/nats-server/v2
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$tmp/bin/nats-server" -js -a 127.0.0.1 -p "$port" -sd "$tmp/nats" > "$tmp/nats.log" 2>&1 &
pids+=($!)
export TESSERA_NATS_URL="nats://127.0.0.1:$port"
export TESSERA_SOLVER_METRICS_ADDR= TESSERA_RESULTS_METRICS_ADDR=
for _ in $(seq 50); do
	"$tmp/bin/solverd" queue apply > /dev/null 2>&1 && break
	sleep 0.1
done
"$tmp/bin/results" run > "$tmp/results.log" 2>&1 &
pids+=($!)

# start_solverd PROCS [VAR=VALUE...]: PROCS `solverd run` with those
# settings, each logging to $tmp/solverd-I.log, returning once every one
# is solving; their PIDs in $sp (the caller's local) and $pids.
start_solverd() {
	local n=$1 i
	shift
	sp=()
	for i in $(seq "$n"); do
		env "$@" "$tmp/bin/solverd" run > "$tmp/solverd-$i.log" 2>&1 &
		sp+=($!)
		pids+=($!)
	done
	for i in $(seq "$n"); do
		until grep -qs 'solving jobs' "$tmp/solverd-$i.log"; do sleep 0.05; done
	done
}

# stop_solverd: SIGTERM to the processes in $sp, and wait for them.
stop_solverd() {
	local p
	kill -TERM "${sp[@]}"
	for p in "${sp[@]}"; do wait "$p" || true; done
}
