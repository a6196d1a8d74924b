#!/usr/bin/env bash
# The figures of docs/BENCHMARKS.md ("Distributions and scrambles at 10^6 to
# 10^8 rows"): N stored 8-puzzle rows generated in PostgreSQL (not
# solved), then the time of `results dist --puzzle 8`, of the status page's
# first load, of /api/puzzles/8/distribution and of /api/scrambles, and the
# plans of their queries.
#
#   N=1000000 scripts/bench-dist.sh      # default N; KEEP=1 keeps the database
#   N=100000000 BULK=1 scripts/bench-dist.sh   # 10^8: the tables filled directly
#
# With BULK=1 the schema goes to the newest version first, and the rows of
# solutions, puzzle_states, puzzle_counts and distance_counts are generated
# directly (the same rows the backfill would derive), with the indexes
# dropped during the load and built after it, then checked against those
# of a freshly migrated database; the old per-puzzle query is skipped (it
# sorts every row: minutes at 10^8). About 36 GB of disk at 10^8.
#
# The rows go in at schema version 6 (before the per-puzzle tables), then
# `results migrate` brings the schema to the newest version and its backfill
# is timed. Uses a private database (DB, default tessera_bench_dist) on
# PG (default postgres://postgres@127.0.0.1:5432), dropped at the end.
# States are fake texts ("bench 123"), 10 % of rows repeat an earlier state
# (the distributions count distinct states), lengths 12..31 with 8-puzzle
# like weight; nodes = the state's number, so min/max_nodes filters select.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-1000000}
DB=${DB:-tessera_bench_dist}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
PORT=${PORT:-18090}
URL="$PG/$DB?sslmode=disable"
TIMEFORMAT='%R s wall'
bin=$(mktemp -d)
serve=
cleanup() {
	[ -n "$serve" ] && kill "$serve" 2>/dev/null && wait "$serve" 2>/dev/null
	rm -rf "$bin"
	[ "${KEEP:-0}" = 1 ] || psql -q "$PG/postgres" -c "DROP DATABASE IF EXISTS $DB" >/dev/null
}
trap cleanup EXIT
go build -o "$bin/" ./results

psql -q "$PG/postgres" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
if [ "${BULK:-0}" = 1 ]; then
	"$bin/results" migrate --database-url "$URL"
	idx() { psql -At "$1" -c "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexdef"; }
	want=$(idx "$URL")
	echo "== $N rows into solutions, puzzle_states and the counts, indexes built after (schema version 7)"
	time psql -q -v ON_ERROR_STOP=1 "$URL" <<SQL
SELECT pg_backend_pid() AS pid \gset
\setenv BACKEND :pid
\! renice -n 19 -p \$BACKEND >/dev/null
SET synchronous_commit = off;
SET maintenance_work_mem = '1GB';
ALTER TABLE solutions DROP CONSTRAINT solutions_pkey;
DROP INDEX solutions_puzzle_optimal_length;
ALTER TABLE puzzle_states DROP CONSTRAINT puzzle_states_pkey;
DROP INDEX puzzle_states_length;
INSERT INTO batches (puzzle, mode, total, enqueued, solved) VALUES ('sliding:3x3', 'optimal', $N, $N, $N);
INSERT INTO solutions (batch_id, seq, puzzle, state, moves, length, optimal, lower_bound, nodes, solver, status)
SELECT 1, g, 'sliding:3x3', 'bench ' || k, 'U', l, true, l, k, 'bench', 'solved'
FROM generate_series(0, $N - 1) AS g,
     LATERAL (SELECT g % ($N - $N / 10) AS k) AS s,
     LATERAL (SELECT 12 + abs(hashint8(k)) % 11 + abs(hashint8(-k - 1)) % 10 AS l) AS t;
-- State k first appears at seq k, and its rows all have one length.
INSERT INTO puzzle_states (puzzle, state_hash, length, batch_id, seq)
SELECT 'sliding:3x3', sha256(convert_to('bench ' || k, 'UTF8')), 12 + abs(hashint8(k)) % 11 + abs(hashint8(-k - 1)) % 10, 1, k
FROM generate_series(0, LEAST($N, $N - $N / 10) - 1) AS k;
INSERT INTO puzzle_counts (puzzle, length, count)
SELECT puzzle, length, count(*) FROM puzzle_states GROUP BY puzzle, length;
INSERT INTO distance_counts (puzzle, batch_id, length, count)
SELECT puzzle, batch_id, length, count(*) FROM solutions GROUP BY 1, 2, 3;
ALTER TABLE solutions ADD PRIMARY KEY (batch_id, seq);
CREATE INDEX solutions_puzzle_optimal_length ON solutions (puzzle, length) WHERE optimal;
ALTER TABLE puzzle_states ADD PRIMARY KEY (puzzle, state_hash);
CREATE INDEX puzzle_states_length ON puzzle_states (puzzle, length, batch_id, seq);
SQL
	if [ "$(idx "$URL")" != "$want" ]; then
		echo "indexes differ from a migrated database's" >&2
		exit 1
	fi
	psql -q "$URL" -c "VACUUM ANALYZE" >/dev/null
	psql -At "$URL" -c "SELECT 'sizes: solutions ' || pg_size_pretty(pg_total_relation_size('solutions')) ||
		', puzzle_states ' || pg_size_pretty(pg_total_relation_size('puzzle_states')) ||
		' (' || (SELECT count(*) FROM puzzle_states) || ' distinct states)'"
