#!/usr/bin/env bash
# Runs on the GPU machine (H200): builds cuzk with CUDA and runs what needs a
# GPU, in stages, each writing its log under $OUT (or ./gpu-out):
#
#   scripts/gpu_check.sh build          configure + build (Release, sm_90)
#   scripts/gpu_check.sh test           ctest -L gpu (kernels against the CPU)
#   scripts/gpu_check.sh testbig        the same with CZ_GPU_TEST_BIG=1 (sizes up to 2^24)
#   scripts/gpu_check.sh prove [K..]    gen-circuit + setup + prove on cuda and
#                                       cpu for 2^K (default 16 20), both curves,
#                                       dense and filecoin profiles; proofs are
#                                       verified by cuzk and kept for snarkjs
#   scripts/gpu_check.sh setup24        timed 2^24 setup of both curves (issue:
#                                       2^24 keys in < 10 min on this machine)
#   scripts/gpu_check.sh bench          bench_gpu_msm and bench_gpu_ntt --write
#                                       (into RESULTS-gpu.md of the archive)
#   scripts/gpu_check.sh msm            bench_gpu_msm alone
#   scripts/gpu_check.sh ptx            a second build with -DCZ_CUDA_PTX=OFF (the
#                                       compiler's products in the MSM and NTT; the default
#                                       build has the PTX carry chains): its GPU
#                                       tests and the MSM and NTT benchmarks, to compare
#   scripts/gpu_check.sh buildptx       that build alone (build + buildptx at the
#                                       start run both builds side by side); with
#                                       CZ_GPU_OTHER="-DFLAG=.." the other build
#                                       takes those flags instead of -DCZ_CUDA_PTX=OFF
#                                       (e.g. -DCZ_CUDA_PTX_MONT=OFF), in build-gpu-ptx
#   scripts/gpu_check.sh testsboth      testbig of the default build and test of
#                                       the other (ptx) build side by side (correctness
#                                       only: they share the GPU)
#   scripts/gpu_check.sh warm K[:curve[:profile]] ..
#                                       warm proofs: gen-circuit + setup, then
#                                       `cuzk prove --repeat 4 -v` on cuda (key
#                                       resident, pinned a/b/c; medians of 2..4)
#   scripts/gpu_check.sh goals [OLD]    issue 16's goal table (goals.md, tools/goal_table.py):
#                                       the MSM and NTT benchmarks and the 2^22 filecoin and
#                                       2^24 dense engine streams of this build and, beside
#                                       them, of the build (or carried binaries in the same
#                                       layout: bench/, cuzk) in directory OLD;
#                                       CZ_GOALS_DENSE=0 skips the 2^24 key (minutes to make)
#   scripts/gpu_check.sh ab DIR..       carried builds side by side (DIR/tests/test_gpu_*,
#                                       DIR/bench/bench_gpu_{ntt,msm,ff}: built elsewhere; each
#                                       where present): each one's GPU tests, then the NTT
#                                       (2^22..2^24), MSM (--max-log=24, CZ_GPU_AB_MSM_LOG) and
#                                       field-product benchmarks of
#                                       all in turn, CZ_GPU_AB_ROUNDS (2) rounds, the order
#                                       reversed in the even ones; rows in ab.md;
#                                       CZ_GPU_AB_TESTS=0 skips the tests; CZ_GPU_AB_EXTRA="ARGS"
#                                       also runs bench_gpu_msm ARGS once per build, after
#                                       the rounds (e.g. "--trace --max-log=24 --repeats=1",
#                                       or a --sweep=...), into ab-extra-DIR.txt;
#                                       scripts/gpu_bundle.sh NAME [FLAGS] makes such a DIR
#                                       here (.gpu-bin/NAME, in a fresh build folder)
#   scripts/gpu_check.sh trace          bench_gpu_msm --trace: MSM phases up to 2^24
#   scripts/gpu_check.sh nttprof [DIR]  the NTT pass kernel at 2^24 (DIR's bench_gpu_ntt,
#                                       default the build's): --tile x --cols sweep and
#                                       ncu sections (pipes, warp states, memory)
#   scripts/gpu_check.sh sass           cuobjdump -sass / -res-usage of cuda/{ntt,msm,device}.cu.o
#                                       and their instruction mix (tools/sass_mix.py)
#   scripts/gpu_check.sh engine [K:profile[:jobs[:nopin_jobs]]]..
#                                       cuzk bench-engine (issue 6): jobs (20) x 10
#                                       partitions (default: 2^22 filecoin and 2^24
#                                       dense, BLS12-381), pinned, then nopin_jobs
#                                       (5) x 10 with --no-pin; the timeline kept;
#                                       CZ_GPU_ENGINE_AB=DIR also runs DIR/cuzk (a
#                                       bundle) on the same key, then this build's
#                                       again, then DIR's (engine-*-abR.log)
#   scripts/gpu_check.sh lanes [K:profile[:jobs[:order]]]..
#                                       cuzk bench-engine with --lanes N, N in order
#                                       (default 2121: 2, 1, 2, 1), jobs (2) x 10 partitions
#                                       on one key (default 26:filecoin; keys made in
#                                       /dev/shm where it has room), BLS12-381: proofs/min,
#                                       lane waits, peak VRAM (nvidia-smi every 0.5 s) and RSS;
#                                       CZ_GPU_LANES_TW="default fit 4" repeats each run with
#                                       CZ_MSM_TABLE_WINDOWS unset, =fit, =4 (partial tables)
#   scripts/gpu_check.sh multi [K:profile[:jobs]]..
#                                       issue 7: bench-engine on 1 GPU and on every
#                                       GPU (default 2^22 filecoin, 20 x 10), then
#                                       with GPU 1 failing (CZ_ENGINE_FAIL_DEVICE)
#
# Stages can be combined: scripts/gpu_check.sh build test prove 16 20.
# CZ_GPU_TARGETS overrides the build targets (e.g. just cuzk); CZ_GPU_CMAKE adds
# CMake flags to the build (e.g. -DCZ_CUDA_PTX_MONT=OFF); CZ_GPU_PIN_KEYS=1
# adds a --pin-keys run (1 job) to the engine stage; CZ_GPU_ENGINE_DEV sets the
# device list of the engine and goals streams (default cuda; cuda:0,0 runs two
# device steps at once on GPU 0, sharing its key).
# The GPU machine has no Debian packages: GMP (the tests' oracle) comes from
# the .deb files in .debs/ (apt-get download libgmp-dev libgmp10), unpacked
# under /tmp/gmp; carry .debs with the call.
set -uo pipefail
cd "$(dirname "$0")/.."
# Logs, proofs and results go to a work folder; on exit it is packed into
# ONE file, $OUT/gpu-check.tar.gz (the device tool brings back at most 8).
final=${OUT:-gpu-out}
out=$(mktemp -d /tmp/gpu-check.XXXXXX)
mkdir -p "$final"
trap 'tar czf "$final/gpu-check.tar.gz" -C "$out" . 2>/dev/null' EXIT
# an outer `timeout` (the device tool's 10-minute limit) still gets the archive
trap 'echo "stopped by signal" >>"$out/stopped.txt"; exit 124' TERM INT
bld=${CZ_GPU_BUILD:-build-gpu} # (another tree: for a dry run of the scripting)
# only what the stages use (the host-side CUDA tests run in CI)
targets=${CZ_GPU_TARGETS:-"cuzk test_gpu_ff test_gpu_ntt test_gpu_msm bench_gpu_msm bench_gpu_ntt"}
jobs=$(nproc 2>/dev/null || echo 4)

