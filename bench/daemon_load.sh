#!/usr/bin/env bash
# The daemon under load: starts cuzkd (CPU backend, a fresh data directory,
# the BN254 poseidon fixture), runs bench_daemon against it (600 warm-up jobs,
# which fill the store's SQLite page cache, then 2000 jobs from 32 clients by
# default); with --write, its section "bench_daemon" of bench/RESULTS.md; then
# SIGTERM, which must end the daemon with status 0.
# Usage: bench/daemon_load.sh [BUILD_DIR] [bench_daemon flags...]
#   BUILD_DIR: where cuzkd and bench/bench_daemon were built (default build);
#   e.g. bench/daemon_load.sh build-t --jobs=200 --clients=8  (no --write: add it)
# Environment: CZ_LOAD_NOTE (a line for the results: the machine), CZ_LOAD_FLAGS
# (more cuzkd flags, e.g. "--http_threads 8").
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
cuzkd="$build/cuzkd"
bench="$build/bench/bench_daemon"
for f in "$cuzkd" "$bench"; do
  [ -x "$f" ] || { echo "daemon_load: $f not built (cmake -DCZ_BUILD_BENCH=ON, libcurl and the daemon's libraries)" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/cz_daemon_load.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/allow"
cp tests/fixtures/bn128/poseidon/circuit.zkey tests/fixtures/bn128/poseidon/witness.wtns "$tmp/allow/"
# a free port on loopback
port=
for _ in $(seq 50); do
  p=$((20000 + RANDOM % 40000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "daemon_load: no free port" >&2; exit 1; }
# shellcheck disable=SC2086
"$cuzkd" --listen "127.0.0.1:$port" --data_dir "$tmp/data" --allow_dir "$tmp/allow" --devices cpu \
  --preload "$tmp/allow/circuit.zkey" ${CZ_LOAD_FLAGS:-} 2>"$tmp/cuzkd.log" &
pid=$!
for _ in $(seq 200); do
  curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/cuzkd.log" >&2; exit 1; }
  sleep 0.05
done
note=${CZ_LOAD_NOTE:-"machine: $(nproc) cores, shared with other work: indicative figures"}
note="$note. The warm-up fills the store's SQLite page cache (2000 KiB) before the RSS is read. cuzkd --devices cpu ${CZ_LOAD_FLAGS:-}(defaults otherwise: max_jobs 10000, http_threads 4), BN254 poseidon fixture (domain 2^8), started by bench/daemon_load.sh"
rc=0
"$bench" --server="http://127.0.0.1:$port" --key="$tmp/allow/circuit.zkey" --witness="$tmp/allow/witness.wtns" \
  --jobs=2000 --clients=32 --warmup=600 --pid="$pid" --note="$note" "$@" || rc=$?
kill -TERM "$pid"
wait "$pid" || { echo "daemon_load: cuzkd exited with $? after SIGTERM" >&2; rc=1; }
pid=
grep -E " (warn|error) " "$tmp/cuzkd.log" | head -5 >&2 || true
exit $rc
