#!/usr/bin/env bash
# End-to-end tests of the circuits written in C (`cuzk circuit`) against
# snarkjs and node's crypto (pinned snarkjs in tests/js):
#   - `cuzk circuit list` and `NAME --help`;
#   - for each circuit and curve: the exported .r1cs passes `snarkjs r1cs
#     info` with the counts cuzk printed, the .wtns passes `snarkjs wtns
#     check`; `cuzk setup --insecure-dev` + `cuzk prove --check` make a
#     proof snarkjs verifies, and `snarkjs groth16 prove` with the same key
#     one that cuzk verifies; the public inputs are the expected values
#     (sha256: the digest from node's crypto, packed);
#   - the Poseidon hash against circom's (circomlib's Poseidon(2) compiled by the
#     pinned circom2, its witness computed by snarkjs) on random inputs;
#   - an input the circuit does not accept: exit 4 naming the constraint,
#     nothing written; written anyway (--allow-unsatisfied): `cuzk prove
#     --check` refuses it (exit 4) and snarkjs wtns check rejects it.
# Usage: tests/test_circuits.sh path/to/cuzk
# CZ_CLI_QUICK=1 or CZ_TEST_SCALE < 1 (the sanitizer builds of scripts/test.sh):
# every cuzk command still runs and every cuzk proof is still verified by
# snarkjs, but the snarkjs-side checks that do not depend on how cuzk was
# built (snarkjs's r1cs info and wtns check of the exports, snarkjs's own
# prover, circom's Poseidon) are left to the default build: they are most of
# this test's time (node), and they are reported as left out, not passed.
set -uo pipefail
cuzk=${1:?usage: test_circuits.sh path/to/cuzk}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sj="$here/js/node_modules/snarkjs/build/cli.cjs"
tmp=$(mktemp -d /tmp/cz_test_circuits.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0
failn=0
left=0
quick=${CZ_CLI_QUICK:-0}
if [ -n "${CZ_TEST_SCALE:-}" ] && awk "BEGIN{exit !($CZ_TEST_SCALE < 1)}"; then quick=1; fi
# full: true when the snarkjs-side checks run (see above); else counts them out
full() { if [ "$quick" = 1 ]; then left=$((left + 1)); return 1; fi; }
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*" >&2; }
check() { if "$@"; then ok; else bad "$*"; fi; }
if [ ! -f "$sj" ]; then
  echo "test_circuits: snarkjs is not installed: run 'npm ci' in tests/js" >&2
  exit 1
fi
sjq() { node "$sj" "$@" >/dev/null 2>&1; }

check sh -c "'$cuzk' circuit list | grep -q '^sha256'"
check sh -c "'$cuzk' circuit sha256 --help | grep -q preimage"
check sh -c "'$cuzk' help | grep -q 'circuit'"
"$cuzk" circuit nosuch --input x -o y 2>/dev/null
check test $? -eq 2

# the digest of hex bytes, packed as cz_pack_inputs packs it (bit i of the
# digest = bit 7 - i%8 of byte i/8, little-endian in chunks of cap bits)
sha_public() { node -e '
  const h=require("crypto").createHash("sha256").update(Buffer.from(process.argv[1],"hex")).digest();
  const cap=+process.argv[2];const out=[];
  for(let at=0;at<256;at+=cap){let v=0n;for(let i=0;i<cap&&at+i<256;i++){const b=at+i;
    if((h[b>>3]>>(7-(b&7)))&1)v|=1n<<BigInt(i);}out.push(v.toString());}
  console.log(JSON.stringify(out));' "$1" "$2"; }

# prove and verify one exported circuit both ways
prove_both() { # base curve
  local g=$1
  "$cuzk" setup --insecure-dev --seed 5 -q "$g.r1cs" "$g.zkey" 2>/dev/null || { bad "setup $g"; return; }
  check "$cuzk" prove -q --check "$g.r1cs" "$g.zkey" "$g.wtns" "$g.proof.json" "$g.public.json"
  check sjq zkey export verificationkey "$g.zkey" "$g.vk.json"
  check sjq groth16 verify "$g.vk.json" "$g.public.json" "$g.proof.json"
  full || return 0
  check sjq groth16 prove "$g.zkey" "$g.wtns" "$g.sjproof.json" "$g.sjpublic.json"
  check "$cuzk" verify -q "$g.vk.json" "$g.sjpublic.json" "$g.sjproof.json"
}

for curve in bn254 bls12-381; do
  cap=253; [ $curve = bls12-381 ] && cap=254
  for hex in 616263 "" "$(head -c 100 /dev/urandom | od -An -tx1 | tr -d ' \n')"; do
    g="$tmp/sha_${curve}_${#hex}"
    echo "{\"preimage\": \"$hex\"}" > "$g.json"
    if "$cuzk" circuit sha256 --curve $curve --input "$g.json" -o "$g" 2>"$g.err"; then ok; else bad "export sha256 $curve: $(cat "$g.err")"; continue; fi
    n=$(sed -n 's/.*: \([0-9]*\) constraints.*/\1/p' "$g.err")
    if full; then
      info=$(node "$sj" r1cs info "$g.r1cs" 2>&1)
      check sh -c "echo '$info' | grep -q '# of Constraints: $n\$'"
      check sh -c "echo '$info' | grep -q '# of Public Inputs: 2\$'"
      check sjq wtns check "$g.r1cs" "$g.wtns"
    fi
    check "$cuzk" circuit sha256 --curve $curve --input "$g.json" --check -q
    [ ${#hex} -gt 6 ] && continue # the proofs: for the short inputs
    prove_both "$g"
    want=$(sha_public "$hex" $cap)
    got=$(node -e 'console.log(JSON.stringify(require(process.argv[1])))' "$g.public.json")
    check test "$want" = "$got"
  done
  # a claimed digest the preimage does not hash to
  g="$tmp/shabad_$curve"
  echo '{"preimage": "616263", "digest": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ae"}' > "$g.json"
  "$cuzk" circuit sha256 --curve $curve --input "$g.json" -o "$g" 2>"$g.err"
  rc=$?
  if [ $rc -eq 4 ] && grep -q "digest/packed input" "$g.err" && [ ! -e "$g.r1cs" ] && [ ! -e "$g.wtns" ]; then ok; else bad "unsatisfied export: exit $rc, $(cat "$g.err")"; fi
  "$cuzk" circuit sha256 --curve $curve --input "$g.json" --check 2>"$g.err"
  rc=$?
  if [ $rc -eq 4 ] && grep -q "constraint [0-9]* (digest/packed input)" "$g.err"; then ok; else bad "--check: exit $rc, $(cat "$g.err")"; fi
  check "$cuzk" circuit sha256 --curve $curve --input "$g.json" -o "$g" --allow-unsatisfied -q
  if ! full; then :; elif sjq wtns check "$g.r1cs" "$g.wtns"; then bad "snarkjs accepted an unsatisfied witness"; else ok; fi
  "$cuzk" setup --insecure-dev --seed 5 -q "$g.r1cs" "$g.zkey" 2>/dev/null
  "$cuzk" prove -q --check "$g.r1cs" "$g.zkey" "$g.wtns" "$g.proof.json" "$g.public.json" 2>"$g.err"
  rc=$?
  if [ $rc -eq 4 ] && [ ! -e "$g.proof.json" ]; then ok; else bad "prove of an unsatisfied witness: exit $rc"; fi
  # bad input JSON: exit 3 naming the field
  echo '{"preimage": "6162x3"}' > "$g.json"
  "$cuzk" circuit sha256 --input "$g.json" -o "$g.x" 2>"$g.err"
  rc=$?
  if [ $rc -eq 3 ] && grep -q "preimage" "$g.err"; then ok; else bad "bad hex: exit $rc $(cat "$g.err")"; fi
done

# ---- poseidon-merkle (BN254): depth 32, the default ----
check sh -c "'$cuzk' circuit list | grep -q '^poseidon-merkle'"
check sh -c "'$cuzk' circuit poseidon-merkle --help | grep -q 'path'"
g="$tmp/pm"
node -e 'const p=[];for(let i=0;i<32;i++)p.push(String(1000+i));console.log(JSON.stringify({leaf:"12345",path:p,index:3000000000}))' > "$g.json"
if "$cuzk" circuit poseidon-merkle --input "$g.json" -o "$g" 2>"$g.err"; then ok; else bad "export poseidon-merkle: $(cat "$g.err")"; fi
n=$(sed -n 's/.*: \([0-9]*\) constraints.*/\1/p' "$g.err")
check test "$n" = $((32 * (1 + 1 + 244) + 1))
if full; then
  check sh -c "node '$sj' r1cs info '$g.r1cs' 2>&1 | grep -q '# of Public Inputs: 1\$'"
  check sjq wtns check "$g.r1cs" "$g.wtns"
fi
prove_both "$g"
# the root the path leads to, claimed explicitly, is accepted; another is not
root=$(node -e 'console.log(require(process.argv[1])[0])' "$g.public.json")
node -e 'const j=require(process.argv[1]);j.root=process.argv[2];console.log(JSON.stringify(j))' "$g.json" "$root" > "$g.ok.json"
check "$cuzk" circuit poseidon-merkle --input "$g.ok.json" --check -q
node -e 'const j=require(process.argv[1]);j.root=(BigInt(process.argv[2])+1n).toString();console.log(JSON.stringify(j))' "$g.json" "$root" > "$g.bad.json"
"$cuzk" circuit poseidon-merkle --input "$g.bad.json" -o "$g.bad" 2>"$g.err"
rc=$?
if [ $rc -eq 4 ] && grep -q "(root)" "$g.err" && [ ! -e "$g.bad.r1cs" ]; then ok; else bad "wrong root: exit $rc $(cat "$g.err")"; fi
"$cuzk" circuit poseidon-merkle --curve bls12-381 --input "$g.json" -o "$g.x" 2>/dev/null
check test $? -eq 2
# the same circuit proved from its input (prove --circuit: synthesized in
# process, no witness file), verified by snarkjs; the same public inputs
check "$cuzk" prove -q -d cpu --circuit poseidon-merkle --input "$g.json" --pce-dir "$tmp" "$g.zkey" "$g.np.json" "$g.npublic.json"
check cmp "$g.public.json" "$g.npublic.json"
check sjq groth16 verify "$g.vk.json" "$g.npublic.json" "$g.np.json"
check sh -c "ls '$tmp'/poseidon-merkle-*.pce >/dev/null"
"$cuzk" prove -q -d cpu --circuit poseidon-merkle --input "$g.bad.json" "$g.zkey" "$g.nbad.json" "$g.nbadpub.json" 2>"$g.err"
rc=$?
if [ $rc -eq 4 ] && grep -q "(root)" "$g.err" && [ ! -e "$g.nbad.json" ] && [ ! -e "$g.nbadpub.json" ]; then ok; else bad "prove --circuit of a wrong root: exit $rc $(cat "$g.err")"; fi
"$cuzk" prove -q -d cpu --circuit poseidon-merkle "$g.zkey" "$g.x.json" "$g.y.json" 2>/dev/null
check test $? -eq 2
check sh -c "'$cuzk' bench-engine -q -d cpu -j 2 -p 2 --circuit poseidon-merkle --input '$g.json' '$g.zkey' | grep -q '2 jobs x 2 partitions'"

# the Poseidon hash itself against circom's: circomlib's Poseidon(2)
# (tests/fixtures/circuits/poseidon.circom) compiled by the pinned circom2,
# its witness computed by snarkjs from its wasm, on random inputs below r;
# cuzk's hash is the root of a depth-1 path with the leaf on the left
# (root = Poseidon(leaf, sibling)). circom2 (WASI) sees only its working
# directory and below: it runs in the real directory of tests/js (node_modules
# may be a link), on a copy of the circuit, its output in a directory there.
jsdir=$(dirname "$(cd "$here/js/node_modules" && pwd -P)")
cb=$(mktemp -d "$jsdir/circom-tmp-XXXXXX")
trap 'rm -rf "$tmp" "$cb"' EXIT
cp "$here/fixtures/circuits/poseidon.circom" "$cb/"
if ! full; then
  :
elif (cd "$jsdir" && node_modules/.bin/circom2 "$(basename "$cb")/poseidon.circom" --wasm -p bn128 \
      -l node_modules -o "$(basename "$cb")" >"$tmp/circom.log" 2>&1); then
  ok
  for i in 1 2 3 4 5; do
    node -e '
      const c=require("crypto");const r=21888242871839275222246405745257275088548364400416034343698204186575808495617n;
      const rnd=()=>(BigInt("0x"+c.randomBytes(32).toString("hex"))%r).toString();
      const a=process.argv[1]==="1"?(r-1n).toString():rnd(),b=process.argv[1]==="2"?"0":rnd();
      require("fs").writeFileSync(process.argv[2],JSON.stringify({a,b}));
      require("fs").writeFileSync(process.argv[3],JSON.stringify({leaf:a,path:[b],index:0}));' \
      "$i" "$tmp/ph$i.circom.json" "$tmp/ph$i.cuzk.json"
    sjq wtns calculate "$cb/poseidon_js/poseidon.wasm" "$tmp/ph$i.circom.json" "$tmp/ph$i.c.wtns" &&
      sjq wtns export json "$tmp/ph$i.c.wtns" "$tmp/ph$i.c.json" || { bad "circom's Poseidon witness $i"; continue; }
    "$cuzk" circuit poseidon-merkle --param depth=1 --input "$tmp/ph$i.cuzk.json" -o "$tmp/ph$i" 2>/dev/null &&
      sjq wtns export json "$tmp/ph$i.wtns" "$tmp/ph$i.z.json" || { bad "cuzk's depth-1 path $i"; continue; }
    want=$(node -e 'console.log(require(process.argv[1])[1])' "$tmp/ph$i.c.json")
    got=$(node -e 'console.log(require(process.argv[1])[1])' "$tmp/ph$i.z.json")
    if [ -n "$want" ] && [ "$want" = "$got" ]; then ok; else bad "Poseidon($(cat "$tmp/ph$i.circom.json")): circom $want, cuzk $got"; fi
  done
else
  bad "circom2 could not compile poseidon.circom: $(tail -5 "$tmp/circom.log")"
fi
rm -rf "$cb"

# ---- porep-like (BLS12-381) ----
check sh -c "'$cuzk' circuit list | grep -q '^porep-like'"
check sh -c "'$cuzk' circuit porep-like --help | grep -q 'replica_id'"
rid=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
g="$tmp/pl"
echo "{\"replica_id\": \"$rid\", \"seed\": 5}" > "$g.json"
# the smallest instance (1 challenge, no parents, depth 1: 2^16), both ways
P="--param challenges=1 --param parents=0 --param depth=1"
if "$cuzk" circuit porep-like $P --input "$g.json" -o "$g" 2>"$g.err"; then ok; else bad "export porep-like: $(cat "$g.err")"; fi
n=$(sed -n 's/.*: \([0-9]*\) constraints.*/\1/p' "$g.err")
if full; then
  check sh -c "node '$sj' r1cs info '$g.r1cs' 2>&1 | grep -q '# of Constraints: $n\$'"
  check sh -c "node '$sj' r1cs info '$g.r1cs' 2>&1 | grep -q '# of Public Inputs: 5\$'"
  check sjq wtns check "$g.r1cs" "$g.wtns"
fi
prove_both "$g"
check "$cuzk" prove -q -d cpu --circuit porep-like $P --input "$g.json" "$g.zkey" "$g.np.json" "$g.npublic.json"
check cmp "$g.public.json" "$g.npublic.json"
check sjq groth16 verify "$g.vk.json" "$g.npublic.json" "$g.np.json"
# a claimed comm_r that is not the sector's; a sector replicated with another id
echo "{\"replica_id\": \"$rid\", \"seed\": 5, \"comm_r\": \"$rid\"}" > "$g.bad.json"
other=ff23456789abcdef0123456789abcdef0123456789abcdef0123456789abcd00
plroot=$(node -e 'const w=require(process.argv[1]);const v=BigInt(w[2])|(BigInt(w[3])<<254n);
  const b=Buffer.alloc(32);for(let i=0;i<256;i++)if((v>>BigInt(i))&1n)b[i>>3]|=0x80>>(i&7);
  console.log(b.toString("hex"))' "$g.public.json")
echo "{\"replica_id\": \"$other\", \"sector_replica_id\": \"$rid\", \"seed\": 5, \"comm_r\": \"$plroot\"}" > "$g.other.json"
check "$cuzk" circuit porep-like $P --input "$(echo "{\"replica_id\": \"$rid\", \"seed\": 5, \"comm_r\": \"$plroot\"}" > "$g.claim.json"; echo "$g.claim.json")" --check -q
for b in bad other; do
  "$cuzk" circuit porep-like $P --input "$g.$b.json" --check 2>"$g.err"
  rc=$?
  if [ $rc -eq 4 ] && grep -q "constraint [0-9]* (challenge 0/node/root)" "$g.err"; then ok; else bad "porep-like $b --check: exit $rc $(cat "$g.err")"; fi
  "$cuzk" prove -q -d cpu --circuit porep-like $P --input "$g.$b.json" "$g.zkey" "$g.$b.p.json" "$g.$b.pub.json" 2>"$g.err"
  rc=$?
  if [ $rc -eq 4 ] && [ ! -e "$g.$b.p.json" ] && [ ! -e "$g.$b.pub.json" ]; then ok; else bad "porep-like $b prove: exit $rc $(cat "$g.err")"; fi
done
# the public inputs are the documented derivations (node's crypto): the
# replica id packed, each challenge and its parents (2 challenges, 1 parent,
# depth 3)
"$cuzk" circuit porep-like --param challenges=2 --param parents=1 --param depth=3 --input "$g.json" -o "$g.d" -q 2>/dev/null
check sjq wtns export json "$g.d.wtns" "$g.d.w.json"
check node -e '
  const c=require("crypto"),w=require(process.argv[1]),rid=Buffer.from(process.argv[2],"hex");
  const d=3n,seed=5n,k=1,C=2;
  const h=(tag,a,b)=>{const m=Buffer.alloc(tag.length+44);m.write(tag);rid.copy(m,tag.length);
    m.writeBigUInt64BE(a,tag.length+32);m.writeUInt32BE(b,tag.length+40);
    return c.createHash("sha256").update(m).digest().readBigUInt64BE(0);};
  let r=0n;for(let i=0;i<256;i++)if((rid[i>>3]>>(7-(i&7)))&1)r|=1n<<BigInt(i);
  const want=[(r&((1n<<254n)-1n)).toString(),(r>>254n).toString()];
  let at=5;
  for(let i=0;i<C;i++){const v=1n+h("cuzk porep-like challenge",seed,i)%((1n<<d)-1n);want.push("@"+at+"="+v);at++;
    for(let j=0;j<k;j++){want.push("@"+at+"="+(h("cuzk porep-like parent",v,j)%v));at++;}}
  if(w[1]!==want[0]||w[2]!==want[1])process.exit(1);
  for(const e of want.slice(2)){const [p,v]=e.slice(1).split("=");if(w[+p]!==v){console.error(e,w[+p]);process.exit(1);}}
' "$g.d.w.json" "$rid"

if [ "$quick" = 1 ]; then
  echo "test_circuits: $pass passed, $failn failed ($left groups of snarkjs-side checks left to the default build)"
else
  echo "test_circuits: $pass passed, $failn failed"
fi
[ "$failn" -eq 0 ]
