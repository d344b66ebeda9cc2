#!/usr/bin/env bash
# The shared job store's queue on loopback PostgreSQL servers that this
# script starts (tests/pg_cluster.sh) and stops: one as the tests run it
# (fsync off) and one with PostgreSQL's durable defaults (fsync on,
# synchronous_commit on: every claim and every result on disk before its
# answer), each with 1, 2 and 3 hosts (bench/bench_claims.c).
# Usage: bench/claims.sh path/to/bench_claims [bench_claims flags: --write, --jobs=N, ...]
set -eu
bin=${1:?usage: claims.sh path/to/bench_claims [flags]}
shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../tests/pg_cluster.sh"
pg_find || { echo "claims.sh: $PG_WHY" >&2; exit 1; }
tmp=$(mktemp -d /tmp/cz_bench_claims.XXXXXX)
dirs=()
cleanup() {
  for d in "${dirs[@]}"; do PG_DIR=$d/pg; pg_stop immediate; done
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/fast" "$tmp/durable"
pg_start "$tmp/fast" || { echo "claims.sh: $PG_WHY" >&2; exit 1; }
dirs+=("$tmp/fast")
fast=$PG_URL
CZ_PG_DURABLE=1 pg_start "$tmp/durable" || { echo "claims.sh: $PG_WHY" >&2; exit 1; }
dirs+=("$tmp/durable")
durable=$PG_URL
commit=$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
"$bin" --urls="$fast,$durable" --labels="PostgreSQL 15 loopback fsync off (as in the tests),PostgreSQL 15 loopback durable (fsync on; synchronous_commit on)" \
  --commit="$commit" "$@"