gmp() {
  if [ ! -f /tmp/gmp/usr/include/x86_64-linux-gnu/gmp.h ] && [ ! -f /tmp/gmp/usr/include/gmp.h ]; then
    for f in .debs/*.deb; do dpkg -x "$f" /tmp/gmp; done
  fi
  inc=$(dirname "$(find /tmp/gmp -name gmp.h | head -1)")
  lib=$(find /tmp/gmp -name 'libgmp.so*' | head -1)
  ln -sf "$lib" /tmp/gmp/libgmp.so
  dirname "$lib" >/tmp/gmp/libdir # libgmp.so.10 for the loader (LD_LIBRARY_PATH)
  echo "-DGMP_INCLUDE_DIR=$inc -DGMP_LIBRARY=/tmp/gmp/libgmp.so"
}

# timed CMD...: runs CMD, prints "wall_s maxrss_kib" on fd 3 (python3 is on
# the GPU image; /usr/bin/time and bc may not be)
timed() {
  python3 -c '
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(sys.argv[1:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f %d" % (time.time() - t, r.ru_maxrss), file=open("/dev/fd/3", "w"))
sys.exit(rc)' "$@"
}

stage_build() {
  local flags
  flags=$(gmp)
  export LD_LIBRARY_PATH=$(cat /tmp/gmp/libdir 2>/dev/null):${LD_LIBRARY_PATH:-}
  # shellcheck disable=SC2086
  cmake -S . -B $bld -DCMAKE_BUILD_TYPE=Release -DCZ_CUDA=ON $flags ${CZ_GPU_CMAKE:-} >"$out/build.log" 2>&1 &&
    cmake --build $bld -j "$jobs" --target $targets >>"$out/build.log" 2>&1
  local rc=$?
  tail -5 "$out/build.log"
  return $rc
}

# configure + build the PTX variant (tree build-gpu-ptx)
stage_buildptx() {
  local flags
  flags=$(gmp)
  # shellcheck disable=SC2086
  cmake -S . -B build-gpu-ptx -DCMAKE_BUILD_TYPE=Release -DCZ_CUDA=ON ${CZ_GPU_OTHER:--DCZ_CUDA_PTX=OFF} $flags \
    >"$out/build-ptx.log" 2>&1 &&
    cmake --build build-gpu-ptx -j "$jobs" --target $targets >>"$out/build-ptx.log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || tail -20 "$out/build-ptx.log"
  return $rc
}

# both GPU test runs at once (the GPU has room; the CPU oracles share the cores)
stage_testsboth() {
  export LD_LIBRARY_PATH=$(cat /tmp/gmp/libdir 2>/dev/null):${LD_LIBRARY_PATH:-}
  (cd $bld && CZ_GPU_TEST_BIG=1 ctest -L gpu --timeout 550 --output-on-failure) >"$out/test-gpu-big.log" 2>&1 &
  local p1=$!
  (cd build-gpu-ptx && ctest -L gpu --timeout 550 --output-on-failure) >"$out/test-gpu-ptx.log" 2>&1 &
  local p2=$!
  wait $p1
  local r1=$?
  wait $p2
  local r2=$?
  echo "== default build, CZ_GPU_TEST_BIG=1:"
  grep -E "Test #|tests passed|FAIL|fail" "$out/test-gpu-big.log" | head -40
  echo "== the other build (${CZ_GPU_OTHER:--DCZ_CUDA_PTX=OFF}):"
  grep -E "Test #|tests passed|FAIL|fail" "$out/test-gpu-ptx.log" | head -40
  [ $r1 -eq 0 ] && [ $r2 -eq 0 ]
}

# ab DIR..: carried builds (DIR/tests/test_gpu_*, DIR/bench/bench_gpu_{ntt,msm,ff})
# side by side: each one's GPU tests, then the NTT and MSM benchmarks of all of
# them in turn, CZ_GPU_AB_ROUNDS times (default 2), the order reversed every
# other round; ab.md sums up the rows of each round
stage_ab() {
  local d r i order rounds=${CZ_GPU_AB_ROUNDS:-2} rc=0
  for d in "$@"; do
    [ -d "$d" ] || { echo "ab: $d is not a directory" >&2; return 1; }
    # what the bundle is (scripts/gpu_bundle.sh writes BUILD.txt)
    [ -f "$d/BUILD.txt" ] && sed "s|^|ab: $d: |" "$d/BUILD.txt" | tee -a "$out/ab-builds.txt"
    for t in "$d"/tests/test_gpu_*; do
      [ -x "$t" ] && [ "${CZ_GPU_AB_TESTS:-1}" != 0 ] || continue
      timeout 300 "$t" >"$out/ab-test-$(basename "$d")-$(basename "$t").log" 2>&1
      r=$?
      echo "ab: $d $(basename "$t"): rc $r, $(tail -1 "$out/ab-test-$(basename "$d")-$(basename "$t").log")"
      [ $r -eq 0 ] || rc=1
    done
  done
  for ((i = 1; i <= rounds; i++)); do
    order=("$@")
    if [ $((i % 2)) -eq 0 ]; then
      order=()
      for d in "$@"; do order=("$d" "${order[@]}"); done
    fi
    for d in "${order[@]}"; do
      local tag
      tag=$(basename "$d")-$i
      [ -x "$d/bench/bench_gpu_ntt" ] &&
        timeout 120 "$d/bench/bench_gpu_ntt" --min=22 --max=24 --repeats=5 >"$out/ab-ntt-$tag.txt" 2>&1
      [ -x "$d/bench/bench_gpu_msm" ] &&
        timeout 200 "$d/bench/bench_gpu_msm" --max-log=${CZ_GPU_AB_MSM_LOG:-24} --g2-log=22 --repeats=3 \
          >"$out/ab-msm-$tag.txt" 2>&1
      [ -x "$d/bench/bench_gpu_ff" ] && timeout 60 "$d/bench/bench_gpu_ff" >"$out/ab-ff-$tag.txt" 2>&1
      echo "ab: round $i $d done"
    done
  done
  if [ -n "${CZ_GPU_AB_EXTRA:-}" ]; then
    for d in "$@"; do
      # shellcheck disable=SC2086
      [ -x "$d/bench/bench_gpu_msm" ] &&
        timeout 200 "$d/bench/bench_gpu_msm" $CZ_GPU_AB_EXTRA >"$out/ab-extra-$(basename "$d").txt" 2>&1
      echo "ab: extra $d: rc $?"
    done
  fi
  for f in "$out"/ab-ntt-*.txt "$out"/ab-msm-*.txt "$out"/ab-ff-*.txt; do
    [ -f "$f" ] || continue
    echo "== $(basename "$f" .txt)"
    grep -E '^\| (bn254|bls12_381|BLS12-381|BN254)' "$f" | grep -vE 'streamed|repeated'
  done >"$out/ab.md"
  return $rc
}

# nttprof [DIR]: what bounds the NTT's pass kernel. DIR/bench/bench_gpu_ntt
# (default: the build's) at 2^24, BLS12-381 and BN254: a sweep of the pass
# shape (--tile 10..12 x --cols 0..3, the default first and last), then ncu
# (when present) on the first k_pass launches of one forward transform
# (speed of light, pipes, warp states, memory, occupancy, instruction mix)
stage_nttprof() {
  local d=${1:-$bld} f t c rc=0
  local b="$d/bench/bench_gpu_ntt"
  [ -x "$b" ] || { echo "nttprof: no $b" >&2; return 1; }
  for f in bls12_381 bn254; do
    timeout 60 "$b" --min=24 --max=24 --field=$f --repeats=5 >"$out/nttprof-$f-default.txt" 2>&1 || rc=1
    for t in 10 11 12; do
      for c in 0 1 2 3; do
        timeout 60 "$b" --min=24 --max=24 --field=$f --repeats=5 --tile=$t --cols=$c \
          >"$out/nttprof-$f-t$t-c$c.txt" 2>&1 || rc=1
      done
    done
    timeout 60 "$b" --min=24 --max=24 --field=$f --repeats=5 >"$out/nttprof-$f-default2.txt" 2>&1 || rc=1
    for g in "$out"/nttprof-$f-*.txt; do
      echo "$(basename "$g" .txt): $(grep -E '^\| *(bn254|bls12_381)' "$g" | head -1)"
    done | tee "$out/nttprof-$f.md"
  done
  if command -v ncu >/dev/null; then
    for f in bls12_381 bn254; do
      timeout 240 ncu --clock-control none -k regex:k_pass --launch-count 3 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats \
        --section SchedulerStats "$b" --min=24 --max=24 --field=$f --repeats=1 --min-ms=1 \
        >"$out/nttprof-ncu-$f.txt" 2>&1 || rc=1
      grep -E 'k_pass|Duration|Throughput|Pipe|Issue Slots|Warp Cycles|Stall|Registers|Achieved Occupancy|Executed Ipc' \
        "$out/nttprof-ncu-$f.txt" | head -60
    done
  else
    echo "nttprof: no ncu on this machine"
  fi
  return $rc
}

# warm K[:curve[:profile]]: the proofs the goals speak of (key resident)
stage_warm() {
  local spec k curve prof curves profs
  for spec in "$@"; do
    IFS=: read -r k curve prof <<<"$spec"
    curves=${curve:-bls12-381 bn254}
    profs=${prof:-dense filecoin}
    for curve in $curves; do
      for prof in $profs; do
        local n=$(((1 << k) - 400)) base=/tmp/w$k-$curve-$prof
        ./$bld/cuzk gen-circuit --curve $curve --constraints $n --profile $prof --seed 2 -o $base -q &&
          ./$bld/cuzk setup --insecure-dev $base.r1cs $base.zkey --seed 2 -q 2>/dev/null || {
          echo "2^$k $curve $prof: key generation failed"
          continue
        }
        if ./$bld/cuzk prove --device cuda --repeat 4 -v $base.zkey $base.wtns $base.proof.json $base.public.json \
          >"$out/warm-$k-$curve-$prof.log" 2>&1; then
          echo "2^$k $curve $prof warm: $(grep -E 'time: (synthesis|msm|finalize)' "$out/warm-$k-$curve-$prof.log" | tr '\n' ' ')"
        else
          echo "2^$k $curve $prof warm: FAILED (see warm-$k-$curve-$prof.log)"
        fi
        rm -f $base.zkey $base.r1cs $base.wtns
      done
    done
  done 2>&1 | tee -a "$out/warm.log"
}

# engine K:profile[:jobs[:nopin_jobs]] ..: bench-engine streams of `jobs`
# jobs x 10 partitions (default 20, and 5 with --no-pin), BLS12-381
stage_engine() {
  [ -x ./$bld/cuzk ] || stage_build || return 1
  local spec k prof nj nn base
  for spec in "$@"; do
    IFS=: read -r k prof nj nn <<<"$spec"
    nj=${nj:-20} nn=${nn:-5}
    base=/tmp/e$k-$prof
    ./$bld/cuzk gen-circuit --curve bls12-381 --constraints $(((1 << k) - 400)) --profile $prof --seed 3 -o $base -q &&
      ./$bld/cuzk setup --insecure-dev $base.r1cs $base.zkey --seed 3 -q 2>/dev/null || {
      echo "2^$k $prof: key generation failed"
      continue
    }
    CZ_ENGINE_TIMELINE=1 ./$bld/cuzk bench-engine -q -d "${CZ_GPU_ENGINE_DEV:-cuda}" -j $nj -p 10 $base.zkey $base.wtns \
      >"$out/engine-$k-$prof.log" 2>"$out/engine-$k-$prof.timeline"
    cat "$out/engine-$k-$prof.log"
    if [ -n "${CZ_GPU_ENGINE_AB:-}" ]; then # the other build on the same key: other, this, other
      local r b
      for r in 1 2 3; do
        b=$CZ_GPU_ENGINE_AB/cuzk
        [ $r = 2 ] && b=./$bld/cuzk
        echo "== engine A/B round $r: $b"
        "$b" bench-engine -q -d "${CZ_GPU_ENGINE_DEV:-cuda}" -j $nj -p 10 $base.zkey $base.wtns 2>&1 |
          tee "$out/engine-$k-$prof-ab$r.log"
      done
    fi
    [ "$nn" -gt 0 ] &&
      ./$bld/cuzk bench-engine -q -d cuda -j $nn -p 10 --no-pin $base.zkey $base.wtns 2>&1 | tee "$out/engine-$k-$prof-nopin.log"
    [ -n "${CZ_GPU_PIN_KEYS:-}" ] && # keys pinned too: load time and first placement
      CZ_ENGINE_TIMELINE=1 ./$bld/cuzk bench-engine -q -d cuda -j 1 -p 10 --pin-keys $base.zkey $base.wtns \
        2>"$out/engine-$k-$prof-pinkeys.timeline" | tee "$out/engine-$k-$prof-pinkeys.log"
    rm -f $base.zkey $base.r1cs $base.wtns
  done 2>&1 | tee -a "$out/engine.log"
}

# lanes K:profile[:jobs[:order]] ..: issue 16: two lanes per GPU (the default)
# against one where the key and its working sets fill the VRAM
stage_lanes() {
  [ -x ./$bld/cuzk ] || stage_build || return 1
  local spec k prof nj order base dir need i lanes smi peak log
  for spec in "$@"; do
    IFS=: read -r k prof nj order <<<"$spec"
    nj=${nj:-2} order=${order:-2121}
    # r1cs + zkey + wtns: ~1 KiB per constraint at 2^26 (63 GB), more than /tmp's disk
    need=$(((1 << k) / 1024 * 1100)) # KiB
    dir=/tmp
    [ "$(df --output=avail -k /dev/shm 2>/dev/null | tail -1)" -gt "$need" ] 2>/dev/null && dir=/dev/shm
    base=$dir/l$k-$prof
    timed ./$bld/cuzk gen-circuit --curve bls12-381 --constraints $(((1 << k) - 400)) --profile $prof --seed 3 -o $base -q \
      3>/tmp/t.txt && echo "2^$k $prof gen-circuit: wall s / max RSS KiB: $(cat /tmp/t.txt)" &&
      timed ./$bld/cuzk setup --insecure-dev $base.r1cs $base.zkey --seed 3 -q 2>/dev/null 3>/tmp/t.txt &&
      echo "2^$k $prof setup: wall s / max RSS KiB: $(cat /tmp/t.txt), key $(stat -c %s $base.zkey) bytes" || {
      echo "2^$k $prof: key generation failed"
      rm -f $base.*
      continue
    }
    rm -f $base.r1cs
    for ((i = 0; i < ${#order}; i++)); do
      lanes=${order:i:1}
      for tw in ${CZ_GPU_LANES_TW:-default}; do
        log=$out/lanes-$k-$prof-$i-l$lanes-$tw
        nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 >$log.vram 2>/dev/null &
        smi=$!
        # tw: CZ_MSM_TABLE_WINDOWS of this run (whole|fit|K), "default" = unset
        ( [ "$tw" = default ] || export CZ_MSM_TABLE_WINDOWS=$tw
          CZ_ENGINE_TIMELINE=1 timed ./$bld/cuzk bench-engine -q -d "${CZ_GPU_ENGINE_DEV:-cuda}" --lanes $lanes -j $nj -p 10 \
            $base.zkey $base.wtns >$log.txt 2>$log.timeline 3>/tmp/t.txt )
        kill $smi 2>/dev/null
        wait $smi 2>/dev/null
        peak=$(sort -n $log.vram | tail -1)
        echo "== 2^$k $prof, --lanes $lanes, tables $tw, $nj x 10: peak VRAM ${peak:-?} MiB, wall s / max RSS KiB $(cat /tmp/t.txt)"
        cat $log.txt
      done
    done
    rm -f $base.*
  done 2>&1 | tee -a "$out/lanes.log"
}

# multi K:profile[:jobs] ..: issue 7: bench-engine with jobs (20) x 10
# partitions on 1 GPU, then on every GPU, then on every GPU with GPU 1
# failing at its 5th device step (2 jobs); BLS12-381
stage_multi() {
  [ -x ./$bld/cuzk ] || stage_build || return 1
  local ng spec k prof nj base g
  ng=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  for spec in "$@"; do
    IFS=: read -r k prof nj <<<"$spec"
    nj=${nj:-20}
    base=/tmp/m$k-$prof
    ./$bld/cuzk gen-circuit --curve bls12-381 --constraints $(((1 << k) - 400)) --profile $prof --seed 3 -o $base -q &&
      ./$bld/cuzk setup --insecure-dev $base.r1cs $base.zkey --seed 3 -q 2>/dev/null || {
      echo "2^$k $prof: key generation failed"
      continue
    }
    for g in 1 $ng; do
      CZ_ENGINE_TIMELINE=1 ./$bld/cuzk bench-engine -q -d cuda -g $g -j $nj -p 10 $base.zkey $base.wtns \
        >"$out/multi-$k-$prof-g$g.log" 2>"$out/multi-$k-$prof-g$g.timeline"
      echo "== 2^$k $prof, $g GPU(s), rc $?"
      cat "$out/multi-$k-$prof-g$g.log"
    done
    echo "== 2^$k $prof, $ng GPUs, GPU 1 failing at its 5th step"
    CZ_ENGINE_FAIL_DEVICE=1:5 ./$bld/cuzk bench-engine -q -d cuda -j 2 -p 10 $base.zkey $base.wtns 2>&1 |
      tee "$out/multi-$k-$prof-fail.log"
    rm -f $base.zkey $base.r1cs $base.wtns
  done 2>&1 | tee -a "$out/multi.log"
}

# sass: the kernels' machine code (cuobjdump -sass, -res-usage) of the NTT and
# MSM objects and their instruction mix (tools/sass_mix.py), for reading here
stage_sass() {
  local o f
  for o in ntt msm device; do
    f=$bld/CMakeFiles/cuzk_core.dir/cuda/$o.cu.o
    [ -f "$f" ] || { echo "sass: $f missing (run the build stage)"; return 1; }
    cuobjdump -sass "$f" >"$out/$o.sass" 2>&1 || return 1
    cuobjdump -res-usage "$f" >"$out/$o.res" 2>&1
    python3 tools/sass_mix.py "$out/$o.sass" --top=16 >"$out/$o.mix" 2>&1
  done
  grep -h -A2 -E "k_pass|k_level0" "$out/ntt.mix" "$out/msm.mix" | head -40
}

stage_trace() {
  ./$bld/bench/bench_gpu_msm --trace --max-log=24 --g2-log=20 --repeats=1 >"$out/trace.log" 2>&1
  grep -E "bls12_381_g1.*chunk 0\+16777216|bn254_g1.*chunk 0\+16777216" "$out/trace.log" | head -8
}

stage_testbig() {
  export LD_LIBRARY_PATH=$(cat /tmp/gmp/libdir 2>/dev/null):${LD_LIBRARY_PATH:-}
  (cd $bld && CZ_GPU_TEST_BIG=1 ctest -L gpu --output-on-failure) 2>&1 | tee "$out/test-gpu-big.log"
}

stage_test() {
  export LD_LIBRARY_PATH=$(cat /tmp/gmp/libdir 2>/dev/null):${LD_LIBRARY_PATH:-}
  (cd $bld && ctest -L gpu --timeout 300 --output-on-failure) 2>&1 | tee "$out/test-gpu.log"
}

# prove K: both curves, two profiles, cuda then cpu, all verified
stage_prove() {
  local k
  for k in "$@"; do
    for curve in bn254 bls12-381; do
      for prof in dense filecoin; do
        # domain 2^k: constraints + public inputs + 1 must not pass it
        local n=$(((1 << k) - 400)) base=/tmp/c$k-$curve-$prof
        ./$bld/cuzk gen-circuit --curve $curve --constraints $n --profile $prof --seed 1 -o $base -q &&
          ./$bld/cuzk setup --insecure-dev $base.r1cs $base.zkey --seed 1 -q 2>/dev/null || {
          echo "2^$k $curve $prof: key generation failed"
          continue
        }
        for dev in cuda cpu; do
          [ "$dev" = cpu ] && [ "$k" -gt 20 ] && continue
          if timed ./$bld/cuzk prove --device $dev -v $base.zkey $base.wtns $base-$dev.proof.json \
            $base.public.json >"$out/prove-$k-$curve-$prof-$dev.log" 2>&1 3>/tmp/t.txt; then
            echo "2^$k $curve $prof $dev: proved + verified, wall s / max RSS KiB: $(cat /tmp/t.txt)"
          else
            echo "2^$k $curve $prof $dev: FAILED (see prove-$k-$curve-$prof-$dev.log)"
          fi
        done
        ./$bld/cuzk export-vkey $base.zkey $base.vkey.json -q
        # small ones come back for snarkjs verify on the dev machine
        if [ "$k" -le 16 ]; then
          cp $base-cuda.proof.json "$out/p$k-$curve-$prof.proof.json" 2>/dev/null
          cp $base.public.json "$out/p$k-$curve-$prof.public.json"
          cp $base.vkey.json "$out/p$k-$curve-$prof.vkey.json"
        fi
        rm -f $base.zkey
      done
    done
  done 2>&1 | tee -a "$out/prove.log"
}

stage_setup24() {
  for curve in bn254 bls12-381; do
    local base=/tmp/s24-$curve
    ./$bld/cuzk gen-circuit --curve $curve --constraints $(((1 << 24) - 2)) --profile chain --seed 1 -o $base -q
    timed ./$bld/cuzk setup --insecure-dev $base.r1cs $base.zkey --seed 1 -q 2>/dev/null 3>/tmp/t.txt
    echo "2^24 $curve setup ($(nproc) cores): wall s / max RSS KiB: $(cat /tmp/t.txt), key $(stat -c %s $base.zkey) bytes"
    rm -f $base.zkey $base.r1cs $base.wtns
  done 2>&1 | tee "$out/setup24.log"
}

stage_ptx() {
  export LD_LIBRARY_PATH=$(cat /tmp/gmp/libdir 2>/dev/null):${LD_LIBRARY_PATH:-}
  [ -x build-gpu-ptx/bench/bench_gpu_msm ] || stage_buildptx || return 1
  [ -f "$out/test-gpu-ptx.log" ] || (cd build-gpu-ptx && ctest -L gpu --output-on-failure) 2>&1 | tee "$out/test-gpu-ptx.log"
  ./build-gpu-ptx/bench/bench_gpu_msm --max-log=24 2>&1 | tee "$out/bench-msm-ptx.log"
  ./build-gpu-ptx/bench/bench_gpu_ntt 2>&1 | tee "$out/bench-ntt-ptx.log"
}

stage_msm() {
  ./$bld/bench/bench_gpu_msm --write="$out/RESULTS-gpu.md" 2>&1 | tee "$out/bench-msm.log"
}

# goals [OLD]: the figures of issue 16's goal table for this build and OLD,
# each build's logs under $out/goals/{new,old}, the table in $out/goals.md.
# Both builds' streams use the same keys (made once by this build's cuzk).
stage_goals() {
  local old=${1:-} side b d k prof base nj
  [ -x ./$bld/cuzk ] || stage_build || return 1
  if [ -n "$old" ] && [ ! -x "$old/bench/bench_gpu_msm" ]; then
    echo "goals: $old/bench/bench_gpu_msm is missing (OLD is a build directory)" >&2
    return 1
  fi
  local specs="22:filecoin"
  [ "${CZ_GOALS_DENSE:-1}" != 0 ] && specs="$specs 24:dense"
  for spec in $specs; do
    IFS=: read -r k prof <<<"$spec"
    base=/tmp/g$k-$prof
    ./$bld/cuzk gen-circuit --curve bls12-381 --constraints $(((1 << k) - 400)) --profile $prof --seed 3 -o $base -q &&
      ./$bld/cuzk setup --insecure-dev $base.r1cs $base.zkey --seed 3 -q 2>/dev/null ||
      echo "goals: 2^$k $prof: key generation failed" >&2
  done
  for side in new old; do
    b=./$bld
    if [ $side = old ]; then
      [ -n "$old" ] || continue
      b=$old
    fi
    d=$out/goals/$side
    mkdir -p "$d"
    "$b/bench/bench_gpu_msm" --max-log=26 --g2-log=22 >"$d/msm.txt" 2>&1
    "$b/bench/bench_gpu_ntt" --min=24 --max=24 >"$d/ntt.txt" 2>&1
    for spec in $specs; do
      IFS=: read -r k prof <<<"$spec"
      base=/tmp/g$k-$prof
      [ -f $base.zkey ] || continue
      nj=20
      [ "$k" -gt 22 ] && nj=3 # 2^24 dense: 3 jobs x 10 partitions, ~1.5 s each
      "$b/cuzk" bench-engine -q -d "${CZ_GPU_ENGINE_DEV:-cuda}" -j $nj -p 10 $base.zkey $base.wtns >"$d/engine-$k-$prof.txt" 2>&1
    done
  done
  for spec in $specs; do rm -f /tmp/g${spec%%:*}-${spec##*:}.*; done
  python3 tools/goal_table.py --new $out/goals/new ${old:+--old $out/goals/old} -o "$out/goals.md"
}

stage_bench() {
  ./$bld/bench/bench_gpu_msm --write="$out/RESULTS-gpu.md" 2>&1 | tee "$out/bench-msm.log"
  ./$bld/bench/bench_gpu_ntt --write="$out/RESULTS-gpu.md" 2>&1 | tee "$out/bench-ntt.log"
}

[ $# -eq 0 ] && set -- build test
nvidia-smi --query-gpu=name,memory.total,clocks.sm --format=csv 2>/dev/null | tee "$out/gpu.txt"
rc=0
while [ $# -gt 0 ]; do
  s=$1
  shift
  case $s in
  build)
    if [ "${1:-}" = buildptx ]; then # side by side
      shift
      gmp >/dev/null # unpacked once, before both start
      stage_buildptx &
      p=$!
      stage_build || exit 1
      wait $p || rc=1
    else
      stage_build || exit 1
    fi
    ;;
  buildptx) stage_buildptx || rc=1 ;;
  ab)
    ds=()
    while [ $# -gt 0 ] && [ -d "$1" ]; do ds+=("$1"); shift; done
    stage_ab "${ds[@]}" || rc=1
    ;;
  testsboth) stage_testsboth || rc=1 ;;
  warm)
    ws=()
    while [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+(:|$) ]]; do ws+=("$1"); shift; done
    [ ${#ws[@]} -eq 0 ] && ws=(20 22)
    stage_warm "${ws[@]}" || rc=1
    ;;
  lanes)
    ls=()
    while [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+: ]]; do ls+=("$1"); shift; done
    [ ${#ls[@]} -eq 0 ] && ls=(26:filecoin)
    stage_lanes "${ls[@]}" || rc=1
    ;;
  multi)
    ms=()
    while [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+: ]]; do ms+=("$1"); shift; done
    [ ${#ms[@]} -eq 0 ] && ms=(22:filecoin)
    stage_multi "${ms[@]}" || rc=1
    ;;
  trace) stage_trace || rc=1 ;;
  nttprof)
    nd=""
    if [ $# -gt 0 ] && [ -d "$1" ]; then nd=$1; shift; fi
    stage_nttprof $nd || rc=1
    ;;
  sass) stage_sass || rc=1 ;;
  engine)
    es=()
    while [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+: ]]; do es+=("$1"); shift; done
    [ ${#es[@]} -eq 0 ] && es=(22:filecoin 24:dense)
    stage_engine "${es[@]}" || rc=1
    ;;
  test) stage_test || rc=1 ;;
  testbig) stage_testbig || rc=1 ;;
  prove)
    ks=()
    while [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; do ks+=("$1"); shift; done
    [ ${#ks[@]} -eq 0 ] && ks=(16 20)
    stage_prove "${ks[@]}" || rc=1
    ;;
  setup24) stage_setup24 || rc=1 ;;
  bench) stage_bench || rc=1 ;;
  msm) stage_msm || rc=1 ;;
  goals)
    gold=""
    if [ $# -gt 0 ] && [ -d "$1" ]; then gold=$1; shift; fi
    stage_goals "$gold" || rc=1
    ;;
  ptx) stage_ptx || rc=1 ;;
  *) echo "unknown stage $s" >&2; exit 2 ;;
  esac
done
exit $rc
