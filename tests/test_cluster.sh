#!/usr/bin/env bash
# Three cuzkd sharing one PostgreSQL job store (docs/CLUSTER.md), against a
# real server this script starts (tests/pg_cluster.sh: a throwaway cluster
# in a temporary directory on a loopback port, stopped and removed at the
# end, also on failure), on the CPU backend and the small BN254 fixtures.
# Clients stream multi-partition jobs to all three hosts (uploads through
# the shared spool directory and witnesses by path; idempotency keys; a
# client whose host does not answer submits the same key to the next host,
# which answers with the same job) while:
#   1. kill -9: host h1 is killed while it holds running partitions (seen in
#      the database); the others take them over when its leases run out
#      (attempt + 1); h1 is started again and rejoins. Then h1 is killed
#      between an upload's move into the shared spool and its commit (a
#      trigger holds the INSERT): started again, h1 finds the directory its
#      own, made before it started, and removes it once the store, 10 s on,
#      does not know the job (another host's would stay for an hour).
#   2. cut off: h2 reaches the database through a TCP relay; the relay is
#      stopped (SIGSTOP) while h2 holds partitions, past h2's lease. h2 goes
#      on proving what it holds; the others take it over; once they have and
#      h2 has proved one of them (its result waiting for the store), the
#      relay comes back and h2's late results are refused by the fence: its
#      log says so, its metrics count them, the database's attempt rows of h2 are
#      "expired" with fenced > 0 and the partition was done by a later
#      attempt of another host.
#   3. SIGSTOP: h3 is stopped while it holds partitions, past its lease, then
#      continued: the others took its partitions over (its attempts
#      "expired", later attempts done elsewhere); h3 learns it lost them
#      (its log) and writes nothing for them.
#   4. the database goes away: the server is stopped during the stream and
#      started again 3 s later. Meanwhile every host reports degraded
#      (/healthz 503 "degraded", /v1/status "degraded": true) and refuses
#      submissions (503, never a 202 that is later lost); afterwards they
#      recover by themselves; no lease ran out across the outage (the
#      running work was kept). An upload whose INSERT a trigger holds when
#      the server stops is refused (503) with its witness left in the spool
#      (committed or not is unknown then); the host removes it once the
#      store answers and does not know the job.
# Then: every job a client got accepted is done, exactly one job per
# idempotency key, every proof verifies (`cuzk verify`), every partition
# has exactly one "done" attempt and its result was written once, nothing
# failed; the shared spool is empty once the jobs ended and a host's
# sweep ran; GET /v1/status on a host lists the three hosts; a built-in
# circuit's job submitted to one host, awaited on another, its proofs read
# from the third, verified.
# Usage: tests/test_cluster.sh path/to/cuzkd path/to/cuzk   (prints "N passed, N failed")
# CZ_TEST_SCALE < 1 (sanitizer builds) shortens the stream, not the phases.
# Without the PostgreSQL server programs: fails saying what to install,
# unless CZ_PG_OPTIONAL=1 (then exit 77, skipped). CZ_KEEP_TMP=1 keeps the
# temporary directory (logs, the server's log).
set -u
cuzkd=${1:?usage: test_cluster.sh path/to/cuzkd path/to/cuzk}
cuzk=${2:?usage: test_cluster.sh path/to/cuzkd path/to/cuzk}
cuzkd=$(cd "$(dirname "$cuzkd")" && pwd)/$(basename "$cuzkd")
cuzk=$(cd "$(dirname "$cuzk")" && pwd)/$(basename "$cuzk")
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/pg_cluster.sh"
for t in curl node; do
  command -v $t >/dev/null 2>&1 || { echo "test_cluster: $t is required" >&2; exit 1; }
done
if ! pg_find; then
  echo "test_cluster: $PG_WHY" >&2
  [ "${CZ_PG_OPTIONAL:-0}" = 1 ] && { echo "test_cluster: skipped (CZ_PG_OPTIONAL=1)"; exit 77; }
  exit 1
fi
if ! "$cuzkd" --store postgresql://x@127.0.0.1:1/x --data_dir /nonexistent --allow_dir / --check-config >/dev/null 2>&1; then
  echo "test_cluster: cuzkd does not take a PostgreSQL store" >&2
  exit 1
