#!/usr/bin/env bash
# Issue 17 on the GPU machine: the engine stream of the porep-like circuit
# (circuits written in C), each partition synthesized on the engine's workers
# (witness-only + the recorded R1CS's SpMV straight into the pool's pinned
# buffers), beside the same stream from the exported .wtns (the key's SpMV).
#
#   scripts/gpu_circuits.sh BINDIR [K ...]
#
# BINDIR holds cuzk built with CUDA. K (log2 of the size; default 22 24):
# porep-like with parents=6 depth=5 and challenges=4^((K - 20) / 2), the
# sizes of docs/CIRCUITS.md (2^20: 1 challenge, 2^22: 4, 2^24: 16). For each
# K: export (.r1cs/.wtns), `cuzk setup --insecure-dev`, then `cuzk
# bench-engine -d $CZ_DEVICES -j $JOBS -p 10` with --circuit (PCE in a
# folder: recorded once, then loaded) and with the .wtns. Reports go to $OUT
# (or ./gpu-out). A CPU dry run: CZ_DEVICES=cpu JOBS=1 PARTS=2 ... 20.
set -u
bin=$(cd "${1:?usage: gpu_circuits.sh BINDIR [K ...]}" && pwd)
shift
ks=("$@")
[ ${#ks[@]} -gt 0 ] || ks=(22 24)
dev=${CZ_DEVICES:-cuda}
nj=${JOBS:-10}
np=${PARTS:-10}
out=${OUT:-./gpu-out}
mkdir -p "$out"
cuzk=$bin/cuzk
w=$(mktemp -d /tmp/cz_gpu_circuits.XXXXXX)
trap 'rm -rf "$w"' EXIT
t() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(t)" 'BEGIN { printf "%.1f", b - a }'; }
echo '{"replica_id": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "seed": 7}' >"$w/in.json"
for k in "${ks[@]}"; do
  c=$((1 << (k - 20)))
  P="--param challenges=$c --param parents=6 --param depth=5"
  base=$w/pl$k
  t0=$(t)
  "$cuzk" circuit porep-like $P --input "$w/in.json" -o "$base" -q &&
    "$cuzk" setup --insecure-dev --seed 3 -q "$base.r1cs" "$base.zkey" || { echo "2^$k: key generation failed"; exit 1; }
  rm -f "$base.r1cs"
  echo "== 2^$k porep-like ($c challenges): key $(stat -c %s "$base.zkey") bytes, made in $(since "$t0") s"
  mkdir -p "$w/pce"
  echo "-- bench-engine --circuit porep-like (synthesized on the engine's workers)"
  CZ_ENGINE_TIMELINE=1 "$cuzk" bench-engine -q -d "$dev" -j "$nj" -p "$np" --circuit porep-like $P \
    --input "$w/in.json" --pce-dir "$w/pce" "$base.zkey" >"$out/circuit-$k-native.log" 2>"$out/circuit-$k-native.timeline"
  echo "rc $?"
  cat "$out/circuit-$k-native.log"
  echo "-- bench-engine with the exported .wtns"
  "$cuzk" bench-engine -q -d "$dev" -j "$nj" -p "$np" "$base.zkey" "$base.wtns" >"$out/circuit-$k-wtns.log" 2>&1
  echo "rc $?"
  cat "$out/circuit-$k-wtns.log"
  rm -rf "$base".* "$w/pce"
done
