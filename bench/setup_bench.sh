#!/usr/bin/env bash
# Times `cuzk setup --insecure-dev` (development proving keys) on synthetic
# circuits of domain 2^K for K in [--min, --max] on both curves, records the
# time and key size, proves once with each key as a check, and extrapolates to
# 2^24 and 2^26 from the per-constraint cost of the largest size measured
# (setup is linear in n: ~4n G1 + n G2 fixed-base points dominate).
#
# usage: bench/setup_bench.sh [--min K] [--max K] [--threads N] [--cuzk PATH] [--write]
#   --write   replace the "## cuzk setup" section of bench/RESULTS.md
set -euo pipefail
cd "$(dirname "$0")/.."
min=16 max=22 threads=0 cuzk="" write=0
while [ $# -gt 0 ]; do
  case $1 in
    --min) min=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --cuzk) cuzk=$2; shift 2 ;;
    --write) write=1; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup_bench: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$cuzk" ]; then
  cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCZ_BUILD_TESTS=OFF >/dev/null
  cmake --build build-bench -j "$(nproc)" --target cuzk >/dev/null
  cuzk=build-bench/cuzk
fi
tflag=()
[ "$threads" -gt 0 ] && tflag=(-t "$threads")
work=$(mktemp -d /tmp/cuzk-setup-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
say() { [ -t 2 ] && echo "$*" >&2 || true; }
table="| curve | domain | constraints | setup (s) | key size (MiB) | prove check |
|---|---:|---:|---:|---:|---|"
declare -A per_c
for curve in bn254 bls12-381; do
  for k in $(seq "$min" "$max"); do
    n=$(( (1 << k) - 2 ))   # chain: 1 public output; domain = 2^k
    say "== $curve 2^$k: gen-circuit"
    "$cuzk" gen-circuit -q -c "$curve" -n "$n" -p chain -o "$work/c" "${tflag[@]}"
    say "== $curve 2^$k: setup"
    t0=$(date +%s.%N)
    "$cuzk" setup --insecure-dev -q --seed 1 "${tflag[@]}" "$work/c.r1cs" "$work/c.zkey" 2>/dev/null
    t1=$(date +%s.%N)
    secs=$(echo "$t1 - $t0" | bc -l)
    size=$(stat -c %s "$work/c.zkey")
    check=fail
    "$cuzk" prove -q "${tflag[@]}" "$work/c.zkey" "$work/c.wtns" "$work/p.json" "$work/pub.json" && check=ok
    table+=$'\n'"$(printf '| %s | 2^%d | %d | %.1f | %.1f | %s |' "$curve" "$k" "$n" "$secs" "$(echo "$size/1048576" | bc -l)" "$check")"
    per_c[$curve]=$(echo "$secs / 2^$k" | bc -l)
    eval "bytes_$(echo $curve | tr -d -)=$(echo "$size / 2^$k" | bc -l)"
    rm -f "$work"/c.* "$work"/p.json "$work"/pub.json
  done
done
extra="| curve | domain | setup (s, extrapolated) | key size (GiB, extrapolated) |
|---|---:|---:|---:|"
for curve in bn254 bls12-381; do
  v=bytes_$(echo $curve | tr -d -)
  for k in 24 26; do
    extra+=$'\n'"$(printf '| %s | 2^%d | %.0f | %.1f |' "$curve" "$k" "$(echo "${per_c[$curve]} * 2^$k" | bc -l)" "$(echo "${!v} * 2^$k / 1073741824" | bc -l)")"
  done
done
echo "$table"
echo
echo "$extra"
if [ "$write" = 1 ]; then
  res=bench/RESULTS.md
  [ -f "$res" ] || printf '# cuzk benchmark results\n' >"$res"
  body=$(cat <<EOT
## cuzk setup

- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)
- command: \`bench/setup_bench.sh --min $min --max $max${threads:+ --threads $threads}\` (cuzk $(git rev-parse --short HEAD))
- circuits: \`cuzk gen-circuit -p chain\` with 2^K - 2 constraints (domain 2^K); key: \`cuzk setup --insecure-dev --seed 1\`; each key proved once with \`cuzk prove\` (which verifies) as a check.

$table

Extrapolated linearly from the largest measured size (the fixed-base point sections are ~95% of the time and scale with n):

$extra
EOT
)
  # replace our section (from its heading to the next "## " heading)
  awk -v h="## cuzk setup" 'BEGIN{skip=0} $0==h{skip=1;next} skip&&/^## /{skip=0} !skip{print}' "$res" >"$res.tmp"
  { sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$res.tmp"; echo; echo "$body"; } >"$res"
  rm -f "$res.tmp"
  echo "wrote the '## cuzk setup' section of $res"
fi
