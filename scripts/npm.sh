#!/usr/bin/env bash
# Installs the pinned snarkjs / circom toolchain of tests/js (package-lock.json)
# if it is missing or older than the lockfile.
set -euo pipefail
cd "$(dirname "$0")/../tests/js"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "npm: installing the pinned snarkjs into tests/js/node_modules"
  npm ci --no-audit --no-fund --loglevel=error
fi
