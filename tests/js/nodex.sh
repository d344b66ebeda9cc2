# nodex.sh (sourced by the test scripts): their short node helpers through one
# long-lived node process (tests/js/nodex.js), which saves node's start-up
# (~0.15 s of CPU each) on the hundreds of helpers a test runs.
#   nodex_start DIR   starts it, its FIFOs and lock in DIR (a test's temporary
#                     directory); from then on `node -e SCRIPT ARG...` and
#                     `node FILE.js ARG...` in this shell and its subshells go
#                     through it, as a function named node
#   nodex_stop        stops it (it also stops by itself once the shell is gone)
# Calls that it cannot run as node would go to the real node: other forms
# (node FILE.cjs, node with options), and scripts that read stdin or do
# asynchronous work (a listen, a timer, a promise). Requests are serialized by
# flock(1), so background subshells may use it too. CZ_NODEX=0 turns it off.
# A background `node ... &` runs this function in a subshell, so $! is that
# subshell's pid, not node's: start a node server to be killed later with
# `command node ... &`.
_nx_js="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/nodex.js"
_nx_dir=
_nx_pid=
nodex_start() {
  [ "${CZ_NODEX:-1}" = 0 ] && return 0
  command -v flock >/dev/null 2>&1 || return 0
  _nx_dir=$1
  mkfifo "$_nx_dir/nx.in" "$_nx_dir/nx.out" || { _nx_dir=; return 0; }
  # not a job of this shell (a bare `wait` must not wait for it); it exits
  # when this shell is gone
  (command node "$_nx_js" $$ <>"$_nx_dir/nx.in" 1<>"$_nx_dir/nx.out" 2>>"$_nx_dir/nx.log" &
    echo $! >"$_nx_dir/nx.pid")
  _nx_pid=$(cat "$_nx_dir/nx.pid")
}
nodex_stop() {
  [ -n "$_nx_pid" ] && kill "$_nx_pid" 2>/dev/null
  _nx_pid=
  _nx_dir=
}
# _nx_ok SCRIPT: 0 if SCRIPT is one nodex.js runs as node would
_nx_ok() {
  case $1 in
  *process.stdin* | *readFileSync\(0* | */dev/stdin* | *createServer* | *setTimeout* | *setInterval* | *setImmediate* | *.then\(* | *await\ * | *async\ * | *Promise* | *process.on\(* | *snarkjs*) return 1 ;;
  esac
  return 0
}
node() {
  local kind script
  if [ -z "$_nx_dir" ] || ! kill -0 "$_nx_pid" 2>/dev/null; then
    command node "$@"
    return
  fi
  if [ "${1:-}" = -e ] && [ $# -ge 2 ]; then
    kind=e script=$2
    _nx_ok "$script" || { command node "$@"; return; }
    shift 2
  elif [[ ${1:-} == *.js ]] && [ -f "$1" ] && _nx_ok "$(cat "$1")"; then
    kind=f script=$1
    shift
  else
    command node "$@"
    return
  fi
  local hdr ol el rc
  {
    flock 9
    printf '%s\0' "$PWD" "$kind" "$script" "$#" "$@" >"$_nx_dir/nx.in"
    {
      if IFS=' ' read -r -t 120 ol el rc; then
        head -c "$ol"
        head -c "$el" >&2
      else
        echo "nodex: no answer from $_nx_js (see $_nx_dir/nx.log)" >&2
        rc=99
      fi
    } <"$_nx_dir/nx.out"
  } 9>"$_nx_dir/nx.lock"
  return "${rc:-99}"
}
