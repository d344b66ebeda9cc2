#!/usr/bin/env bash
# Issue 14 on the GPU machine: cuzkd serving 2^K filecoin BLS12-381 jobs of
# 10 partitions, beside `cuzk bench-engine` on the same key and witness.
#
#   scripts/gpu_daemon.sh BINDIR [K [JOBS]]
#
# BINDIR holds cuzk, cuzkd and bench_daemon built with CUDA (the device has no
# Debian packages: the daemon's libraries travel beside them, in BINDIR/../lib,
# put on LD_LIBRARY_PATH here). K defaults to 22, JOBS to 20. Logs, the
# bench-engine report and bench_daemon's results section go to $OUT (or
# ./gpu-out). The same script runs on a CPU machine with CZ_DEVICES=cpu and a
# small K, as a dry run.
set -u
bin=$(cd "$1" && pwd)
k=${2:-22}
nj=${3:-20}
dev=${CZ_DEVICES:-cuda}
out=${OUT:-./gpu-out}
mkdir -p "$out"
[ -d "$bin/../lib" ] && export LD_LIBRARY_PATH="$(cd "$bin/../lib" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cuzk=$bin/cuzk cuzkd=$bin/cuzkd bd=$bin/bench_daemon
w=$(mktemp -d /tmp/cz_gpu_daemon.XXXXXX)
trap '[ -n "${dpid:-}" ] && kill "$dpid" 2>/dev/null; rm -rf "$w"' EXIT
base=$w/keys/e$k
mkdir -p "$w/keys" "$w/data"
t() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(t)" 'BEGIN { printf "%.1f", b - a }'; }

t0=$(t)
"$cuzk" gen-circuit --curve bls12-381 --constraints $(((1 << k) - 400)) --profile filecoin --seed 3 -o "$base" -q &&
  "$cuzk" setup --insecure-dev "$base.r1cs" "$base.zkey" --seed 3 -q || { echo "key generation failed"; exit 1; }
rm -f "$base.r1cs"
echo "2^$k filecoin key: $(stat -c %s "$base.zkey") bytes, made in $(since "$t0") s"

echo "== cuzk bench-engine -d $dev -j $nj -p 10"
CZ_ENGINE_TIMELINE=1 "$cuzk" bench-engine -q -d "$dev" -j "$nj" -p 10 "$base.zkey" "$base.wtns" \
  >"$out/daemon-engine.log" 2>"$out/daemon-engine.timeline"
echo "rc $?"
cat "$out/daemon-engine.log"

echo "== cuzkd --devices $dev, bench_daemon: $nj jobs x 10 partitions by path, 3 clients, 2 warm-up jobs"
port=$((20000 + RANDOM % 20000))
"$cuzkd" --listen 127.0.0.1:$port --data-dir "$w/data" --allow-dir "$w/keys" --devices "$dev" \
  --preload "$base.zkey" --log_level info >"$out/cuzkd.log" 2>&1 &
dpid=$!
for _ in $(seq 600); do # until the listener answers
  (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
  kill -0 $dpid 2>/dev/null || { echo "cuzkd exited: $(tail -5 "$out/cuzkd.log")"; exit 1; }
  sleep 0.2
done
"$bd" --server=http://127.0.0.1:$port --key="$base.zkey" --witness="$base.wtns" --by-path --partitions=10 \
  --jobs="$nj" --clients=3 --warmup=2 --pid=$dpid --write="$out/RESULTS-daemon.md" \
  --note="machine: $(nproc) cores, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); cuzkd --devices $dev (defaults otherwise), 2^$k filecoin BLS12-381 key (gen-circuit --profile filecoin --seed 3, setup --insecure-dev --seed 3), witnesses by path; bench-engine on the same files just before: $(grep -Eo '[0-9.]+ proofs/min[^;,]*' "$out/daemon-engine.log" | head -2 | tr '\n' ' ')" 2>&1 |
  tee "$out/daemon-bench.log"
echo "rc ${PIPESTATUS[0]}"

echo "== one cuzk submit (upload), verified against the key"
"$cuzk" export-vkey "$base.zkey" "$w/vk.json" -q 2>&1
t1=$(t)
"$cuzk" submit -q -s http://127.0.0.1:$port -k "$base.zkey" -o "$w/proof.json" --public "$w/public.json" "$base.wtns"
echo "submit rc $? in $(since "$t1") s"
"$cuzk" verify "$w/vk.json" "$w/public.json" "$w/proof.json"
echo "verify rc $?"
kill -TERM $dpid
wait $dpid
echo "cuzkd exit $?"
dpid=
