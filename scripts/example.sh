#!/usr/bin/env bash
# The built-in example: installs what is missing, builds cuzk, proves the
# bundled Poseidon circuit on both curves, and verifies each proof with
# `cuzk verify` and with snarkjs (`snarkjs groth16 verify`, pinned in tests/js).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
./scripts/npm.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCZ_BUILD_TESTS=OFF -DCZ_BUILD_BENCH=OFF >/dev/null
cmake --build build -j "$jobs" --target cuzk >/dev/null
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
echo "proofs in $out"
