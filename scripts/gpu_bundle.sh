#!/usr/bin/env bash
# Builds the GPU binaries of the working tree here (no GPU needed) into
# .gpu-bin/NAME, for scripts/gpu_check.sh's `ab` and `goals` stages on the
# device machine (carry .gpu-bin and .debs with the call):
#
#   scripts/gpu_bundle.sh NAME [CMAKE_FLAG..]
#
#   NAME          the bundle's folder under .gpu-bin/ (letters, digits, . _ -);
#                 replaced if it exists
#   CMAKE_FLAG..  extra configure flags, e.g. -DCZ_CUDA_PTX_P1=OFF or
#                 "-DCMAKE_CUDA_FLAGS=-DCZ_CUDA_L0_BLOCKS_BLS_G1=3"
#
# The build folder is always a fresh one (${TMPDIR:-/tmp}/cz-bundle-NAME, removed
# first): a reused one keeps the options of its CMake cache, so a build meant to
# be "the default" can silently be an old one (bench/RESULTS.md, 2026-12-05).
# The bundle holds cuzk, bench/bench_gpu_{msm,ntt,ff}, tests/test_gpu_{ff,msm,ntt}
# (CZ_BUNDLE_TARGETS: a subset of those, e.g. "bench_gpu_ntt test_gpu_ntt" for a
# quicker NTT-only bundle) and BUILD.txt: the commit (with -dirty for uncommitted changes), the flags,
# the device-code options from the cache and the definitions msm.cu was compiled
# with. CZ_BUNDLE_JOBS sets the build's parallelism (default: the cores). The
# binaries are stripped (the device code stays; CZ_BUNDLE_STRIP=0 keeps the symbols),
# and the last line adds up what a call carrying .gpu-bin and .debs would send:
# the device tool refuses more than 64 MiB, the working tree's own files included.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
-h | --help) usage; exit 0 ;;
"") usage >&2; exit 2 ;;
esac
name=$1
shift
if ! [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || [ "$name" = . ] || [ "$name" = .. ]; then
  echo "gpu_bundle: bad NAME '$name' (letters, digits, . _ - only)" >&2
  exit 2
fi
if ! git check-ignore -q .gpu-bin; then
  echo "gpu_bundle: .gpu-bin is not ignored by git (add /.gpu-bin/ to .git/info/exclude)" >&2
  exit 1
fi
command -v nvcc >/dev/null || { echo "gpu_bundle: nvcc not found" >&2; exit 1; }

bdir=${TMPDIR:-/tmp}/cz-bundle-$name
rm -rf "$bdir"
jobs=${CZ_BUNDLE_JOBS:-$(nproc 2>/dev/null || echo 2)}
all="cuzk bench_gpu_msm bench_gpu_ntt bench_gpu_ff test_gpu_ff test_gpu_msm test_gpu_ntt"
targets=${CZ_BUNDLE_TARGETS:-$all}
for t in $targets; do
  case " $all " in *" $t "*) ;; *) echo "gpu_bundle: CZ_BUNDLE_TARGETS: unknown target '$t' (of: $all)" >&2; exit 2 ;; esac
done
cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DCZ_CUDA=ON -DCZ_CLIENT=OFF "$@" >"$bdir.configure.log" 2>&1 || {
  echo "gpu_bundle: configure failed, see $bdir.configure.log" >&2
  exit 1
}
# shellcheck disable=SC2086
cmake --build "$bdir" -j "$jobs" --target $targets >"$bdir.build.log" 2>&1 || {
  echo "gpu_bundle: build failed, see $bdir.build.log" >&2
  exit 1
}

dst=.gpu-bin/$name
rm -rf "$dst"
mkdir -p "$dst/bench" "$dst/tests"
for t in $targets; do
  case $t in
  cuzk) cp "$bdir/cuzk" "$dst/" ;;
  bench_*) cp "$bdir/bench/$t" "$dst/bench/" ;;
  *) cp "$bdir/tests/$t" "$dst/tests/" ;;
  esac
done
{
  echo "bundle $name, built $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
  echo "commit: $(git describe --always --dirty)"
  echo "targets: $targets"
  echo "flags: -DCMAKE_BUILD_TYPE=Release -DCZ_CUDA=ON -DCZ_CLIENT=OFF $*"
  echo "options: $(grep -E '^CZ_CUDA[A-Z0-9_]*:' "$bdir/CMakeCache.txt" | sed 's/:[A-Z]*=/=/' | tr '\n' ' ' || true)"
  echo "msm.cu: $(grep -h 'msm.cu.o_DEFINES' "$bdir"/CMakeFiles/cuzk_core.dir/flags.make | sed 's/.*= //' || true)"
  echo "CMAKE_CUDA_FLAGS: $(grep -E '^CMAKE_CUDA_FLAGS:' "$bdir/CMakeCache.txt" | sed 's/^[^=]*=//' || true)"
} >"$dst/BUILD.txt"
if [ "${CZ_BUNDLE_STRIP:-1}" != 0 ] && command -v strip >/dev/null; then
  find "$dst" -type f ! -name BUILD.txt -exec strip {} +
fi
rm -rf "$bdir" "$bdir.configure.log" "$bdir.build.log"
cat "$dst/BUILD.txt"
# what the device tool would carry: the tree's files git does not ignore, .gpu-bin, .debs
tree=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1 || true)
extra=$(du -cb .gpu-bin .debs 2>/dev/null | tail -1 | cut -f1 || true)
total=$((${tree:-0} + ${extra:-0}))
echo "gpu_bundle: $dst $(du -sh "$dst" | cut -f1); a call carrying .gpu-bin and .debs sends" \
  "$((total >> 20)) MiB (tree $((tree >> 20)), .gpu-bin + .debs $((extra >> 20))) of at most 64"
[ $total -le $((64 << 20)) ] || echo "gpu_bundle: over 64 MiB: remove bundles, or carry single folders" >&2
