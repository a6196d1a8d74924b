#!/usr/bin/env bash
# pg-local.sh — make sure a PostgreSQL is reachable and print its URL.
#
#   scripts/pg-local.sh          print a DATABASE_URL (starting a server if needed)
#   scripts/pg-local.sh stop     stop the private server this script started
#   scripts/pg-local.sh status   say which server would be used (starts and creates nothing)
#   scripts/pg-local.sh remove   stop the private server and delete its directory
#
# Order: $TESSERA_DATABASE_URL, then $DATABASE_URL (used as given); then a
# server already answering on 127.0.0.1:5432 (database "tessera" created
# when missing); otherwise a private server in a cache directory, started on
# 127.0.0.1:$TESSERA_PG_PORT (default 54329) and reused by later runs.
# PostgreSQL is installed with apt-get when missing and we are root.
#
# Only the URL goes to stdout, so `export TESSERA_DATABASE_URL=$(scripts/pg-local.sh)`
# works; progress and errors go to stderr.
#
# Settings (environment):
#   TESSERA_PG_DIR   cache directory (default ${XDG_CACHE_HOME:-$HOME/.cache}/tessera/pg,
#                    or /var/cache/tessera/pg for root: initdb runs as the
#                    postgres user, who cannot enter /root)
#   TESSERA_PG_PORT  port of the private server (default 54329)
#   TESSERA_PG_DB    database name (default tessera)
#   TESSERA_PG_SYSTEM_PORT  the shared server's port to probe (default 5432; "none" skips it)
set -euo pipefail

say() { echo "pg-local: $*" >&2; }
die() { say "$*"; exit 1; }

port="${TESSERA_PG_PORT:-54329}"
db="${TESSERA_PG_DB:-tessera}"
sysport="${TESSERA_PG_SYSTEM_PORT:-5432}"
if [[ -n "${TESSERA_PG_DIR:-}" ]]; then
	dir="$TESSERA_PG_DIR"
elif [[ $(id -u) -eq 0 && -z "${XDG_CACHE_HOME:-}" ]]; then
	dir=/var/cache/tessera/pg
else
	dir="${XDG_CACHE_HOME:-$HOME/.cache}/tessera/pg"
fi
data="$dir/data"
sock="$dir/run"
log="$dir/postgres.log"
cmd="${1:-url}"

url_for() { echo "postgres://postgres@127.0.0.1:$1/$db?sslmode=disable"; }

# bindir finds initdb/pg_ctl: PATH first, then Debian's versioned directories.
bindir() {
	local d
	if command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then
		dirname "$(readlink -f "$(command -v pg_ctl)")"
		return
	fi
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
	[[ -n "$d" && -x "$d/initdb" ]] && echo "$d"
}

# as_owner runs a server command as the data directory's owner: the
# postgres user when we are root (initdb and postgres refuse root).
as_owner() {
	if [[ $(id -u) -eq 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# pg_tool prints the path of a client program (psql, createdb).
pg_tool() {
	if command -v "$1" >/dev/null; then
		echo "$1"
	else
		echo "$(bindir || true)/$1"
	fi
}

# has_db prints 1 when database $db exists on the server at 127.0.0.1:$1,
# nothing when it does not; it fails when the server refuses user postgres.
has_db() {
	PGCONNECT_TIMEOUT=5 "$(pg_tool psql)" -X -h 127.0.0.1 -p "$1" -U postgres -d postgres -tAc \
		"SELECT 1 FROM pg_database WHERE datname = '$db'"
}

# ensure_db creates the database on the server at 127.0.0.1:$1 if missing.
ensure_db() {
	local p=$1 have
	have=$(has_db "$p") || return 1
	if [[ "$have" != 1 ]]; then
		say "creating database $db on port $p"
		PGCONNECT_TIMEOUT=5 "$(pg_tool createdb)" -h 127.0.0.1 -p "$p" -U postgres "$db" || return 1
	fi
}

answers() { # answers PORT: a server accepts connections on 127.0.0.1:PORT
	if command -v pg_isready >/dev/null; then
		pg_isready -q -h 127.0.0.1 -p "$1" -t 3
	else
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
	fi
}

ours_running() {
	local bd
	bd=$(bindir) || return 1
	[[ -f "$data/PG_VERSION" ]] && as_owner "$bd/pg_ctl" -D "$data" status >/dev/null 2>&1
}

case "$cmd" in
stop)
	if ours_running; then
		as_owner "$(bindir)/pg_ctl" -D "$data" -m fast -w stop >&2
	else
		say "no private server running in $data"
	fi
	exit 0
	;;
remove)
	if ours_running; then
		as_owner "$(bindir)/pg_ctl" -D "$data" -m fast -w stop >&2
	fi
	if [[ -d "$dir" ]]; then
		say "removing $dir ($(du -sh "$dir" 2>/dev/null | cut -f1))"
		rm -rf "$dir"
	else
		say "nothing to remove: no $dir"
	fi
	exit 0
	;;
status | url) ;;
*) die "unknown command $cmd (want url, stop, status or remove)" ;;
esac