else
"$bin/results" migrate --to 6 --database-url "$URL"

echo "== $N rows into solutions (schema version 6)"
# The server backend does the work: renice it, so the shared machine's
# other work goes first.
time psql -q -v ON_ERROR_STOP=1 "$URL" <<SQL
SELECT pg_backend_pid() AS pid \gset
\setenv BACKEND :pid
\! renice -n 10 -p \$BACKEND >/dev/null
INSERT INTO batches (puzzle, mode, total, enqueued, solved) VALUES ('sliding:3x3', 'optimal', $N, $N, $N);
INSERT INTO solutions (batch_id, seq, puzzle, state, moves, length, optimal, lower_bound, nodes, solver, status)
SELECT 1, g, 'sliding:3x3', 'bench ' || k, 'U', l, true, l, k, 'bench', 'solved'
FROM generate_series(0, $N - 1) AS g,
     LATERAL (SELECT g % ($N - $N / 10) AS k) AS s,
     LATERAL (SELECT 12 + abs(hashint8(k)) % 11 + abs(hashint8(-k - 1)) % 10 AS l) AS t;
-- The per-batch counts the writer keeps, so BatchDistribution is right too.
INSERT INTO distance_counts (puzzle, batch_id, length, count)
SELECT puzzle, batch_id, length, count(*) FROM solutions GROUP BY 1, 2, 3;
SQL

echo "== results migrate: backfill of puzzle_states and puzzle_counts"
time "$bin/results" migrate --database-url "$URL"
psql -q "$URL" -c "VACUUM ANALYZE" >/dev/null
psql -At "$URL" -c "SELECT 'sizes: solutions ' || pg_size_pretty(pg_total_relation_size('solutions')) ||
	', puzzle_states ' || pg_size_pretty(pg_total_relation_size('puzzle_states')) ||
	' (' || (SELECT count(*) FROM puzzle_states) || ' distinct states)'"
fi

echo "== results dist --puzzle 8 (3 runs, whole process)"
for i in 1 2 3; do time "$bin/results" dist --puzzle 8 --database-url "$URL" > "$bin/dist.txt"; done
tail -n 5 "$bin/dist.txt"
echo "== results dist --puzzle 15 (no rows: the process's own start, config and connection)"
for i in 1 2 3; do time "$bin/results" dist --puzzle 15 --database-url "$URL" > /dev/null; done

if [ "${BULK:-0}" != 1 ]; then
echo "== the old per-puzzle query (distinct states by sorting every optimal row), once"
psql -q "$URL" <<'SQL'
\timing on
SELECT count(*) AS lengths, sum(n) AS states FROM (
  SELECT length, count(*) AS n FROM (
    SELECT DISTINCT ON (state) length FROM solutions
    WHERE puzzle = 'sliding:3x3' AND optimal ORDER BY state, length) AS d
  GROUP BY length) AS x;
SQL
fi

TESSERA_RESULTS_HTTP_WRITER_TOKENS=bench=bench-token-0123456789 "$bin/results" serve --database-url "$URL" \
	--http-addr "127.0.0.1:$PORT" 2> "$bin/serve.log" &
serve=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.2; done
get() { # prints the time of 3 requests of $1
	local out
	out=$(for _ in 1 2 3; do curl -s -o /dev/null -w '%{http_code} %{time_total}s\n' "${@:2}" "http://127.0.0.1:$PORT$1" || true; done | tr '\n' ' ')
	echo "$1: $out"
}
echo "== results serve (3 requests each: status, seconds)"
get /
get /api/puzzles/8/distribution
get '/api/scrambles?puzzle=8&length=22&count=10'
get '/api/scrambles?puzzle=8&length=31&count=10'
get '/api/scrambles?puzzle=8&length=22&count=10&client=bench-1' -H 'Authorization: Bearer bench-token-0123456789'
get '/api/scrambles?puzzle=8&length=22&count=10&min_nodes=800000' 

echo "== plans"
psql -q "$URL" <<'SQL'
EXPLAIN (ANALYZE, BUFFERS, COSTS) SELECT length, count FROM puzzle_counts WHERE puzzle = 'sliding:3x3' AND count > 0 ORDER BY length;
-- store.ServeScrambles's query (without a client key) at a common and at the rarest length
PREPARE scrambles(int) AS SELECT s.*, p.state_hash FROM puzzle_states p
  CROSS JOIN LATERAL (SELECT * FROM solutions s WHERE s.batch_id = p.batch_id AND s.seq = p.seq LIMIT 1) AS s
  WHERE p.puzzle = 'sliding:3x3' AND p.length = $1 AND (p.batch_id, p.seq) > (0, 0) AND s.nodes BETWEEN 0 AND 9223372036854775807
  ORDER BY p.batch_id, p.seq LIMIT 10;
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE scrambles(22);
EXPLAIN (ANALYZE, BUFFERS, COSTS) EXECUTE scrambles(31);
SQL
