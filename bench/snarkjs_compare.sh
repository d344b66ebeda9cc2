#!/usr/bin/env bash
# snarkjs_compare.sh — time `snarkjs groth16 prove` against `cuzk prove` on the
# same BN254 proving key and witness, for circuits whose domain is exactly 2^16.
#
# usage: bench/snarkjs_compare.sh [options]
#
#   --rounds N        timed rounds (default 5); each round runs snarkjs, then cuzk
#   --warmup N        untimed rounds before them (default 1: page cache, JIT)
#   --circuits LIST   comma-separated, from: mul_chain, poseidon_chain
#                     (default: both)
#                       mul_chain       c[i] = c[i-1]*(c[i-1]+in)+i, 65533 constraints
#                       poseidon_chain  273 circomlib Poseidon(2) hashes, 65520 constraints
#   --cuzk PATH       use this cuzk binary instead of building one
#                     (default: cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release
#                     -DCZ_BUILD_TESTS=OFF, target cuzk: the default asm build)
#   --cpus LIST       run both provers under `taskset -c LIST` and give cuzk
#                     --threads <number of CPUs in LIST>. Default: no pinning,
#                     both use every core (snarkjs starts one worker per
#                     os.cpus(), which ignores the affinity mask; cuzk its pool).
#   --device DEV      cuzk --device (default cpu; --write needs cpu)
#   --setup-only      make (or check) the cached keys and stop
#   --rekey           remake the cached proving keys and witnesses (not the
#                     powers of tau; delete bench/.cache/ptau for that)
#   --write           replace the section "## snarkjs vs cuzk (CPU), BN254 2^16"
#                     in bench/RESULTS.md with this run's results
#   --progress        progress messages on stderr even when it is not a terminal
#   -h, --help        this text
#
# Keys are cached under bench/.cache/ (gitignored): the powers of tau (power 16,
# made once: 15 minutes on 2 idle cores, 81 on 2 busy ones; then about 4
# minutes per circuit for compile + setup), and per circuit the .r1cs,
# .zkey, witness and verification key, with a manifest.json recording the tool
# versions, the circuit's sha256, counts and file sizes. A cached circuit is
# reused while its manifest matches (same circuit source, input, tool versions
# and ptau); so a re-run costs only the cuzk build and the timed rounds. The
# setup is deterministic (powersoftau beacon + zkey beacon with a fixed hash):
# these are benchmark keys, not a trusted setup.
#
# Each prover is timed as a whole command (key and witness loading, proving,
# writing; cuzk also verifies its proof before writing it), wall clock, with
# date +%s.%N. cuzk runs with -v, and its stage times are collected too.
# The proofs of the last round are checked by both `snarkjs groth16 verify`
# (tests/js/verify.sh) and `cuzk verify`, and both provers' public.json must
# agree. Prints a table of median/min/max seconds per prover, the ratio of
# the medians (snarkjs/cuzk) and the median over the rounds of each cuzk stage.
# The machine's load average is recorded: on a shared machine the figures are
# indicative only.
#
# Needs: node (tests/js/node_modules: scripts/npm.sh installs the pinned
# snarkjs 0.7.6, circom2, circomlib), cmake and a C compiler (unless --cuzk),
# sha256sum. Exit status: 0 done, 1 a step failed (or a proof was rejected),
# 2 bad usage.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$BENCH")"
JS="$ROOT/tests/js"
CACHE="$BENCH/.cache"
SNARKJS_CLI="$JS/node_modules/snarkjs/build/cli.cjs"
RESULTS="$BENCH/RESULTS.md"
SECTION="## snarkjs vs cuzk (CPU), BN254 2^16"
PTAU_POWER=16
DOMAIN_LOG=16
# Fixed, public beacon: benchmark keys, not a trusted setup.
BEACON_HASH="0000000000000000000000000000000000000000000000000000000000be4c11"
BEACON_ITER_EXP=10

ALL_CIRCUITS=(mul_chain poseidon_chain)
# circuit name -> source in bench/circuits (+ .input.json)
circuit_src() {
    case "$1" in
        mul_chain) echo mul_chain_2p16 ;;
        poseidon_chain) echo poseidon_chain ;;
        *) return 1 ;;
    esac
}