# 1. Configured URL.
for v in TESSERA_DATABASE_URL DATABASE_URL; do
	if [[ -n "${!v:-}" ]]; then
		[[ "$cmd" == status ]] && say "using \$$v"
		if command -v pg_isready >/dev/null && ! pg_isready -q -d "${!v}" -t 5; then
			die "\$$v is set but its server does not answer"
		fi
		echo "${!v}"
		exit 0
	fi
done

# 2. A shared server on the standard port, if it lets us in as postgres.
# status only looks: it creates no database there.
if [[ "$sysport" != none ]] && answers "$sysport"; then
	if [[ "$cmd" == status ]] && have=$(has_db "$sysport" 2>/dev/null); then
		if [[ "$have" == 1 ]]; then
			say "using database $db on the server on 127.0.0.1:$sysport (another: set TESSERA_DATABASE_URL)"
		else
			say "would use the server on 127.0.0.1:$sysport, creating database $db there (another: set TESSERA_DATABASE_URL; TESSERA_PG_SYSTEM_PORT=none for a private server)"
		fi
		url_for "$sysport"
		exit 0
	fi
	if [[ "$cmd" != status ]] && ensure_db "$sysport" 2>/dev/null; then
		url_for "$sysport"
		exit 0
	fi
	say "a server answers on 127.0.0.1:$sysport but refuses user postgres; using a private server"
fi

# 3. The private server. status only reports it: it never creates or
# starts one.
if [[ "$cmd" == status ]]; then
	size=$(du -sh "$dir" 2>/dev/null | cut -f1 || true)
	if ours_running; then
		actual=$(sed -n 4p "$data/postmaster.pid" 2>/dev/null || true)
		say "private server running in $data on port ${actual:-$port} (${size:-?} on disk); stop: scripts/pg-local.sh stop, delete: scripts/pg-local.sh remove"
		url_for "${actual:-$port}"
	elif [[ -f "$data/PG_VERSION" ]]; then
		say "private server stopped in $data (${size:-?} on disk); scripts/pg-local.sh starts it, scripts/pg-local.sh remove deletes it"
	else
		say "no private server; scripts/pg-local.sh would create one in $data on port $port"
	fi
	exit 0
fi

bd=$(bindir) || true
if [[ -z "$bd" ]]; then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		say "PostgreSQL not found: installing the Debian postgresql package"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2 || die "apt-get install postgresql failed"
		bd=$(bindir) || true
	fi
	[[ -n "$bd" ]] || die "initdb/pg_ctl not found: install PostgreSQL (Debian: apt-get install postgresql) or set TESSERA_DATABASE_URL"
fi

if [[ $(id -u) -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
	say "creating system user postgres"
	useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin postgres
fi

mkdir -p "$dir"
if [[ $(id -u) -eq 0 ]]; then
	chown postgres: "$dir"
	chmod 700 "$dir"
	runuser -u postgres -- test -w "$dir" ||
		die "user postgres cannot write $dir (a parent directory is closed to it): set TESSERA_PG_DIR elsewhere"
fi

# Serialise concurrent runs (two make targets at once). The server must
# not inherit fd 9, or it would hold the lock for its whole life.
if command -v flock >/dev/null; then
	exec 9>>"$dir/lock"
	flock -w 120 9 || die "timed out waiting for another pg-local.sh"
fi

if [[ ! -f "$data/PG_VERSION" ]]; then
	say "initialising a private cluster in $data"
	as_owner mkdir -p "$data" "$sock"
	as_owner "$bd/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
		die "initdb failed; see $dir/initdb.log"
fi
as_owner mkdir -p "$sock"

if ! ours_running; then
	if answers "$port"; then
		die "port $port is taken by another server: set TESSERA_PG_PORT"
	fi
	say "starting the private server on 127.0.0.1:$port (log $log)"
	as_owner "$bd/pg_ctl" -D "$data" -l "$log" -w -t 60 \
		-o "-p $port -k $sock -c listen_addresses=127.0.0.1" start >&2 9>&- ||
		die "pg_ctl start failed; see $log"
fi

# Our server may run on another port than asked (started earlier with
# another TESSERA_PG_PORT): read it from postmaster.pid (line 4).
actual=$(sed -n 4p "$data/postmaster.pid" 2>/dev/null || true)
[[ -n "$actual" ]] && port="$actual"

for _ in $(seq 1 50); do
	answers "$port" && break
	sleep 0.2
done
ensure_db "$port" || die "cannot create database $db on the private server; see $log"
url_for "$port"