fi
tmp=$(mktemp -d /tmp/cz_test_cluster.XXXXXX)
pass=0
failn=0
bg_pids=()
declare -A DPID DPORT
cleanup() {
  for p in "${bg_pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
  for h in "${!DPID[@]}"; do kill -CONT "${DPID[$h]}" 2>/dev/null; kill -9 "${DPID[$h]}" 2>/dev/null; done
  [ -n "${relay_pid:-}" ] && { kill -CONT "$relay_pid" 2>/dev/null; kill -9 "$relay_pid" 2>/dev/null; }
  wait 2>/dev/null
  pg_stop immediate
  if [ "${CZ_KEEP_TMP:-0}" = 1 ]; then echo "test_cluster: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
ok() { pass=$((pass + 1)); }
bad() { failn=$((failn + 1)); echo "FAIL: $*" >&2; }
check() { if "$@"; then ok; else bad "$*"; fi; }
scale=${CZ_TEST_SCALE:-1}
t0=$(date +%s)
say() { echo "test_cluster: [$(($(date +%s) - t0)) s] $*"; }

# ---- the server, the relay, the files ----
pg_start "$tmp" || { echo "test_cluster: $PG_WHY" >&2; exit 1; }
pg_sql postgres "CREATE DATABASE cluster" || { echo "test_cluster: cannot create the database" >&2; exit 1; }
STORE="postgresql://cuzk@127.0.0.1:$PG_PORT/cluster"
q() { pg_sql cluster "$1" 2>/dev/null; }
say "PostgreSQL on 127.0.0.1:$PG_PORT ($("$PG_BIN/postgres" --version))"

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# a TCP relay 127.0.0.1:RELAY -> the server (h2's way to the database)
RELAY=$(free_port)
cat >"$tmp/relay.js" <<'EOF'
const net = require("net");
const [port, to] = process.argv.slice(2).map(Number);
net.createServer(c => {
  const u = net.connect(to, "127.0.0.1");
  c.pipe(u); u.pipe(c);
  const end = () => { c.destroy(); u.destroy(); };
  c.on("error", end); u.on("error", end); c.on("close", end); u.on("close", end);
}).listen(port, "127.0.0.1", () => console.log("relay up"));
EOF
node "$tmp/relay.js" "$RELAY" "$PG_PORT" >"$tmp/relay.log" 2>&1 &
relay_pid=$!
for _ in $(seq 100); do grep -q "relay up" "$tmp/relay.log" && break; sleep 0.05; done

allow="$tmp/allow"
mkdir -p "$allow" "$tmp/spool" "$tmp/out"
for n in poseidon mul_chain; do
  mkdir -p "$allow/$n"
  cp "$here/fixtures/bn128/$n/circuit.zkey" "$here/fixtures/bn128/$n/witness.wtns" \
    "$here/fixtures/bn128/$n/verification_key.json" "$allow/$n/"
done

# ---- the hosts ----
LEASE=3
start_host() { # NAME STORE_URL [FLAG..]
  local h=$1 url=$2
  shift 2
  [ -n "${DPORT[$h]:-}" ] || DPORT[$h]=$(free_port)
  "$cuzkd" --listen "127.0.0.1:${DPORT[$h]}" --data_dir "$tmp/d$h" --allow_dir "$allow" --devices cpu \
    --store "$url" --spool_dir "$tmp/spool" --host_id "$h" --lease_s $LEASE --max_attempts 10 \
    --retention_s 3600 --shutdown_grace_s 2 --max_jobs 100000 "$@" >>"$tmp/$h.log" 2>&1 &
  DPID[$h]=$!
  local i
  for i in $(seq 400); do
    curl -sf -o /dev/null "http://127.0.0.1:${DPORT[$h]}/healthz" && return 0
    kill -0 "${DPID[$h]}" 2>/dev/null || return 1
    sleep 0.025
  done
  return 1
}
url() { echo "http://127.0.0.1:${DPORT[$1]}"; }
HOSTS=(h1 h2 h3)
check start_host h1 "$STORE"
check start_host h2 "postgresql://cuzk@127.0.0.1:$RELAY/cluster" --log_level debug # (scenario 2 reads its partitions' ends)
check start_host h3 "$STORE"
for h in "${HOSTS[@]}"; do kill -0 "${DPID[$h]}" 2>/dev/null || { bad "$h did not start: $(tail -3 "$tmp/$h.log")"; exit 1; }; done
say "hosts up: h1 :${DPORT[h1]}, h2 :${DPORT[h2]} (through the relay), h3 :${DPORT[h3]}"
# the keys, registered once (on h1): the others find them in the store
for n in poseidon mul_chain; do
  code=$(curl -s -o "$tmp/key.json" -w '%{http_code}' -X POST "$(url h1)/v1/keys" -H 'Content-Type: application/json' \
    --data-binary "{\"path\": \"$allow/$n/circuit.zkey\"}")
  case $code in 200 | 201) ok ;; *) bad "registering $n: HTTP $code $(cat "$tmp/key.json")" ;; esac
