#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL server (tests/pg_cluster.sh):
# starts it in a temporary directory, exports CZ_TEST_PG_URL (the server's
# "postgres" database as the user cuzk; tests make databases of their own),
# runs the command, stops and removes the server, also on failure, and exits
# with the command's status. Registered in ctest for test_store (its
# PostgreSQL cases). Without the server programs it fails, saying what to
# install (CI must run these cases), unless CZ_PG_OPTIONAL=1: then it prints
# the reason and exits 77 (ctest: skipped).
# Usage: tests/run_pg.sh COMMAND [ARGS...]
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/pg_cluster.sh"
[ $# -ge 1 ] || { echo "usage: run_pg.sh COMMAND [ARGS...]" >&2; exit 2; }
if ! pg_find; then
  echo "run_pg: $PG_WHY" >&2
  [ "${CZ_PG_OPTIONAL:-0}" = 1 ] && { echo "run_pg: skipped (CZ_PG_OPTIONAL=1)"; exit 77; }
  exit 1
fi
tmp=$(mktemp -d /tmp/cz_run_pg.XXXXXX)
cleanup() {
  pg_stop immediate
  if [ "${CZ_KEEP_TMP:-0}" = 1 ]; then echo "run_pg: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
pg_start "$tmp" || { echo "run_pg: $PG_WHY" >&2; exit 1; }
echo "run_pg: $("$PG_BIN/postgres" --version) on 127.0.0.1:$PG_PORT ($tmp)"
export CZ_TEST_PG_URL=$PG_URL
"$@"
