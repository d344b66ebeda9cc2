#!/usr/bin/env bash
# Installs the Debian packages cuzk needs to build and test, if missing.
# Build: gcc, cmake, make. Tests: GMP (field oracle), Node.js + npm (snarkjs).
set -euo pipefail
pkgs=(build-essential cmake libgmp-dev nodejs npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# nodejs/npm may come from elsewhere (nvm, nodesource): accept working binaries
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  tmp=()
  for p in "${missing[@]}"; do [[ "$p" == nodejs || "$p" == npm ]] || tmp+=("$p"); done
  missing=("${tmp[@]}")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