done

# ---- the clients ----
stop_file="$tmp/stop"
NPARTS=6
# client C: jobs with keys cl-C-N until the stop file; each line of
# $tmp/clientC.list: key, exit status, key name
client() {
  local c=$1 n=0 k kn hostn try rc args
  while [ ! -e "$stop_file" ]; do
    n=$((n + 1))
    k="cl-$c-$n"
    if [ $(((c + n) % 3)) = 0 ]; then kn=mul_chain; else kn=poseidon; fi
    args=()
    for ((i = 0; i < NPARTS; i++)); do args+=("$allow/$kn/witness.wtns"); done
    [ $((n % 2)) = 0 ] && args=(--by-path "${args[@]}") # else uploads: the shared spool
    rc=1
    for try in 0 1 2 3 4 5 6 7 8 9 10 11; do
      hostn=${HOSTS[$(((c + n + try) % 3))]}
      "$cuzk" submit -q -s "$(url "$hostn")" --timeout 15 -i "$k" -k "$allow/$kn/circuit.zkey" \
        -o "$tmp/out/$k.proof.json" --public "$tmp/out/$k.public.json" "${args[@]}" 2>>"$tmp/client$c.err"
      rc=$?
      [ $rc = 0 ] && break
      sleep 0.3
    done
    echo "$k $rc $kn" >>"$tmp/client$c.list"
  done
}
for c in 0 1 2; do
  client $c &
  bg_pids+=($!)
done

# held HOST: running partitions of HOST now, "job idx attempt" lines
held() { q "SELECT job_id || ' ' || idx || ' ' || attempts FROM parts WHERE owner = '$1' AND state = 1 ORDER BY 1"; }
# wait_held HOST: until HOST holds a running partition (up to 20 s)
wait_held() {
  local i
  for i in $(seq 400); do
    [ -n "$(held "$1")" ] && return 0
    sleep 0.05
  done
  return 1
}
# freeze HOST DO UNDO: waits until HOST holds partitions, runs DO (a kill, a stop), and
# reads what HOST still holds a moment later into $tmp/held.HOST (a result
# whose COMMIT was on its way may still have landed); when that is nothing,
# UNDO and again (5 tries). 0 when it holds some.
freeze() {
  local h=$1 do_=$2 undo=$3 try
  for try in 1 2 3 4 5; do
    wait_held "$h" || return 1
    eval "$do_"
    sleep 0.3
    held "$h" >"$tmp/held.$h"
    [ -s "$tmp/held.$h" ] && return 0
    eval "$undo"
  done
  return 1
}
# taken_over FILE HOST: every partition of FILE is done now by a later attempt of another host
taken_over() {
  local job idx att n=0 good=0
  while read -r job idx att; do
    n=$((n + 1))
    r=$(q "SELECT count(*) FROM attempts WHERE job_id = '$job' AND idx = $idx AND attempt > $att AND owner <> '$2' AND outcome = 'done'")
    [ "$r" = 1 ] && good=$((good + 1))
  done <"$1"
  [ $n -gt 0 ] && [ $good = $n ]
}
wait_taken_over() { # FILE HOST SECONDS
  local end=$(($(date +%s) + $3))
  while [ "$(date +%s)" -lt "$end" ]; do taken_over "$1" "$2" && return 0; sleep 0.2; done
  return 1
}
# attempts_of FILE HOST OUTCOME: every partition of FILE has HOST's attempt with that outcome
attempts_of() {
  local job idx att n=0 good=0
  while read -r job idx att; do
    n=$((n + 1))
    r=$(q "SELECT count(*) FROM attempts WHERE job_id = '$job' AND idx = $idx AND attempt = $att AND owner = '$2' AND outcome = '$3'")
    [ "$r" = 1 ] && good=$((good + 1))
  done <"$1"
  [ $n -gt 0 ] && [ $good = $n ]
}
stream_s=$(awk -v s="$scale" 'BEGIN{x = int(4 * s); print x < 1 ? 1 : x}')
sleep "$stream_s"

