#!/usr/bin/env bash
# The whole test suite: installs dependencies, then builds and runs ctest in
#   1. the default build (x86-64 asm fast path where available),
#   2. the portable C build (-DCZ_PORTABLE=ON),
#   3. an ASan+UBSan build (scaled-down iteration counts).
# Exits non-zero if any test fails. Build trees live in build-test-*/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

run() {
  local name=$1; shift
  echo "=== $name: configure + build"
  cmake -S . -B "build-test-$name" -DCZ_BUILD_BENCH=OFF "$@" >/dev/null
  cmake --build "build-test-$name" -j "$jobs" >/dev/null
  echo "=== $name: ctest"
  (cd "build-test-$name" && ctest --output-on-failure -L cpu -j 1)
}

run default -DCMAKE_BUILD_TYPE=Release
run portable -DCMAKE_BUILD_TYPE=Release -DCZ_PORTABLE=ON
CZ_TEST_SCALE=${CZ_SANITIZE_SCALE:-0.02} run sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZ_SANITIZE=address,undefined
echo "=== all test builds passed"