rounds=5
warmup=1
circuits_arg=""
cuzk_bin=""
cpus=""
device=cpu
setup_only=0
rekey=0
write=0
progress=0
[ -t 2 ] && progress=1
COMMAND_LINE="bench/snarkjs_compare.sh$(printf ' %q' "$@")"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
die() { echo "snarkjs_compare.sh: $*" >&2; exit 1; }
bad_usage() { echo "snarkjs_compare.sh: $*" >&2; echo "run with --help for the options" >&2; exit 2; }
log() { if [ "$progress" = 1 ]; then printf '[snarkjs_compare %5ss] %s\n' "$SECONDS" "$*" >&2; fi; }
is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }

while [ $# -gt 0 ]; do
    a="$1"
    shift
    need() { [ $# -gt 0 ] || bad_usage "$a needs a value"; }
    case "$a" in
        --rounds) need "$@"; rounds="$1"; shift ;;
        --rounds=*) rounds="${a#*=}" ;;
        --warmup) need "$@"; warmup="$1"; shift ;;
        --warmup=*) warmup="${a#*=}" ;;
        --circuits) need "$@"; circuits_arg="$1"; shift ;;
        --circuits=*) circuits_arg="${a#*=}" ;;
        --cuzk) need "$@"; cuzk_bin="$1"; shift ;;
        --cuzk=*) cuzk_bin="${a#*=}" ;;
        --cpus) need "$@"; cpus="$1"; shift ;;
        --cpus=*) cpus="${a#*=}" ;;
        --device) need "$@"; device="$1"; shift ;;
        --device=*) device="${a#*=}" ;;
        --setup-only) setup_only=1 ;;
        --rekey) rekey=1 ;;
        --write) write=1 ;;
        --progress) progress=1 ;;
        -h|--help) usage; exit 0 ;;
        *) bad_usage "unknown argument '$a'" ;;
    esac
done
is_uint "$rounds" && [ "$rounds" -ge 1 ] && [ "$rounds" -le 1000 ] || bad_usage "--rounds: '$rounds' is not 1..1000"
is_uint "$warmup" && [ "$warmup" -le 100 ] || bad_usage "--warmup: '$warmup' is not 0..100"
circuits=()
if [ -n "$circuits_arg" ]; then
    IFS=, read -r -a circuits <<<"$circuits_arg"
    [ "${#circuits[@]}" -gt 0 ] || bad_usage "--circuits: empty list"
    for c in "${circuits[@]}"; do
        circuit_src "$c" >/dev/null || bad_usage "--circuits: unknown circuit '$c' (known: ${ALL_CIRCUITS[*]})"
    done
else
    circuits=("${ALL_CIRCUITS[@]}")
fi
if [ "$write" = 1 ] && [ "$device" != cpu ]; then
    bad_usage "--write records the CPU comparison: it needs --device cpu"