# ---- 1. kill -9 ----
say "1. kill -9 h1 while it holds partitions"
if freeze h1 'kill -9 "${DPID[h1]}"; wait "${DPID[h1]}" 2>/dev/null' 'start_host h1 "$STORE"'; then
  ok
  say "   h1 held $(wc -l <"$tmp/held.h1") running partition(s) when killed"
  if wait_taken_over "$tmp/held.h1" h1 $((LEASE * 6)); then ok; else bad "h1's partitions were not taken over and done by another host: $(cat "$tmp/held.h1" | tr '\n' ';')"; fi
  check attempts_of "$tmp/held.h1" h1 expired
  check start_host h1 "$STORE"
  say "   taken over (attempt + 1) by h2/h3; h1 restarted"
else
  bad "h1 never held a running partition"
fi

# ---- 1b. kill -9 between an upload's move into the spool and its commit ----
# A trigger holds the INSERT of chosen idempotency keys (the backend's
# application_name then names the job) until the server stops or the test
# ends the backend. h1, killed while it holds killed-1's, leaves a directory
# the store never gets; started again, h1 finds it its own (an earlier run's)
# on its first sweep and removes it 10 s later, the store not knowing the job
# (checked with the spool below). Another host's such directory would stay
# for an hour (its commit may be in progress).
q "CREATE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
     PERFORM set_config('application_name', NEW.id, false); PERFORM pg_sleep(30); RETURN NEW; END \$\$;
   CREATE TRIGGER test_hold BEFORE INSERT ON jobs FOR EACH ROW WHEN (NEW.idem_key IN ('killed-1', 'outage-3'))
     EXECUTE FUNCTION test_hold()" >/dev/null
# held_job: the job whose INSERT the trigger holds now (up to 10 s)
held_job() {
  local h= i
  for i in $(seq 200); do
    h=$(q "SELECT application_name FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND application_name LIKE 'j_%'")
    [ -n "$h" ] && break
    sleep 0.05
  done
  echo "$h"
}
say "1b. kill -9 h1 between an upload's move into the spool and its commit"
curl -s -o /dev/null -X POST "$(url h1)/v1/proofs" \
  -F "job={\"key\": \"$allow/poseidon/circuit.zkey\", \"idempotency_key\": \"killed-1\"};type=application/json" \
  -F "witness=@$allow/poseidon/witness.wtns" 2>/dev/null &
killed_pid=$!
killed=$(held_job)
{ kill -9 "${DPID[h1]}"; wait "${DPID[h1]}"; } 2>/dev/null
wait $killed_pid 2>/dev/null
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$killed'" >/dev/null
killed_dir=$tmp/spool/$killed
if [ -n "$killed" ] && [ -f "$killed_dir/.by-h1" ] && [ -f "$killed_dir/0.wtns" ] &&
  [ "$(q "SELECT count(*) FROM jobs WHERE id = '$killed' OR idem_key = 'killed-1'")" = 0 ]; then ok; else
  bad "the upload h1 was killed committing ('$killed') left no directory of h1's unknown to the store"
fi
check start_host h1 "$STORE"
say "   h1 killed with job $killed's witness in the spool, not in the store; h1 restarted"

# ---- 2. h2 cut off from the database past its lease ----
say "2. h2 cut off from the database (its relay stopped) past its lease"
if freeze h2 'kill -STOP "$relay_pid"' 'kill -CONT "$relay_pid"; sleep 0.5'; then
  say "   h2 held $(wc -l <"$tmp/held.h2") running partition(s) when cut off"
  if wait_taken_over "$tmp/held.h2" h2 $((LEASE * 8)); then ok; else bad "h2's partitions were not taken over while it was cut off"; fi
  # the late result the fence is to refuse: one of the held partitions proved by h2 while it
  # is cut off (h2 logs at debug level when a partition ends in its engine; its write then
  # waits for the store). Under load (the sanitizer stage, ctest -j on 2 cores) h2 may not
  # have finished one by the time the others have: once it had not, and its heartbeat found
  # the leases lost after the relay came back and cancelled them, so there was nothing to
  # refuse. Up to 120 s.
  late=0
  for i in $(seq 1200); do
    while read -r job idx att; do
      grep -q "job $job partition $idx attempt $att: proved in the engine" "$tmp/h2.log" && { late=1; break; }
    done <"$tmp/held.h2"
    [ $late = 1 ] && break
    sleep 0.1
  done
  if [ $late = 1 ]; then ok; else bad "h2 proved none of its held partitions while cut off (120 s)"; fi
  sleep 0.5
  kill -CONT "$relay_pid"
  found=0
  # up to 60 s: once (ctest -j beside test_daemon and test_circuits on 2 cores) the
  # database counted h2's fenced writes only after a 20 s window had passed
  for i in $(seq 600); do grep -q "refused by the fence" "$tmp/h2.log" && { found=1; break; }; sleep 0.1; done
  if [ $found = 1 ]; then ok; else
    bad "h2's log shows no late result refused by the fence"
    grep -E "fence|lease lost|does not answer|heartbeat" "$tmp/h2.log" | tail -8 | sed 's/^/    h2: /'
  fi
  check attempts_of "$tmp/held.h2" h2 expired
  fenced_db=$(q "SELECT coalesce(sum(fenced), 0) FROM attempts WHERE owner = 'h2' AND outcome = 'expired'")
  if [ "${fenced_db:-0}" -ge 1 ]; then ok; else bad "no fenced write of h2 in the database's attempts"; fi
  late_done=$(q "SELECT count(*) FROM attempts a WHERE owner = 'h2' AND fenced > 0 AND EXISTS (SELECT 1 FROM attempts b WHERE b.job_id = a.job_id AND b.idx = a.idx AND b.attempt > a.attempt AND b.owner <> 'h2' AND b.outcome = 'done')")
  if [ "${late_done:-0}" -ge 1 ]; then ok; else bad "the fenced attempts of h2 have no later attempt done by another host"; fi
  fm=$(curl -s "$(url h2)/metrics" | awk '/^cuzk_results_fenced_total /{print $2}')
  if [ "${fm:-0}" -ge 1 ]; then ok; else bad "cuzk_results_fenced_total of h2 is '${fm:-}'"; fi
  say "   the fence refused $fenced_db late write(s) of h2 (metrics: $fm)"
