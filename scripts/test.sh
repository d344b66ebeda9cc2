#!/usr/bin/env bash
# The whole test suite: installs dependencies (Debian packages, pinned
# snarkjs), then builds and runs every CPU test (ctest label "cpu") in
#   1. the default build (x86-64 ADX/BMI2 fast path where available, the
#      CUDA code when nvcc is found), every test at full size;
#   2. an ASan+UBSan build of the portable C arithmetic (-DCZ_PORTABLE=ON):
#      the arithmetic tests (fields, towers, curves, pairing, MSM, NTT) at
#      CZ_PORTABLE_SCALE (default 0.1) of their iteration counts, the others
#      scaled down (CZ_SANITIZE_SCALE, default 0.02; the end-to-end scripts
#      in their quick forms, test_circuits left to the default build);
#   3. a ThreadSanitizer build of the threaded layers (memory budget, pool,
#      the GPU's store of resident blocks, engine, the daemon's job store,
#      the circuits' recording cache): test_budget, test_bufpool,
#      test_resident, test_engine, test_store, test_native.
# Each stage runs its tests side by side (ctest -j, one per core; the long
# ones first). Exits non-zero if any test fails. GPU tests (label "gpu") run on a GPU
# machine with: ctest -L gpu (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
./scripts/npm.sh
echo "=== [${SECONDS} s] dependencies in place"
jobs=$(nproc 2>/dev/null || echo 2)

# run NAME SCALE QUICK [-R regex | -E regex] -- cmake args...
# (SCALE "A:B" runs the tests of $arith at scale A and the others at B)
arith='^test_ff$|^test_tower$|^test_ec$|^test_pairing$|^test_msm$|^test_ntt$'
run() {
  local name=$1 scale=$2 quick=$3; shift 3
  local only=() targets=()
  if [ "${1:-}" = -R ]; then
    only=(-R "$2")
    IFS='|' read -r -a targets <<<"${2//[\^\$]/}"
    shift 2
  elif [ "${1:-}" = -E ]; then
    only=(-E "$2")
    shift 2
  fi
  [ "${1:-}" = -- ] && shift
  echo "=== [${SECONDS} s] $name: configure + build"
  cmake -S . -B "build-test-$name" -DCZ_BUILD_BENCH=OFF "$@" >/dev/null
  if [ ${#targets[@]} -gt 0 ]; then
    cmake --build "build-test-$name" -j "$jobs" --target "${targets[@]}" >/dev/null
  else
    cmake --build "build-test-$name" -j "$jobs" >/dev/null
  fi
  echo "=== [${SECONDS} s] $name: ctest"
  if [[ $scale == *:* ]]; then
    (cd "build-test-$name" && CZ_TEST_SCALE=${scale%%:*} ctest -j "$jobs" --output-on-failure -L cpu -R "$arith")
    (cd "build-test-$name" && CZ_TEST_SCALE=${scale##*:} CZ_CLI_QUICK=$quick ctest -j "$jobs" --output-on-failure -L cpu -E "$arith${only[1]:+|${only[1]}}")
  else
    (cd "build-test-$name" && CZ_TEST_SCALE=$scale CZ_CLI_QUICK=$quick ctest -j "$jobs" --output-on-failure -L cpu "${only[@]}")
  fi
}

# name, CZ_TEST_SCALE, CZ_CLI_QUICK (the end-to-end CLI test in full once)
run default 1 0 -- -DCMAKE_BUILD_TYPE=Release
# The CUDA code (built when nvcc is found) is compiled and its host-side tests
# run in the default build only: the other two test the C arithmetic paths.
# (test_ptx_mul, a Python emulation of the PTX products, and test_goal_table,
# a Python script on recorded logs, do not depend on the build: they run in
# the default build only)
# (test_circuits runs in the default build only: whole proofs of the C circuits with the portable arithmetic
# under ASan: 131 s alone, 208 s beside the others; the circuits' gadgets
# and synthesis run under ASan in test_gadgets, test_merkle and test_native)
run sanitize "${CZ_PORTABLE_SCALE:-0.1}:${CZ_SANITIZE_SCALE:-0.02}" 1 -E '^test_ptx_mul$|^test_goal_table$|^test_circuits$' -- -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZ_SANITIZE=address,undefined -DCZ_PORTABLE=ON -DCZ_CUDA=OFF
run thread 0.2 1 -R '^test_budget$|^test_bufpool$|^test_resident$|^test_engine$|^test_store$|^test_native$' -- -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCZ_SANITIZE=thread -DCZ_CUDA=OFF
echo "=== [${SECONDS} s] all test builds passed"