fi
pin=()
cuzk_threads=()
nthreads="$(nproc)"
if [ -n "$cpus" ]; then
    command -v taskset >/dev/null || die "--cpus needs taskset"
    # count the CPUs in a list like 0-3,6
    nthreads=0
    IFS=, read -r -a parts <<<"$cpus"
    for p in "${parts[@]}"; do
        if [[ "$p" =~ ^([0-9]+)-([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ]; then
            nthreads=$((nthreads + BASH_REMATCH[2] - BASH_REMATCH[1] + 1))
        elif [[ "$p" =~ ^[0-9]+$ ]]; then
            nthreads=$((nthreads + 1))
        else
            bad_usage "--cpus: '$cpus' is not a CPU list like 0-3,6"
        fi
    done
    taskset -c "$cpus" true 2>/dev/null || bad_usage "--cpus: taskset -c '$cpus' is refused here"
    pin=(taskset -c "$cpus")
    cuzk_threads=(--threads "$nthreads")
fi

# ---------------------------------------------------------------- tools
command -v node >/dev/null || die "node not found"
command -v sha256sum >/dev/null || die "sha256sum not found"
if [ ! -f "$SNARKJS_CLI" ] || [ ! -x "$JS/node_modules/.bin/circom2" ] || [ ! -d "$JS/node_modules/circomlib/circuits" ]; then
    log "installing the pinned snarkjs/circom2/circomlib (scripts/npm.sh)"
    "$ROOT/scripts/npm.sh" >&2
fi
[ -f "$SNARKJS_CLI" ] || die "$SNARKJS_CLI missing after scripts/npm.sh"
snarkjs() { node "$SNARKJS_CLI" "$@"; }
circom2() { "$JS/node_modules/.bin/circom2" "$@"; }
pkgver() { node -p "require('$JS/node_modules/$1/package.json').version"; }
SNARKJS_VERSION="$(pkgver snarkjs)"
CIRCOM2_VERSION="$(pkgver circom2)"
CIRCOMLIB_VERSION="$(pkgver circomlib)"
CIRCOM_VERSION="$(circom2 --version 2>/dev/null | sed -n 's/^circom compiler //p')"
NODE_VERSION="$(node --version)"

# snarkjs sometimes only logs an error and exits 0: fail on a non-zero status
# or an ERROR line. The output goes to the file $1 (kept for the report).
run_snarkjs_log() {
    local logf="$1" rc
    shift
    set +e
    snarkjs "$@" >"$logf" 2>&1
    rc=$?
    set -e
    if [ "$rc" -ne 0 ] || grep -q 'ERROR' "$logf"; then
        tail -n 20 "$logf" >&2
        die "snarkjs $* failed (exit $rc)"
    fi
}

mkdir -p "$CACHE"
TMP="$(mktemp -d "$CACHE/tmp.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

# JSON field of a JSON text
jget() { node -e 'let v=JSON.parse(process.argv[1]); for (const k of process.argv[2].split(".")) v=v[k]; console.log(v===undefined?"":v)' "$1" "$2"; }
fsize() { stat -c %s "$1"; }

# ---------------------------------------------------------------- powers of tau
PTAU_DIR="$CACHE/ptau"
PTAU="$PTAU_DIR/pot${PTAU_POWER}_final.ptau"
make_ptau() {
    if [ -f "$PTAU" ] && [ -f "$PTAU_DIR/manifest.json" ]; then
        log "powers of tau: cached ($PTAU)"
        return
    fi
    log "powers of tau: power $PTAU_POWER, bn128 (made once; 15-80 minutes on 2 cores)"
    local d="$TMP/ptau" t0=$SECONDS
    mkdir -p "$d"
    run_snarkjs_log "$d/new.log" powersoftau new bn128 "$PTAU_POWER" "$d/pot_0000.ptau"
    log "powers of tau: beacon"
    run_snarkjs_log "$d/beacon.log" powersoftau beacon "$d/pot_0000.ptau" "$d/pot_0001.ptau" \
        "$BEACON_HASH" "$BEACON_ITER_EXP" -n="cuzk bench ptau beacon"
    rm -f "$d/pot_0000.ptau"
    log "powers of tau: prepare phase2"
    run_snarkjs_log "$d/prepare.log" powersoftau prepare phase2 "$d/pot_0001.ptau" "$d/final.ptau"
    rm -f "$d/pot_0001.ptau"
    local sha
    sha="$(sha256sum "$d/final.ptau" | cut -d' ' -f1)"
    node -e 'const [f, ...a] = process.argv.slice(1); const [power, hash, iter, sj, node, sha, size, secs] = a;
        require("fs").writeFileSync(f, JSON.stringify({ generator: "bench/snarkjs_compare.sh", made: new Date().toISOString(),
          curve: "bn128", power: +power, steps: `powersoftau new; powersoftau beacon ${hash} 2^${iter}; powersoftau prepare phase2`,
          snarkjs: sj, node, sha256: sha, bytes: +size, seconds: +secs }, null, 1) + "\n");' \
        "$d/manifest.json" "$PTAU_POWER" "$BEACON_HASH" "$BEACON_ITER_EXP" "$SNARKJS_VERSION" "$NODE_VERSION" \
        "$sha" "$(fsize "$d/final.ptau")" "$((SECONDS - t0))"
    mkdir -p "$PTAU_DIR"
    mv "$d/final.ptau" "$PTAU.partial"
    mv "$d/manifest.json" "$PTAU_DIR/manifest.json"
    mv "$PTAU.partial" "$PTAU"
    log "powers of tau: done in $((SECONDS - t0))s"
}

# ---------------------------------------------------------------- per-circuit keys
# The cache key: everything the zkey and witness depend on.
circuit_key() {
    local name="$1" src
    src="$(circuit_src "$name")"
    {
        echo "circuit $name"
        sha256sum <"$BENCH/circuits/$src.circom"
        sha256sum <"$BENCH/circuits/$src.input.json"
        echo "snarkjs $SNARKJS_VERSION circom2 $CIRCOM2_VERSION circom $CIRCOM_VERSION circomlib $CIRCOMLIB_VERSION"
        echo "ptau $(jget "$(cat "$PTAU_DIR/manifest.json")" sha256)"
        echo "beacon $BEACON_HASH $BEACON_ITER_EXP"
    } | sha256sum | cut -d' ' -f1
}

make_circuit() {
    local name="$1" src key dir d t0=$SECONDS
    src="$(circuit_src "$name")"
    key="$(circuit_key "$name")"
    dir="$CACHE/$name"
    if [ "$rekey" = 0 ] && [ -f "$dir/manifest.json" ] && [ "$(jget "$(cat "$dir/manifest.json")" cacheKey)" = "$key" ]; then
        for f in circuit.zkey witness.wtns verification_key.json; do
            [ -f "$dir/$f" ] || die "$dir/$f missing (run with --rekey)"
        done
        log "$name: cached keys ($dir)"
        return
    fi
    log "$name: compiling bench/circuits/$src.circom (circom2 --O2)"
    # circom2 (WASI) is handed paths relative to the repository root
    d="$TMP/$name"
    mkdir -p "$d"
    local rel="${d#"$ROOT"/}"
    (cd "$ROOT" && circom2 "bench/circuits/$src.circom" --r1cs --wasm -p bn128 --O2 \
        -l tests/js/node_modules -o "$rel" >"$d/circom.log" 2>&1) \
        || { tail -n 20 "$d/circom.log" >&2; die "circom2 failed on $src"; }
    mv "$d/$src.r1cs" "$d/circuit.r1cs"
    local ri
    ri="$(node "$JS/fixture_info.js" r1cs "$d/circuit.r1cs")"
    log "$name: nConstraints=$(jget "$ri" nConstraints) nWires=$(jget "$ri" nWires) nPublic=$(jget "$ri" nPublic) -> domain 2^$(jget "$ri" domainLog)"
    [ "$(jget "$ri" domainLog)" = "$DOMAIN_LOG" ] || die "$name: domain is 2^$(jget "$ri" domainLog), not 2^$DOMAIN_LOG"
    log "$name: witness"
    cp "$BENCH/circuits/$src.input.json" "$d/input.json"
    run_snarkjs_log "$d/wtns.log" wtns calculate "$d/${src}_js/$src.wasm" "$d/input.json" "$d/witness.wtns"
    run_snarkjs_log "$d/wtns_check.log" wtns check "$d/circuit.r1cs" "$d/witness.wtns"
    log "$name: groth16 setup"
    run_snarkjs_log "$d/setup.log" groth16 setup "$d/circuit.r1cs" "$PTAU" "$d/circuit_0000.zkey"
    log "$name: zkey beacon"
    run_snarkjs_log "$d/beacon.log" zkey beacon "$d/circuit_0000.zkey" "$d/circuit.zkey" \
        "$BEACON_HASH" "$BEACON_ITER_EXP" -n="cuzk bench zkey beacon"
    rm -f "$d/circuit_0000.zkey"
    run_snarkjs_log "$d/vkey.log" zkey export verificationkey "$d/circuit.zkey" "$d/verification_key.json"
    rm -rf "$d/${src}_js"
    node -e 'const fs = require("fs"), path = require("path");
        const [d, name, src, key, ri, sj, c2, cv, cl, node, ptau, secs] = process.argv.slice(1);
        const r = JSON.parse(ri), sizes = {};
        for (const f of ["circuit.r1cs", "circuit.zkey", "witness.wtns", "verification_key.json"]) sizes[f] = fs.statSync(path.join(d, f)).size;
        fs.writeFileSync(path.join(d, "manifest.json"), JSON.stringify({ generator: "bench/snarkjs_compare.sh", made: new Date().toISOString(),
          circuit: name, source: `bench/circuits/${src}.circom`, input: `bench/circuits/${src}.input.json`, cacheKey: key,
          curve: "bn128", nConstraints: r.nConstraints, nWires: r.nWires, nPublic: r.nPublic, domainSize: 2 ** r.domainLog,
          versions: { snarkjs: sj, circom2: c2, circom: cv, circomlib: cl, node }, ptau: JSON.parse(ptau),
          phase2: "groth16 setup; zkey beacon (fixed hash)", seconds: +secs, bytes: sizes }, null, 1) + "\n");' \
        "$d" "$name" "$src" "$key" "$ri" "$SNARKJS_VERSION" "$CIRCOM2_VERSION" "$CIRCOM_VERSION" "$CIRCOMLIB_VERSION" \
        "$NODE_VERSION" "$(cat "$PTAU_DIR/manifest.json")" "$((SECONDS - t0))"
    rm -rf "$dir"
    mv "$d" "$dir"
    log "$name: keys made in $((SECONDS - t0))s ($(du -sh "$dir" | cut -f1))"
}

make_ptau
for c in "${circuits[@]}"; do make_circuit "$c"; done
if [ "$setup_only" = 1 ]; then
    log "keys ready under $CACHE"
    exit 0
fi

# ---------------------------------------------------------------- cuzk
cuzk_desc=""
built=0
if [ -n "$cuzk_bin" ]; then
    [ -x "$cuzk_bin" ] || die "--cuzk: '$cuzk_bin' is not an executable"
    cuzk_bin="$(cd "$(dirname "$cuzk_bin")" && pwd)/$(basename "$cuzk_bin")"
    cuzk_desc="given binary $cuzk_bin"
else
    command -v cmake >/dev/null || die "cmake not found (or give --cuzk PATH)"
    log "building cuzk (Release) in build-bench"
    (cmake -S "$ROOT" -B "$ROOT/build-bench" -DCMAKE_BUILD_TYPE=Release -DCZ_BUILD_TESTS=OFF >"$TMP/cmake.log" 2>&1 \
        && cmake --build "$ROOT/build-bench" --target cuzk -j"$(nproc)" >>"$TMP/cmake.log" 2>&1) \
        || { tail -n 30 "$TMP/cmake.log" >&2; die "building cuzk failed (log above)"; }
    cuzk_bin="$ROOT/build-bench/cuzk"
    built=1
    [ -x "$cuzk_bin" ] || die "the build made no $cuzk_bin"
    cuzk_desc="build-bench, CMAKE_BUILD_TYPE=Release, default options (x86-64 asm unless CZ_PORTABLE)"
    cc_line="$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$ROOT/build-bench/CMakeCache.txt" | head -n 1)"
    [ -n "$cc_line" ] && cuzk_desc="$cuzk_desc, $("$cc_line" --version 2>/dev/null | head -n 1)"
fi
CUZK_VERSION="$("$cuzk_bin" --version 2>&1 | head -n 1 || true)"
GIT_COMMIT="$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
GIT_DIRTY="$(git -C "$ROOT" status --porcelain -- CMakeLists.txt include util ff ec ntt msm io groth16 backend cli 2>/dev/null | wc -l)"
if [ "$GIT_DIRTY" -gt 0 ]; then
    GIT_DESC="$GIT_COMMIT + uncommitted changes in $GIT_DIRTY library/CLI file(s)"
else
    GIT_DESC="$GIT_COMMIT (clean)"
fi
[ "$built" = 1 ] || GIT_DESC="$GIT_DESC (of this checkout; the binary given by --cuzk may differ)"

# ---------------------------------------------------------------- rounds
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
# stats FILE -> "median min max" of the numbers in FILE (one per line)
stats() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "- - -"; exit }
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}
# cuzk -v lines "cuzk: time: label 1.234s, label 0.5s" -> "label<TAB>seconds"
# ("msm A 1s, B1 2s" -> "msm A", "msm B1": the first label's "msm " carries over)
parse_stages() {
    sed -n 's/^cuzk: time: //p' "$1" | awk '{
        n = split($0, parts, /, /); prefix = ""
        for (i = 1; i <= n; i++) if (match(parts[i], / [0-9.]+s$/)) {
            label = substr(parts[i], 1, RSTART - 1); sec = substr(parts[i], RSTART + 1, RLENGTH - 2)
            if (i == 1 && label ~ /^msm /) prefix = "msm "
            else if (prefix != "" && index(label, prefix) != 1) label = prefix label
            printf "%s\t%s\n", label, sec } }'
}