else
  bad "h2 never held a running partition"
fi

# ---- 3. SIGSTOP past the lease ----
say "3. SIGSTOP h3 past its lease, then SIGCONT"
if freeze h3 'kill -STOP "${DPID[h3]}"' 'kill -CONT "${DPID[h3]}"; sleep 0.5'; then
  say "   h3 held $(wc -l <"$tmp/held.h3") running partition(s) when stopped"
  if wait_taken_over "$tmp/held.h3" h3 $((LEASE * 8)); then ok; else bad "h3's partitions were not taken over while it was stopped"; fi
  kill -CONT "${DPID[h3]}"
  found=0
  for i in $(seq 100); do grep -Eq "lease lost|refused by the fence" "$tmp/h3.log" && { found=1; break; }; sleep 0.1; done
  if [ $found = 1 ]; then ok; else bad "h3 did not notice that it lost its leases"; fi
  check attempts_of "$tmp/held.h3" h3 expired
  say "   $(grep -c "lease lost" "$tmp/h3.log") lease(s) lost, $(grep -c "refused by the fence" "$tmp/h3.log") late write(s) refused in h3's log"
else
  bad "h3 never held a running partition"
fi

# ---- 4. the database goes away ----
say "4. the database stopped and started again during the stream"
sleep 1
exp_before=$(q "SELECT count(*) FROM attempts WHERE outcome = 'expired'")
# a submit with an upload caught by the outage between moving its witness into
# the spool and its commit: the trigger (1b) holds its INSERT (idempotency key
# outage-3) until the server stops. Committed or not is unknown to h1 then;
# the directory stays until h1, the store answering again, finds the job
# unknown (checked with the spool below)
curl -s -o "$tmp/sub3.json" -w '%{http_code}' -X POST "$(url h1)/v1/proofs" \
  -F "job={\"key\": \"$allow/poseidon/circuit.zkey\", \"idempotency_key\": \"outage-3\"};type=application/json" \
  -F "witness=@$allow/poseidon/witness.wtns" >"$tmp/sub3.code" &
held_pid=$!
held=$(held_job)
held_dir=$tmp/spool/$held
pg_stop fast
wait $held_pid
if [ "$(cat "$tmp/sub3.code")" = 503 ]; then ok; else bad "an upload whose commit the outage interrupted got HTTP $(cat "$tmp/sub3.code") (want 503): $(head -c 300 "$tmp/sub3.json")"; fi
if [ -n "$held" ] && [ -d "$held_dir" ]; then ok; else bad "the interrupted upload's spool directory ('$held') is not there after the refusal"; fi
sleep 1.5
deg=0
for h in "${HOSTS[@]}"; do
  body=$(curl -s -w ' %{http_code}' "$(url "$h")/healthz")
  [[ "$body" == degraded*" 503" ]] && deg=$((deg + 1))
  st=$(curl -s "$(url "$h")/v1/status" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).degraded)}catch(e){console.log("?")}})')
  [ "$st" = true ] && deg=$((deg + 1))
