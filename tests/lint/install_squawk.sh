#!/usr/bin/env bash
# Installs squawk (the reference linter lint is compared with) from npm into $1, unless that
# version is already there. Never fails the build: when npm cannot run (offline), it leaves the
# reason in $1/install.log and the comparison test reports itself skipped with it.
set -uo pipefail
prefix="$1"
version="$2"
binary="$prefix/node_modules/@squawk-cli/linux-x64/bin/squawk"
mkdir -p "$prefix"
if [ -x "$binary" ] && "$binary" --version 2>/dev/null | grep -q "$version"; then exit 0; fi
rm -f "$prefix/install.log"
if ! command -v npm >/dev/null; then
  echo "npm is not installed" >"$prefix/install.log"
  exit 0
fi
if ! timeout 300 npm install --prefix "$prefix" --no-audit --no-fund --no-save \
    "@squawk-cli/linux-x64@$version" >"$prefix/install.log" 2>&1; then
  echo "npm install @squawk-cli/linux-x64@$version failed (offline?)" >>"$prefix/install.log"
fi
exit 0