# How busy the machine was otherwise: the CPU time all processes used
# (/proc/stat: user+nice+system+irq+softirq+steal) minus the CPU time of this
# script's children (bash `times`, which must run in this shell, not in a
# subshell), as a share of wall time x cores. The load average alone cannot
# tell: during the rounds it includes the provers themselves.
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
children_cpu_s() { tail -n 1 "$1" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } printf "%.2f\n", s }'; }
CLK_TCK="$(getconf CLK_TCK 2>/dev/null || echo 100)"

LOAD_BEFORE="$(loadavg)"
LOAD_MAX_1M=0
RUN_DATE="$(date -u '+%Y-%m-%d %H:%M UTC')"
note_load() { LOAD_MAX_1M="$(awk -v a="$LOAD_MAX_1M" -v b="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { print (b > a) ? b : a }')"; }
times >"$TMP/times.0"
BUSY0="$(busy_ticks)"
WALL0="$(date +%s.%N)"

for c in "${circuits[@]}"; do
    dir="$CACHE/$c"
    out="$TMP/run-$c"
    mkdir -p "$out"
    : >"$out/snarkjs.times"
    : >"$out/cuzk.times"
    : >"$out/ratios"
    total=$((warmup + rounds))
    for ((r = 1; r <= total; r++)); do
        if [ "$r" -le "$warmup" ]; then tag="warm-up $r/$warmup"; else tag="round $((r - warmup))/$rounds"; fi
        note_load
        t0="$(now)"
        set +e
        "${pin[@]}" node "$SNARKJS_CLI" groth16 prove "$dir/circuit.zkey" "$dir/witness.wtns" \
            "$out/snarkjs_proof.json" "$out/snarkjs_public.json" >"$out/snarkjs.log" 2>&1
        rc=$?
        set -e
        t1="$(now)"
        if [ "$rc" -ne 0 ] || grep -q 'ERROR' "$out/snarkjs.log"; then
            tail -n 20 "$out/snarkjs.log" >&2
            die "$c: snarkjs groth16 prove failed (exit $rc)"
        fi
        ts="$(sub "$t0" "$t1")"
        t0="$(now)"
        set +e
        "${pin[@]}" "$cuzk_bin" prove -v --device "$device" "${cuzk_threads[@]}" "$dir/circuit.zkey" "$dir/witness.wtns" \
            "$out/cuzk_proof.json" "$out/cuzk_public.json" >"$out/cuzk.log" 2>&1
        rc=$?
        set -e
        t1="$(now)"
        [ "$rc" -eq 0 ] || { tail -n 20 "$out/cuzk.log" >&2; die "$c: cuzk prove failed (exit $rc)"; }
        tc="$(sub "$t0" "$t1")"
        log "$c: $tag: snarkjs ${ts}s, cuzk ${tc}s (load $(loadavg))"
        if [ "$r" -gt "$warmup" ]; then
            echo "$ts" >>"$out/snarkjs.times"
            echo "$tc" >>"$out/cuzk.times"
            awk -v a="$ts" -v b="$tc" 'BEGIN { printf "%.3f\n", a / b }' >>"$out/ratios"
            parse_stages "$out/cuzk.log" >"$out/stages.$((r - warmup))"
            [ -s "$out/stages.$((r - warmup))" ] || { cat "$out/cuzk.log" >&2; die "$c: no stage times in cuzk -v output"; }
        fi
    done
    cuzk_device="$(sed -n 's/^cuzk: device: //p' "$out/cuzk.log" | head -n 1)"
    echo "${cuzk_device:-?}" >"$out/device"

    # --- the last round's proofs: both verifiers, same public signals
    log "$c: verifying the last proofs with snarkjs and cuzk"
    for p in snarkjs cuzk; do
        VERIFY_QUIET=1 "$JS/verify.sh" "$dir/verification_key.json" "$out/${p}_public.json" "$out/${p}_proof.json" \
            || die "$c: snarkjs groth16 verify rejected the $p proof"
        "$cuzk_bin" verify -q "$dir/verification_key.json" "$out/${p}_public.json" "$out/${p}_proof.json" \
            || die "$c: cuzk verify rejected the $p proof"
    done
    node -e 'const fs = require("fs"); const [a, b] = process.argv.slice(1).map(f => JSON.parse(fs.readFileSync(f)).map(String));
        if (JSON.stringify(a) !== JSON.stringify(b)) { console.error("public signals differ: " + a + " vs " + b); process.exit(1); }' \
        "$out/snarkjs_public.json" "$out/cuzk_public.json" || die "$c: snarkjs and cuzk disagree on the public signals"
    echo "ok" >"$out/verified"
done
note_load
LOAD_AFTER="$(loadavg)"
times >"$TMP/times.1"
BUSY1="$(busy_ticks)"
WALL1="$(date +%s.%N)"
OTHERS_PCT="$(awk -v b0="$BUSY0" -v b1="$BUSY1" -v hz="$CLK_TCK" -v c0="$(children_cpu_s "$TMP/times.0")" \
    -v c1="$(children_cpu_s "$TMP/times.1")" -v w0="$WALL0" -v w1="$WALL1" -v n="$(nproc)" 'BEGIN {
    o = (b1 - b0) / hz - (c1 - c0); if (o < 0) o = 0
    printf "%.0f", 100 * o / ((w1 - w0) * n) }')"