done
if [ $deg = 6 ]; then ok; else bad "not every host reports degraded during the outage ($deg of 6 answers)"; fi
code=$(curl -s -o "$tmp/sub.json" -w '%{http_code}' -X POST "$(url h3)/v1/proofs" -H 'Content-Type: application/json' \
  --data-binary "{\"key\": \"$allow/poseidon/circuit.zkey\", \"witnesses\": [\"$allow/poseidon/witness.wtns\"], \"idempotency_key\": \"outage-1\"}")
if [ "$code" = 503 ]; then ok; else bad "a submission during the outage got HTTP $code (want 503): $(head -c 300 "$tmp/sub.json")"; fi
# the same with an upload: refused too; its witness, moved into the spool
# before the store failed, goes once h1 finds the job unknown (checked with
# the spool below)
code=$(curl -s -o "$tmp/sub2.json" -w '%{http_code}' -X POST "$(url h1)/v1/proofs" \
  -F "job={\"key\": \"$allow/poseidon/circuit.zkey\", \"idempotency_key\": \"outage-2\"};type=application/json" \
  -F "witness=@$allow/poseidon/witness.wtns")
if [ "$code" = 503 ]; then ok; else bad "an upload during the outage got HTTP $code (want 503): $(head -c 300 "$tmp/sub2.json")"; fi
sleep 1.5
pg_restart || bad "the server did not start again: $PG_WHY"
up=0
for i in $(seq 300); do
  up=0
  for h in "${HOSTS[@]}"; do curl -sf -o /dev/null "$(url "$h")/healthz" && up=$((up + 1)); done
  [ $up = 3 ] && break
  sleep 0.1
done
if [ $up = 3 ]; then ok; else bad "only $up of 3 hosts healthy 30 s after the server came back"; fi
say "   degraded during the outage, healthy again $(awk -v i="$i" 'BEGIN{printf "%.1f", i / 10}') s after the restart"
sleep 2
exp_after=$(q "SELECT count(*) FROM attempts WHERE outcome = 'expired'")
if [ "$exp_before" = "$exp_after" ]; then ok; else bad "leases ran out across the outage ($exp_before -> $exp_after expired attempts): running work was not kept"; fi

# ---- the end of the stream ----
sleep "$stream_s"
touch "$stop_file"
say "stream stopped; waiting for the clients"
for p in "${bg_pids[@]}"; do wait "$p" 2>/dev/null; done
bg_pids=()
cat "$tmp"/client*.list >"$tmp/all.list"
njobs=$(wc -l <"$tmp/all.list")
nok=$(awk '$2 == 0' "$tmp/all.list" | wc -l)
if [ "$njobs" -ge 3 ] && [ "$nok" = "$njobs" ]; then ok; else bad "$nok of $njobs client jobs ended with a verified proof: $(awk '$2 != 0' "$tmp/all.list" | head -3 | tr '\n' ';') $(tail -2 "$tmp"/client*.err | tr '\n' ' ')"; fi
bad_v=0
while read -r k rc kn; do
  [ "$rc" = 0 ] || continue
  n=$(node -e 'const a=JSON.parse(require("fs").readFileSync(process.argv[1]));const b=JSON.parse(require("fs").readFileSync(process.argv[2]));a.forEach((x,i)=>{require("fs").writeFileSync(process.argv[1]+"."+i,JSON.stringify(x));require("fs").writeFileSync(process.argv[2]+"."+i,JSON.stringify(b[i]))});console.log(a.length)' "$tmp/out/$k.proof.json" "$tmp/out/$k.public.json" 2>/dev/null)
  [ "$n" = $NPARTS ] || { bad_v=$((bad_v + 1)); continue; }
  for ((i = 0; i < NPARTS; i++)); do
    "$cuzk" verify -q "$allow/$kn/verification_key.json" "$tmp/out/$k.public.json.$i" "$tmp/out/$k.proof.json.$i" || bad_v=$((bad_v + 1))
  done
