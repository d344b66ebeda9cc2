#!/usr/bin/env bash
# Fuzzes one reader (zkey | wtns | r1cs | json) for SECONDS (default 300)
# with libFuzzer + ASan + UBSan, seeded from the committed fixtures.
# Usage: fuzz/run.sh zkey 300
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh zkey|wtns|r1cs|json [seconds]}
secs=${2:-300}
build=build-fuzz
if [ ! -x "$build/fuzz/fuzz_$target" ]; then
  CC=clang cmake -S . -B "$build" -DCZ_BUILD_FUZZ=ON -DCZ_BUILD_TESTS=OFF -DCZ_BUILD_BENCH=OFF \
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
esac
# the zkey seeds are up to 700 kB: allow inputs that large
"$build/fuzz/fuzz_$target" -max_total_time="$secs" -max_len=800000 -rss_limit_mb=4096 -timeout=60 "$corpus" 2>&1 | tail -n 5
