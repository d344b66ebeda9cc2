#!/usr/bin/env bash
# verify.sh VKEY.json PUBLIC.json PROOF.json
#
# Runs the pinned `snarkjs groth16 verify` (tests/js/node_modules, see
# package.json) and exits 0 only if snarkjs accepted the proof.
#
#   exit 0  proof valid
#   exit 1  proof invalid (or snarkjs failed on it: bad JSON, point not on the curve, ...)
#   exit 2  usage error, missing file, or snarkjs not installed (run `npm ci` in tests/js)
#
# Why not just the exit status: snarkjs 0.7.6 exits 0 on "OK!" and 1 on
# "Invalid proof", a rejected public input or an exception, but its command
# parser exits 0 without verifying when it sees -h/--help anywhere on the line,
# and 99 on a wrong argument count. So this script checks the arguments itself
# and requires both exit status 0 and the "OK!" line; any other outcome counts
# as a failure. Set VERIFY_QUIET=1 to suppress snarkjs's output on success.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
snarkjs="$here/node_modules/snarkjs/build/cli.cjs"

if [ "$#" -ne 3 ]; then
    echo "usage: $0 VKEY.json PUBLIC.json PROOF.json" >&2
    exit 2
fi
for f in "$@"; do
    if [ ! -f "$f" ] || [ ! -r "$f" ]; then
        echo "verify.sh: cannot read '$f'" >&2
        exit 2
    fi
done
if [ ! -f "$snarkjs" ]; then
    echo "verify.sh: $snarkjs not found; run 'npm ci' in $here" >&2
    exit 2
fi
if ! command -v node >/dev/null 2>&1; then
    echo "verify.sh: node not found" >&2
    exit 2
fi

# Pass the paths with a "./" prefix when relative, so a file named like an
# option (e.g. "-h") cannot be taken for one by snarkjs's argument parser.
args=()
for f in "$@"; do
    case "$f" in
        /*) args+=("$f") ;;
        *) args+=("./$f") ;;
    esac
done

set +e
out="$(node "$snarkjs" groth16 verify "${args[@]}" 2>&1)"
rc=$?
set -e

# Strip ANSI colour codes before matching.
plain="$(printf '%s\n' "$out" | sed 's/\x1b\[[0-9;]*m//g')"
if [ "$rc" -eq 0 ] && printf '%s\n' "$plain" | grep -q 'snarkJS: OK!' \
        && ! printf '%s\n' "$plain" | grep -qiE 'invalid|error'; then
    [ "${VERIFY_QUIET:-0}" = 1 ] || printf '%s\n' "$plain"
    exit 0
fi
printf '%s\n' "$plain" >&2
echo "verify.sh: proof REJECTED (snarkjs exit status $rc): $*" >&2
exit 1
