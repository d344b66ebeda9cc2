#!/usr/bin/env bash
# A scripted fuzz of the `cuzk` command's path handling: RUNS runs of prove,
# export-vkey, setup, gen-circuit, verify and info with arguments drawn at
# random from inputs, outputs that exist or not, inputs as outputs,
# duplicates, names written two ways, empty strings, long names, '-',
# /dev/null, /dev/full, directories, links and missing files (and options
# with good and bad numbers and device specs). Every run must exit with a
# documented code (0-7, 70), never by a signal or the timeout, leave no
# temporary (.cuzk-*) anywhere, and leave every file that was an input of
# that run unchanged (hashed before and after); devices stay devices.
# Usage: tests/fuzz_cli.sh path/to/cuzk [RUNS] [SEED]   (test_cli.sh runs it)
set -uo pipefail
cuzk=$(cd "$(dirname "${1:?usage: fuzz_cli.sh path/to/cuzk [RUNS] [SEED]}")" && pwd)/$(basename "$1")
runs=${2:-60}
seed=${3:-${CZ_FUZZ_SEED:-$(($(date +%s%N) % 1000000))}}
RANDOM=$seed
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fix="$here/fixtures"
tmp=$(mktemp -d /tmp/cz_fuzz_cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "fuzz_cli: $runs runs, seed $seed (tests/fuzz_cli.sh CUZK RUNS SEED reproduces them)"
d="$tmp/d" pristine="$tmp/pristine"
mkdir -p "$d/sub" "$pristine"
F="$fix/bn128/poseidon" G="$fix/bls12381/poseidon"
cp "$F/circuit.zkey" "$d/k.zkey"
cp "$F/witness.wtns" "$d/w.wtns"
cp "$F/circuit.r1cs" "$d/c.r1cs"
cp "$F/verification_key.json" "$d/vk.json"
cp "$F/public.json" "$d/public.json"
cp "$F/proof.json" "$d/proof.json"
cp "$G/circuit.zkey" "$d/g.zkey"
cp "$G/witness.wtns" "$d/g.wtns"
echo old >"$d/old.json"
files=(k.zkey w.wtns c.r1cs vk.json public.json proof.json g.zkey g.wtns old.json)
for f in "${files[@]}"; do cp "$d/$f" "$pristine/$f"; done
ln -s k.zkey "$d/lnk-k"
ln -s sub/made.json "$d/lnk-new"
# the devices: as root, copies made with mknod (a regression must not
# replace the machine's own); a user cannot replace /dev/null or /dev/full
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null && mknod "$tmp/full" c 1 7 2>/dev/null; then
  dnull="$tmp/null" dfull="$tmp/full"
else
  rm -f "$tmp/null" "$tmp/full"
  dnull=/dev/null dfull=/dev/full
fi
long=$(printf 'l%.0s' $(seq 1 250))
toolong=$(printf 't%.0s' $(seq 1 300))
ins=("$d/k.zkey" "$d/w.wtns" "$d/c.r1cs" "$d/g.zkey" "$d/g.wtns" "$d/vk.json" "$d/public.json" "$d/proof.json")
pool=("${ins[@]}" "$d/new1.json" "$d/new2.json" "$d/./new1.json" "$d/sub/../new2.json" "$d/sub/new3" "$d/old.json"
  "" "-" "-" "$dnull" "$dfull" "$d" "$d/sub" "$d/sub/" "$d/missing-dir/x" "$d/missing.zkey" "$d/$long"
  "$d/$toolong" "$d/lnk-k" "$d/lnk-new" k.zkey ./new1.json)
seeds=(1 010 0x10 "" -1 "2^3" 99999999999999999999 7)
devices=(cpu cpu auto bogus cuda:-1 "" cuda:0,1)
any() { local -n a=$1; printf '%s' "${a[RANDOM % ${#a[@]}]}"; }
# an argument: an input of the right kind half the time, else from the pool
arg() { if ((RANDOM % 2)); then printf '%s' "$1"; else any pool; fi; }
sum() { if [ -f "$1" ]; then sha256sum <"$1"; else echo "-"; fi; }

pass=0 failn=0
declare -A codes=()
bad() { failn=$((failn + 1)); echo "FAIL fuzz_cli run $run: $*" >&2; }
for ((run = 1; run <= runs; run++)); do
  a=() in=()
  case $((RANDOM % 7)) in
  0 | 1)
    ((RANDOM % 4 == 0)) && a+=(--proof-bin "$(any pool)")
    ((RANDOM % 5 == 0)) && { c=$(arg "$d/c.r1cs"); a+=(--check "$c"); in+=("$c"); }
    ((RANDOM % 5 == 0)) && a+=(-d "$(any devices)")
    k=$(arg "$d/k.zkey") w=$(arg "$d/w.wtns")
    a=(prove -q "${a[@]}" "$k" "$w" "$(any pool)" "$(any pool)")
    in+=("$k" "$w") ;;
  2)
    k=$(arg "$d/k.zkey")
    a=(export-vkey -q "$k" "$(any pool)")
    in+=("$k") ;;
  3)
    r=$(arg "$d/c.r1cs")
    a=(setup --insecure-dev -q --seed "$(any seeds)" "$r" "$(any pool)")
    in+=("$r") ;;
  4)
    # NAME.r1cs and NAME.wtns: names in $d only (not beside a device)
    o=$(any pool)
    [[ "$o" == /* && "$o" != "$d"* ]] && o="$d/gen"
    a=(gen-circuit -q -c bn254 -n 10 -p chain --seed "$(any seeds)" -o "$o") ;;
  5)
    v=$(arg "$d/vk.json") p=$(arg "$d/public.json") q=$(arg "$d/proof.json")
    a=(verify -q "$v" "$p" "$q")
    in+=("$v" "$p" "$q") ;;
  6)
    # a wrong number of arguments, or info
    n=$((RANDOM % 6))
    a=(prove)
    for ((i = 0; i < n; i++)); do a+=("$(any pool)"); done
    ((n == 4)) && a=(info "$(any pool)") ;;
  esac
  declare -A before=()
  for f in "${in[@]}"; do [ -n "$f" ] && before["$f"]=$( (cd "$d" && sum "$f")); done
  (cd "$d" && timeout 60 "$cuzk" "${a[@]}") >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  codes[$rc]=$((${codes[$rc]:-0} + 1))
  what="cuzk$(printf " '%s'" "${a[@]}") :: exit $rc :: $(head -c 300 "$tmp/stderr")"
  case $rc in
  0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 70) ;;
  *) bad "undocumented exit (signal or timeout): $what" ;;
  esac
  if find "$tmp" -name '.cuzk-*' | grep -q .; then
    bad "a temporary is left: $what"
    find "$tmp" -name '.cuzk-*' -delete
  fi
  for f in "${!before[@]}"; do
    [ "$( (cd "$d" && sum "$f"))" = "${before[$f]}" ] || bad "input $f changed: $what"
  done
  unset before
  [ -c "$dnull" ] && [ -c "$dfull" ] || { bad "a device was replaced: $what"; break; }
  [ -d "$d/sub" ] || bad "a directory was replaced: $what"
  # outputs may legitimately have replaced the pool's files: back to the start
  for f in "${files[@]}"; do cmp -s "$d/$f" "$pristine/$f" || cp --remove-destination "$pristine/$f" "$d/$f"; done
  [ -L "$d/lnk-k" ] || { rm -rf "$d/lnk-k"; ln -s k.zkey "$d/lnk-k"; bad "a link was replaced: $what"; }
  [ -L "$d/lnk-new" ] || { rm -rf "$d/lnk-new"; ln -s sub/made.json "$d/lnk-new"; bad "a link was replaced: $what"; }
  pass=$((pass + 1))
done
hist=$(for c in "${!codes[@]}"; do echo "$c"; done | sort -n | while read -r c; do printf ' %s:%s' "$c" "${codes[$c]}"; done)
echo "fuzz_cli: $runs runs, $failn failures (exit code:runs$hist)"
[ "$failn" -eq 0 ]
