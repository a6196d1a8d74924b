#!/usr/bin/env bash
# The pipeline figures of docs/BENCHMARKS.md ("Pipeline"):
#  1. N8 (default 1,000,000) random 8-puzzles end to end with producer --local:
#     enqueue on an in-process JetStream, solve, store in PostgreSQL with counts.
#  2. N15 (default 200) random 15-puzzles, first with the bare solver
#     (solverd solve, one worker per core), then through the pipeline, same states.
set -euo pipefail
cd "$(dirname "$0")/.."
export TESSERA_DATABASE_URL="${TESSERA_DATABASE_URL:-$(scripts/pg-local.sh)}"
go build -o bin/ ./producer ./solverd ./results
N8=${N8:-1000000}
N15=${N15:-200}
TIMEFORMAT='%R s wall, %U s user, %S s sys'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== $N8 random 8-puzzles, producer --local --wait (produce, solve, store with counts)"
time bin/producer --puzzle 8 --random "$N8" --seed 1 --local --wait -q > "$tmp/8.hist"
tail -n 3 "$tmp/8.hist"

bin/solverd scramble --puzzle 15 --count "$N15" --seed 2 > "$tmp/15.txt" 2>/dev/null
echo "== $N15 random 15-puzzles, bare solver (solverd solve)"
time bin/solverd solve --puzzle 15 < "$tmp/15.txt" > "$tmp/bare.jsonl"
echo "== the same $N15 through the pipeline (producer --file --local --wait)"
time bin/producer --puzzle 15 --file "$tmp/15.txt" --local --wait -q > /dev/null
