#!/usr/bin/env bash
# services.sh — Rebound's private PostgreSQL and Redis for development and tests.
#
#   scripts/services.sh up       install (as root, when missing) and start both; idempotent
#   scripts/services.sh down     stop both; no process is left behind
#   scripts/services.sh status   show what runs and where
#   scripts/services.sh env      print `export NAME='value'` lines for the URLs served
#   scripts/services.sh env NAME print one value (DATABASE_URL, REDIS_URL, ...)
#
# Everything lives under .run/ (git-ignored): .run/pg (cluster, socket, log) and
# .run/redis. Ports are non-default so a system PostgreSQL or Redis never interferes:
# REBOUND_PG_PORT (default 55432) and REBOUND_REDIS_PORT (default 56379).
#
# PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres`
# user created by Debian's package. When that user cannot reach the checkout (for
# example a clone under /root), the cluster's files go to /var/tmp/rebound-pg-<hash>
# and .run/pg is a symlink to them.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUN="$ROOT/.run"
PG_PORT=${REBOUND_PG_PORT:-55432}
REDIS_PORT=${REBOUND_REDIS_PORT:-56379}
PG_ROLE=rebound
PG_PASSWORD=rebound
PG_DB=rebound

DATABASE_URL="postgres://$PG_ROLE:$PG_PASSWORD@127.0.0.1:$PG_PORT/$PG_DB?sslmode=disable"
REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
# Tests use their own Redis database so they never touch a running worker's queues.
TEST_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/1"

