#!/usr/bin/env bash
# Times `migronaut status` and `migronaut up` with nothing pending on SQLite: the cost of a
# boot check (process start, config, one changelog read). Reports the mean in ms.
# Usage: bench/cli_startup.sh [path/to/migronaut] [runs]   (defaults: build/src/cli/migronaut, 50)
set -euo pipefail

bin=$(realpath "${1:-build/src/cli/migronaut}")
runs=${2:-50}
work=$(mktemp -d /tmp/migronaut-startup.XXXXXX)
trap 'rm -rf "$work"' EXIT

for i in $(seq 1 10); do
  printf -- '-- migrate:up\nCREATE TABLE t%d (id INTEGER);\n' "$i" \
    >"$work/$(printf '%014d' $((20260101000000 + i)))-t$i.sql"
done
args=(--no-env --uri "sqlite:$work/app.db" --dir "$work")
"$bin" "${args[@]}" up >/dev/null 2>&1  # everything applied: what follows is a boot check

for command in status up; do
  if command -v hyperfine >/dev/null; then
    hyperfine --warmup 3 --runs "$runs" "$bin ${args[*]} $command"
    continue
  fi
  total_ns=0
  for _ in $(seq 1 "$runs"); do
    start=$(date +%s%N)
    "$bin" "${args[@]}" "$command" >/dev/null 2>&1
    total_ns=$((total_ns + $(date +%s%N) - start))
  done
  awk -v ns="$total_ns" -v n="$runs" -v c="$command" \
    'BEGIN { printf "migronaut %-6s mean %.2f ms over %d runs\n", c, ns / n / 1e6, n }'
done