done <"$tmp/all.list"
if [ $bad_v = 0 ]; then ok; else bad "$bad_v proofs do not verify (cuzk verify)"; fi
# the database: one job per key, every job done, every partition done once
jobs_db=$(q "SELECT count(*) FROM jobs WHERE idem_key LIKE 'cl-%'")
keys_db=$(q "SELECT count(DISTINCT idem_key) FROM jobs WHERE idem_key LIKE 'cl-%'")
if [ "$jobs_db" = "$njobs" ] && [ "$keys_db" = "$njobs" ]; then ok; else bad "the store holds $jobs_db jobs ($keys_db keys) for $njobs client jobs"; fi
notdone=$(q "SELECT count(*) FROM jobs WHERE state <> 2 AND idem_key <> 'outage-1'")
if [ "$notdone" = 0 ]; then ok; else bad "$notdone jobs are not done: $(q "SELECT id, state, error FROM jobs WHERE state <> 2 LIMIT 3")"; fi
parts_db=$(q "SELECT count(*) FROM parts WHERE state = 2 AND proof_json IS NOT NULL")
if [ "$parts_db" = $((njobs * NPARTS)) ]; then ok; else bad "$parts_db done partitions for $((njobs * NPARTS))"; fi
twice=$(q "SELECT count(*) FROM (SELECT job_id, idx FROM attempts GROUP BY 1, 2 HAVING count(*) FILTER (WHERE outcome = 'done') <> 1) x")
if [ "$twice" = 0 ]; then ok; else bad "$twice partitions have not exactly one done attempt (a result written twice or never)"; fi
stale=$(q "SELECT count(*) FROM parts p WHERE attempts <> (SELECT max(attempt) FROM attempts a WHERE a.job_id = p.job_id AND a.idx = p.idx)")
if [ "$stale" = 0 ]; then ok; else bad "$stale partitions whose attempt count disagrees with their attempts"; fi
failed=$(q "SELECT count(*) FROM attempts WHERE outcome = 'failed'")
if [ "$failed" = 0 ]; then ok; else bad "$failed attempts failed"; fi
multi=$(q "SELECT count(*) FROM parts WHERE attempts > 1")
by_host=$(q "SELECT string_agg(owner || ' ' || n, ', ') FROM (SELECT owner, count(*) n FROM attempts WHERE outcome = 'done' GROUP BY owner ORDER BY owner) x")
say "$njobs jobs x $NPARTS partitions done; $multi partitions needed more than one attempt; done by host: $by_host"
# every host proved some; status lists the three
for h in "${HOSTS[@]}"; do
  n=$(q "SELECT count(*) FROM attempts WHERE owner = '$h' AND outcome = 'done'")
  if [ "${n:-0}" -ge 1 ]; then ok; else bad "$h proved nothing"; fi
done
curl -s "$(url h2)/v1/status" >"$tmp/status.json"
nh=$(node -e 'const o=JSON.parse(require("fs").readFileSync(process.argv[1]));const h=o.hosts||[];console.log(h.filter(x=>["h1","h2","h3"].includes(x.id)&&x.alive&&typeof x.last_heartbeat==="number"&&typeof x.running==="number"&&x.devices.length>0).length)' "$tmp/status.json" 2>/dev/null)
if [ "$nh" = 3 ]; then ok; else bad "GET /v1/status does not list the three hosts alive: $(head -c 600 "$tmp/status.json")"; fi
# the spool after the jobs ended: a finished job's directory goes with the host
# that recorded its end, or, where that host was killed or lost its store in
# between, with the next sweep (below: h3's restart); one of a submit that the
# database's restart interrupted goes once that host finds the job unknown to
# the store (10 s after, the store answering); checked after h3's sweep
spool_jobs() { find "$tmp/spool" -mindepth 1 -maxdepth 1 -name 'j_*'; }
early=$(spool_jobs | wc -l)
say "   job directories in the spool when the clients ended: $early"
# the sweep: a finished job's directory left behind (its host killed between
# recording the end and removing it) goes on a host's first tick; one the
# store does not know, made just now (a submit between its upload and its
# commit), stays
kdone=$(q "SELECT id FROM jobs WHERE state = 2 AND idem_key LIKE 'cl-%' LIMIT 1")
mkdir -p "$tmp/spool/$kdone" "$tmp/spool/j_notyet"
echo x >"$tmp/spool/$kdone/p0.wtns"
echo x >"$tmp/spool/j_notyet/p0.wtns"
{ kill -9 "${DPID[h3]}"; wait "${DPID[h3]}"; } 2>/dev/null
check start_host h3 "$STORE"
for _ in $(seq 100); do [ -d "$tmp/spool/$kdone" ] || break; sleep 0.1; done
if [ -n "$kdone" ] && [ ! -d "$tmp/spool/$kdone" ]; then ok; else bad "the directory of finished job '$kdone' is still in the spool 10 s after h3 started"; fi
check test -f "$tmp/spool/j_notyet/p0.wtns"
rm -rf "$tmp/spool/j_notyet"
# an empty spool once the sweep has run: every job ended (a submit's directory
# not committed goes 10 s after the store is back: up to 30 s here)
for _ in $(seq 300); do [ "$(spool_jobs | wc -l)" = 0 ] && break; sleep 0.1; done
nc=$(cat "$tmp"/h?.log | grep -c 'not committed')
say "   submits found not committed and their spooled witnesses removed: $nc"
if [ -n "$held" ] && grep -q "job $held not committed" "$tmp/h1.log" && [ ! -d "$held_dir" ]; then ok; else bad "the interrupted upload's directory was not found not committed and removed ($nc; '$held')"; fi
if [ -n "$killed" ] && grep -q "job $killed not committed" "$tmp/h1.log" && [ ! -d "$killed_dir" ]; then ok; else bad "the directory h1 left when killed committing ('$killed') was not found its own and removed after its restart"; fi
left=$(spool_jobs | wc -l)
if [ "$left" = 0 ]; then ok; else bad "$left job directories left in the shared spool after h3's sweep ($early when the clients ended): $(spool_jobs | head -3 | tr '\n' ' ')"; fi
# a built-in circuit's job (circuit/native.h; its partitions spooled as circuit
# files in the shared spool): submitted to h3, awaited on h2, results from h1
say "a circuit job: submitted to h3, awaited on h2, its proofs read from h1"
echo '{"leaf": "1", "path": ["2", "3", "4"], "index": 5}' >"$tmp/pm_in.json"
"$cuzk" circuit poseidon-merkle --param depth=3 --input "$tmp/pm_in.json" -o "$allow/pm" -q 2>/dev/null &&
  "$cuzk" setup --insecure-dev --seed 9 -q "$allow/pm.r1cs" "$allow/pm.zkey" 2>/dev/null &&
  "$cuzk" export-vkey "$allow/pm.zkey" "$tmp/pm_vk.json" 2>/dev/null