OURS_PCT="$(awk -v c0="$(children_cpu_s "$TMP/times.0")" -v c1="$(children_cpu_s "$TMP/times.1")" \
    -v w0="$WALL0" -v w1="$WALL1" -v n="$(nproc)" 'BEGIN { printf "%.0f", 100 * (c1 - c0) / ((w1 - w0) * n) }')"

# ---------------------------------------------------------------- report
CPU_MODEL="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
[ -n "$CPU_MODEL" ] || CPU_MODEL="$(uname -m)"
NPROC="$(nproc)"
MEM_GIB="$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)"
if [ -n "$cpus" ]; then
    THREADS_DESC="both pinned with taskset -c $cpus ($nthreads CPUs); cuzk --threads $nthreads; snarkjs starts os.cpus() = $NPROC workers"
else
    THREADS_DESC="no pinning; both use all $NPROC cores (snarkjs: one worker per core; cuzk: default pool)"
fi

report() {
    echo "| circuit | constraints | prover | median s | min s | max s | snarkjs/cuzk |"
    echo "|---|---:|---|---:|---:|---:|---:|"
    for c in "${circuits[@]}"; do
        local out="$TMP/run-$c" m ncons sm cm
        m="$(cat "$CACHE/$c/manifest.json")"
        ncons="$(jget "$m" nConstraints)"
        read -r sm smin smax < <(stats "$out/snarkjs.times")
        read -r cm cmin cmax < <(stats "$out/cuzk.times")
        read -r rmed rmin rmax < <(stats "$out/ratios" | awk '{ printf "%.2f %.2f %.2f\n", $1, $2, $3 }')
        ratio="$(awk -v a="$sm" -v b="$cm" 'BEGIN { printf "%.2f", a / b }')"
        echo "| $c | $ncons | snarkjs $SNARKJS_VERSION groth16 prove | $sm | $smin | $smax | |"
        echo "| $c | $ncons | cuzk prove, $(cat "$out/device") | $cm | $cmin | $cmax | **${ratio}x** (per round: median ${rmed}x, ${rmin}-${rmax}x) |"
    done
    echo
    echo "cuzk prove -v stages, median over the $rounds rounds (seconds):"
    echo
    local hdr="| stage |" sep="|---|"
    for c in "${circuits[@]}"; do hdr="$hdr $c |"; sep="$sep---:|"; done
    echo "$hdr"
    echo "$sep"
    # the stage labels in the order cuzk prints them
    local labels
    labels="$(cut -f1 "$TMP/run-${circuits[0]}/stages.1")"
    while IFS= read -r label; do
        local row="| $label |"
        for c in "${circuits[@]}"; do
            local f="$TMP/run-$c/stage.$$"
            cat "$TMP/run-$c"/stages.* | awk -F'\t' -v l="$label" '$1 == l { print $2 }' >"$f"
            row="$row $(stats "$f" | cut -d' ' -f1) |"
        done
        echo "$row"
    done <<<"$labels"
}
TABLE="$(report)"

