#!/usr/bin/env bash
# The built-in example: installs what is missing, builds cuzk, proves the
# bundled Poseidon circuit on both curves, and verifies each proof with
# `cuzk verify` and with snarkjs (`snarkjs groth16 verify`, pinned in tests/js);
# then the same through the proving daemon cuzkd (`cuzk submit`).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
./scripts/npm.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCZ_BUILD_TESTS=OFF -DCZ_BUILD_BENCH=OFF >/dev/null
cmake --build build -j "$jobs" --target cuzk >/dev/null
have_daemon=0
if cmake --build build -j "$jobs" --target cuzkd >/dev/null 2>&1; then have_daemon=1; fi
out=$(mktemp -d /tmp/cuzk-example.XXXXXX)
for curve in bn128 bls12381; do
  F=tests/fixtures/$curve/poseidon
  echo "== $curve: cuzk prove $F/circuit.zkey $F/witness.wtns"
  ./build/cuzk prove -v "$F/circuit.zkey" "$F/witness.wtns" "$out/proof_$curve.json" "$out/public_$curve.json"
  echo "== $curve: cuzk verify"
  ./build/cuzk verify "$F/verification_key.json" "$out/public_$curve.json" "$out/proof_$curve.json"
  echo "== $curve: snarkjs groth16 verify"
  tests/js/verify.sh "$F/verification_key.json" "$out/public_$curve.json" "$out/proof_$curve.json"
done
if [ $have_daemon = 1 ]; then
  # the same through the proving daemon: cuzkd on a free loopback port, the
  # fixtures as its allowed directory, `cuzk submit` as the client
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  ./build/cuzkd --listen 127.0.0.1:$port --data-dir "$out/cuzkd" --allow-dir "$PWD/tests/fixtures" --log-level warn &
  pid=$!
  trap 'kill $pid 2>/dev/null || true' EXIT
  for i in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  for curve in bn128 bls12381; do
    F=$PWD/tests/fixtures/$curve/poseidon
    echo "== $curve: cuzk submit --server http://127.0.0.1:$port --key $F/circuit.zkey $F/witness.wtns"
    ./build/cuzk submit --server "http://127.0.0.1:$port" --key "$F/circuit.zkey" "$F/witness.wtns" \
      -o "$out/daemon_proof_$curve.json" --public "$out/daemon_public_$curve.json"
    echo "== $curve: snarkjs groth16 verify"
    tests/js/verify.sh "$F/verification_key.json" "$out/daemon_public_$curve.json" "$out/daemon_proof_$curve.json"
  done
  ./build/cuzk status --server "http://127.0.0.1:$port"
  kill -TERM $pid
  wait $pid
fi
echo "proofs in $out"
