#!/usr/bin/env bash
# Installs the Debian packages cuzk needs to build and test, if missing.
# Build: gcc, cmake, make, pkg-config. The daemon cuzkd: libmicrohttpd (HTTP,
# TLS through GnuTLS), jansson (JSON), SQLite (job store), libinih (config),
# GnuTLS (SHA-256), libpq (the PostgreSQL store of several hosts); the client
# commands: libcurl. Tests: GMP (field oracle),
# Node.js + npm (snarkjs), curl and sqlite3 (the daemon's tests), strace
# (test_cli refuses getrandom() with it), python3 (tools/check_ptx_mul.py), the PostgreSQL
# server (the shared job store's tests start a throwaway one).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libgmp-dev nodejs npm
      libmicrohttpd-dev libjansson-dev libsqlite3-dev libinih-dev libgnutls28-dev libcurl4-openssl-dev
      libpq-dev curl sqlite3 strace python3 postgresql)
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
