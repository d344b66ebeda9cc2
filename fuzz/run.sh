#!/usr/bin/env bash
# Fuzzes one reader (zkey | wtns | r1cs | json | http_job) for SECONDS (default 300)
# with libFuzzer + ASan + UBSan, seeded from the committed fixtures.
# Usage: fuzz/run.sh zkey 300
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh zkey|wtns|r1cs|json|http_job [seconds]}
secs=${2:-300}
build=build-fuzz
if [ ! -x "$build/fuzz/fuzz_$target" ]; then
  # no CUDA: the readers are host code, and with nvcc found the link would
  # go through g++, which has no -fsanitize=fuzzer
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCZ_CUDA=OFF -DCZ_BUILD_FUZZ=ON -DCZ_BUILD_TESTS=OFF -DCZ_BUILD_BENCH=OFF \
    -DCZ_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j "$(nproc)" --target "fuzz_$target" >/dev/null
fi
corpus="$build/corpus-$target"
mkdir -p "$corpus"
case $target in
  zkey|wtns|r1cs)
    ext=$target; [ "$target" = wtns ] && name=witness || name=circuit
    for f in tests/fixtures/*/*/"$name.$ext"; do cp "$f" "$corpus/$(echo "$f" | tr / _)"; done ;;
  json)
    for f in tests/fixtures/*/*/*.json; do cp "$f" "$corpus/$(echo "$f" | tr / _)"; done ;;
  http_job) # job descriptions (POST /v1/proofs) and paths
    printf '%s' '{"key": "k_0123456789abcdef", "witnesses": ["/tmp/a.wtns", "/tmp/b.wtns"]}' >"$corpus/seed1"
    printf '%s' '{"key": "/srv/keys/c.zkey", "priority": "high", "idempotency_key": "x-1"}' >"$corpus/seed2"
    printf '%s' '{"key": "k", "witnesses": [], "priority": "low", "idempotency_key": ""}' >"$corpus/seed3"
    printf '%s' 'allow/sub/../a.wtns' >"$corpus/seed4"
    printf '%s' 'Aupdir/secret' >"$corpus/seed5" ;;
esac
# the zkey seeds are up to 700 kB: allow inputs that large
"$build/fuzz/fuzz_$target" -max_total_time="$secs" -max_len=800000 -rss_limit_mb=4096 -timeout=60 "$corpus" 2>&1 | tail -n 5