header() {
    echo "- date: $RUN_DATE"
    echo "- machine: $CPU_MODEL, nproc $NPROC, $MEM_GIB GiB; load average (1/5/15 min) before $LOAD_BEFORE, after $LOAD_AFTER, highest 1-min seen $LOAD_MAX_1M (these include the provers themselves)"
    echo "- other load: during the rounds, other processes used $OTHERS_PCT% of the machine's CPU time (this benchmark $OURS_PCT%)$(awk -v o="$OTHERS_PCT" 'BEGIN { if (o >= 10) print ": the machine was otherwise busy, so the figures are indicative (both provers were slowed; the ratio is the steadier figure)"; else print ": the machine was otherwise quiet" }')"
    echo "- threads: $THREADS_DESC"
    echo "- command: \`$COMMAND_LINE\` ($rounds timed rounds after $warmup warm-up, alternating snarkjs, cuzk; wall clock of each whole command: loading, proving, writing; cuzk's includes verifying its proof)"
    echo "- versions: snarkjs $SNARKJS_VERSION (node $NODE_VERSION), circom $CIRCOM_VERSION (circom2 $CIRCOM2_VERSION), circomlib $CIRCOMLIB_VERSION; cuzk $GIT_DESC, \`$CUZK_VERSION\`, $cuzk_desc"
    echo "- keys: bench/.cache (powers of tau 2^$PTAU_POWER and zkey by beacon, domain 2^$DOMAIN_LOG); the last round's proofs of both provers pass \`snarkjs groth16 verify\` and \`cuzk verify\`"
}
HEADER="$(header)"

