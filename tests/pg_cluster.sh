# A throwaway PostgreSQL server for the tests (sourced by tests/test_cluster.sh
# and tests/run_pg.sh): a cluster made by initdb in a temporary directory,
# listening on 127.0.0.1 on a free port and on a unix socket inside that
# directory only, fsync off (the tests crash cuzkd, not the database;
# CZ_PG_DURABLE=1 keeps PostgreSQL's durable defaults), trust
# authentication for the one user "cuzk" on loopback. initdb and postgres
# refuse to run as root: as root the cluster belongs to an unprivileged user
# (postgres when it exists, else nobody) and its programs run through
# runuser. The caller stops it (pg_stop) in its EXIT trap.
#   pg_find          sets PG_BIN (initdb, pg_ctl, postgres) or returns 1 with PG_WHY
#   pg_start DIR     makes and starts the cluster in DIR/pg; sets PG_PORT, PG_URL
#   pg_stop [MODE]   stops it (MODE: fast, immediate); pg_restart starts it again
#   pg_sql DB SQL    one query through psql (unaligned, no headers)
PG_BIN=
PG_WHY=
PG_DIR=
PG_PORT=
PG_URL=
PG_USER=

pg_find() {
  local d
  for d in "${CZ_PG_BIN:-}" /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
    [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { PG_BIN=$d; break; }
  done
  if [ -z "$PG_BIN" ] && command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    PG_BIN=$(dirname "$(command -v initdb)")
  fi
  [ -n "$PG_BIN" ] || { PG_WHY="no PostgreSQL server programs (initdb, pg_ctl): install the Debian package postgresql"; return 1; }
  command -v psql >/dev/null 2>&1 || [ -x "$PG_BIN/psql" ] || { PG_WHY="no psql: install postgresql-client"; return 1; }
  return 0
}

# runs a server program as the cluster's owner
pg_as() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u "$PG_USER" -- "$@"
  else
    "$@"
  fi
}

# a port nobody listens on, below the kernel's ephemeral range (so that no
# outgoing connection takes it between now and a restart of the server)
pg_free_port() {
  local p lo=32768
  [ -r /proc/sys/net/ipv4/ip_local_port_range ] && read -r lo _ </proc/sys/net/ipv4/ip_local_port_range
  [ "$lo" -gt 12000 ] || lo=32768
  for _ in $(seq 50); do
    p=$((10000 + RANDOM % (lo - 10000)))
    (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  return 1
}

pg_start() {
  PG_DIR=$1/pg
  mkdir -p "$PG_DIR"
  if [ "$(id -u)" = 0 ]; then
    PG_USER=postgres
    id -u postgres >/dev/null 2>&1 || PG_USER=nobody
    chown "$PG_USER" "$PG_DIR"
    chmod 700 "$PG_DIR"
    # the parents must be searchable by that user
    local p=$1
    while [ "$p" != / ]; do chmod o+x "$p" 2>/dev/null; p=$(dirname "$p"); done
  fi
  pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U cuzk -A trust -E UTF8 --no-instructions >"$PG_DIR/initdb.log" 2>&1 ||
    { PG_WHY="initdb failed: $(tail -3 "$PG_DIR/initdb.log" | tr '\n' ' ')"; return 1; }
  local try
  for try in 1 2 3 4 5; do # (another program may bind the port first)
    PG_PORT=$(pg_free_port) || { PG_WHY="no free port"; return 1; }
    pg_restart && break
    [ $try = 5 ] && return 1
  done
  PG_URL="postgresql://cuzk@127.0.0.1:$PG_PORT/postgres"
  return 0
}

pg_restart() {
  local fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [ "${CZ_PG_DURABLE:-0}" = 1 ] && fast= # PostgreSQL's defaults: every commit on disk
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR $fast -c max_connections=200" \
    start >>"$PG_DIR/pg_ctl.log" 2>&1 ||
    { PG_WHY="the server did not start: $(tail -5 "$PG_DIR/server.log" 2>/dev/null | tr '\n' ' ')"; return 1; }
}

pg_stop() {
  [ -n "$PG_DIR" ] && [ -d "$PG_DIR/data" ] || return 0
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m "${1:-fast}" -w -t 60 stop >>"$PG_DIR/pg_ctl.log" 2>&1
}

# pg_sql DB SQL: one query, unaligned output without headers
pg_sql() {
  local psql=psql
  [ -x "$PG_BIN/psql" ] && psql=$PG_BIN/psql
  "$psql" -X -q -At -v ON_ERROR_STOP=1 "postgresql://cuzk@127.0.0.1:$PG_PORT/$1" -c "$2"
}