log() { printf 'services: %s\n' "$*" >&2; }
die() { printf 'services: error: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# pg_bindir prints the directory of the newest installed PostgreSQL server binaries.
pg_bindir() {
	local d best=""
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && best="$d"
	done
	if [ -z "$best" ] && command -v initdb >/dev/null 2>&1; then
		best=$(dirname "$(readlink -f "$(command -v initdb)")")
	fi
	printf '%s' "$best"
}

have_redis() { command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; }

# install_missing installs Debian's postgresql and redis-server when they are absent,
# without letting the packages start their own default services.
install_missing() {
	local pkgs=()
	[ -n "$(pg_bindir)" ] || pkgs+=(postgresql)
	have_redis || pkgs+=(redis-server)
	command -v psql >/dev/null 2>&1 || pkgs+=(postgresql-client)
	[ ${#pkgs[@]} -eq 0 ] && return 0
	if ! is_root; then
		die "missing ${pkgs[*]}; install them (sudo apt-get install -y ${pkgs[*]}) or run as root"
	fi
	log "installing ${pkgs[*]} from Debian packages"
	local policy=/usr/sbin/policy-rc.d made_policy=""
	if [ ! -e "$policy" ]; then
		# Keep the packages' own cluster and redis from starting on default ports.
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		made_policy=1
	fi
	local rc=0
	{
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq &&
			apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
	} || rc=$?
	[ -n "$made_policy" ] && rm -f "$policy"
	[ $rc -eq 0 ] || die "apt-get install ${pkgs[*]} failed (exit $rc)"
}

# as_pg runs a command as the cluster's owner: postgres when we are root, else ourselves.
as_pg() {
	if is_root; then
		# From / so postgres is not left in a directory it may not read.
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

# pg_home prints (and prepares) the real directory that holds the cluster: .run/pg, or
# a /var/tmp directory symlinked from .run/pg when postgres cannot reach the checkout
# or the socket path would be too long.
pg_home() {
	mkdir -p "$RUN"
	if [ -L "$RUN/pg" ]; then
		readlink -f "$RUN/pg"
		return
	fi
	local home="$RUN/pg"
	local reachable=1
	if is_root && ! runuser -u postgres -- test -x "$RUN" 2>/dev/null; then
		reachable=""
	fi
	# Unix socket paths are limited to 107 bytes: sock/.s.PGSQL.NNNNN adds 20.
	if [ ${#home} -gt 80 ]; then
		reachable=""
	fi
	if [ -z "$reachable" ] && [ ! -d "$home" ]; then
		local hash
		hash=$(printf '%s' "$ROOT" | md5sum | cut -c1-12)
		local real="/var/tmp/rebound-pg-$hash"
		mkdir -p "$real"
		ln -sfn "$real" "$home"
		home="$real"
	fi
	printf '%s' "$home"
}

pg_up() {
	local bin home data sock
	bin=$(pg_bindir)
	[ -n "$bin" ] || die "PostgreSQL server binaries not found"
	home=$(pg_home)
	data="$home/data"
	sock="$home/sock"
	mkdir -p "$home" "$sock"
	if is_root; then
		chown postgres:postgres "$home" "$sock"
	fi
	chmod 700 "$home" "$sock"
	if [ ! -s "$data/PG_VERSION" ]; then
		log "initdb $data"
		as_pg "$bin/initdb" -D "$data" --username=postgres --encoding=UTF8 --no-locale \
			--auth-local=trust --auth-host=scram-sha-256 >"$home/initdb.log" 2>&1 ||
			{ cat "$home/initdb.log" >&2; die "initdb failed"; }
		as_pg tee -a "$data/postgresql.conf" >/dev/null <<CONF
# rebound: private development/test cluster (scripts/services.sh)
port = $PG_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$sock'
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
	fi
	if as_pg "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		log "PostgreSQL already running on 127.0.0.1:$PG_PORT"
	else
		log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
		as_pg "$bin/pg_ctl" -D "$data" -l "$home/postgresql.log" -w -t 60 start >/dev/null ||
			{ tail -n 20 "$home/postgresql.log" >&2; die "PostgreSQL did not start"; }
	fi
	local psql=(psql -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$PG_PORT" -U postgres -d postgres)
	"${psql[@]}" <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$PG_ROLE') THEN
    CREATE ROLE $PG_ROLE LOGIN CREATEDB PASSWORD '$PG_PASSWORD';
  END IF;
END \$\$;
SQL
	if [ "$("${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'")" != 1 ]; then
		"${psql[@]}" -c "CREATE DATABASE $PG_DB OWNER $PG_ROLE"
	fi
}

pg_down() {
	local bin home
	bin=$(pg_bindir)
	[ -e "$RUN/pg" ] || return 0
	home=$(readlink -f "$RUN/pg")
	[ -d "$home/data" ] || return 0
	if [ -n "$bin" ] && as_pg "$bin/pg_ctl" -D "$home/data" status >/dev/null 2>&1; then
		log "stopping PostgreSQL"
		as_pg "$bin/pg_ctl" -D "$home/data" -m fast -w -t 60 stop >/dev/null
	fi
}

redis_pid() {
	local pidfile="$RUN/redis/redis.pid" pid
	[ -s "$pidfile" ] || return 1
	pid=$(cat "$pidfile")
	kill -0 "$pid" 2>/dev/null || return 1
	printf '%s' "$pid"
}

redis_up() {
	local dir="$RUN/redis"
	mkdir -p "$dir"
	if redis_pid >/dev/null && redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
		log "Redis already running on 127.0.0.1:$REDIS_PORT"
		return 0
	fi
	log "starting Redis on 127.0.0.1:$REDIS_PORT"
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes \
		--pidfile "$dir/redis.pid" --dir "$dir" --logfile "$dir/redis.log" \
		--save '' --appendonly no >/dev/null
	local i
	for i in $(seq 1 100); do
		redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	tail -n 20 "$dir/redis.log" >&2
	die "Redis did not start"
}

redis_down() {
	local pid i
	pid=$(redis_pid) || return 0
	log "stopping Redis"
	redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || { rm -f "$RUN/redis/redis.pid"; return 0; }
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$RUN/redis/redis.pid"
}

status() {
	local bin home rc=0
	bin=$(pg_bindir)
	if [ -e "$RUN/pg" ] && home=$(readlink -f "$RUN/pg") && [ -n "$bin" ] &&
		as_pg "$bin/pg_ctl" -D "$home/data" status >/dev/null 2>&1; then
		echo "postgresql: running  $DATABASE_URL  (data $home/data)"
	else
		echo "postgresql: stopped"
		rc=3
	fi
	local pid
	if pid=$(redis_pid); then
		echo "redis:      running  $REDIS_URL  (pid $pid)"
	else
		echo "redis:      stopped"
		rc=3
	fi
	return $rc
}

print_env() {
	if [ $# -gt 0 ]; then
		case "$1" in
		DATABASE_URL | REBOUND_TEST_DATABASE_URL) printf '%s\n' "$DATABASE_URL" ;;
		REDIS_URL) printf '%s\n' "$REDIS_URL" ;;
		REBOUND_TEST_REDIS_URL) printf '%s\n' "$TEST_REDIS_URL" ;;
		*) die "env: unknown variable $1" ;;
		esac
		return
	fi
	printf "export DATABASE_URL='%s'\n" "$DATABASE_URL"
	printf "export REDIS_URL='%s'\n" "$REDIS_URL"
	printf "export REBOUND_TEST_DATABASE_URL='%s'\n" "$DATABASE_URL"
	printf "export REBOUND_TEST_REDIS_URL='%s'\n" "$TEST_REDIS_URL"
}

case "${1:-}" in
up)
	install_missing
	pg_up
	redis_up
	echo "DATABASE_URL=$DATABASE_URL"
	echo "REDIS_URL=$REDIS_URL"
	;;
down)
	pg_down
	redis_down
	;;
status) status ;;
env)
	shift
	print_env "$@"
	;;
*)
	echo "usage: $0 up|down|status|env [NAME]" >&2
	exit 2
	;;
esac