printf '\n%s\n\n%s\n' "$HEADER" "$TABLE"

if [ "$write" = 1 ]; then
    body="$TMP/section.md"
    printf '%s\n\n%s\n\n%s\n' "$SECTION" "$HEADER" "$TABLE" >"$body"
    # short read-modify-write, renamed into place: other sections are kept as they are
    node -e 'const fs = require("fs"), path = require("path");
        const [file, heading, bodyFile] = process.argv.slice(1);
        const body = fs.readFileSync(bodyFile, "utf8").replace(/\n+$/, "\n");
        let text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# cuzk benchmark results\n";
        const lines = text.split("\n");
        const start = lines.findIndex(l => l.trimEnd() === heading);
        if (start < 0) {
            text = text.replace(/\n*$/, "\n\n") + body;
        } else {
            let end = lines.findIndex((l, i) => i > start && /^##? /.test(l));
            if (end < 0) end = lines.length;
            const before = lines.slice(0, start).join("\n"), after = lines.slice(end).join("\n");
            text = before + (before ? "\n" : "") + body + (after.trim() ? "\n" + after : "");
        }
        if (!text.endsWith("\n")) text += "\n";
        const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
        fs.writeFileSync(tmp, text);
        fs.renameSync(tmp, file);' "$RESULTS" "$SECTION" "$body"
    log "wrote the section \"$SECTION\" in $RESULTS"
fi