check test -s "$tmp/pm_vk.json"
code=$(curl -s -o "$tmp/key.json" -w '%{http_code}' -X POST "$(url h1)/v1/keys" -H 'Content-Type: application/json' \
  --data-binary "{\"path\": \"$allow/pm.zkey\"}")
kpm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).id)' "$tmp/key.json" 2>/dev/null)
ins='{"leaf": "1", "path": ["2", "3", "4"], "index": 5}, {"leaf": "77", "path": ["5", "6", "7"], "index": 2}, {"leaf": "9", "path": ["8", "7", "6"], "index": 7}'
code=$(curl -s -o "$tmp/cj.json" -w '%{http_code}' -X POST "$(url h3)/v1/proofs" -H 'Content-Type: application/json' \
  --data-binary "{\"key\": \"$kpm\", \"circuit\": \"poseidon-merkle\", \"params\": {\"depth\": 3}, \"inputs\": [$ins]}")
if [ "$code" = 202 ]; then ok; else bad "a circuit job on h3: HTTP $code $(head -c 300 "$tmp/cj.json")"; fi
cj=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).id)' "$tmp/cj.json" 2>/dev/null)
cstate=$(curl -s "$(url h2)/v1/proofs/$cj?wait=60" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).state)}catch(e){console.log("?")}})')
if [ "$cstate" = done ]; then ok; else bad "the circuit job, awaited on h2, is '$cstate'"; fi
for i in 0 1 2; do
  curl -s -o "$tmp/cp$i.json" "$(url h1)/v1/proofs/$cj/proof.json?partition=$i"
  curl -s -o "$tmp/cpub$i.json" "$(url h1)/v1/proofs/$cj/public.json?partition=$i"
  check "$cuzk" verify -q "$tmp/pm_vk.json" "$tmp/cpub$i.json" "$tmp/cp$i.json"
done
cby=$(q "SELECT string_agg(DISTINCT owner, ' ') FROM attempts WHERE job_id = '$cj' AND outcome = 'done'")
say "   done (partitions proved by: $cby), every proof verified"
# SIGTERM: each exits 0 and gives back what it held
for h in "${HOSTS[@]}"; do
  kill -TERM "${DPID[$h]}"
  wait "${DPID[$h]}"
  rc=$?
  if [ $rc = 0 ]; then ok; else bad "$h exited $rc after SIGTERM"; fi
done
running=$(q "SELECT count(*) FROM parts WHERE state = 1")
if [ "$running" = 0 ]; then ok; else bad "$running partitions still running after every host stopped"; fi
say "done in $(($(date +%s) - t0)) s"
echo "test_cluster: $pass passed, $failn failed"
[ $failn = 0 ]
