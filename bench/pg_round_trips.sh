#!/usr/bin/env bash
# Counts the statements (= round trips) a PostgreSQL server sees for `migronaut up`: k pending
# migrations (k = 1, 10, 100, 1000) on a fresh database, then a boot check with nothing pending.
# A throwaway cluster (initdb in a temp dir, free port, log_statement=all) is removed at exit.
# Usage: bench/pg_round_trips.sh [path/to/migronaut]   (default: build/src/cli/migronaut)
set -euo pipefail

bin=$(realpath "${1:-build/src/cli/migronaut}")
source "$(dirname "$0")/lib/pg_cluster.sh"
pg_cluster_start log_statement=all "log_line_prefix='%p '"
work=$pg_work
port=$pg_port

log_lines() { wc -l <"$work/server.log"; }

# Statements logged since line $1, as "total main lock". The lock connection is the backend
# that claimed the lease (its INSERT into the lock table); everything else is the main one.
count_since() {
  tail -n +"$(($1 + 1))" "$work/server.log" | awk '
    / LOG:  (statement|execute [^:]*): / {
      total++; per_pid[$1]++
      if ($0 ~ /INSERT INTO "_migronaut_locks"/) lock_pid = $1
    }
    END {
      lock = (lock_pid != "") ? per_pid[lock_pid] : 0
      printf "%d %d %d\n", total, total - lock, lock
    }'
}

printf '%-22s %7s %6s %6s %8s %9s\n' "run" "total" "main" "lock" "k+6" "per mig."
for k in 1 10 100 1000; do
  db="k$k"
  pg_psql postgres "CREATE DATABASE $db"
  dir="$work/migrations-$k"
  mkdir -p "$dir"
  for i in $(seq 1 "$k"); do
    printf -- '-- migrate:up\nCREATE TABLE t%d (id int);\n-- migrate:down\nDROP TABLE t%d;\n' \
      "$i" "$i" >"$dir/$(printf '%014d' $((20260101000000 + i)))-t$i.sql"
  done
  uri=$(pg_uri "$db")

  start=$(log_lines)
  "$bin" --no-env --uri "$uri" --dir "$dir" up >/dev/null 2>&1
  read -r total main lock < <(count_since "$start")
  printf '%-22s %7d %6d %6d %8d %9s\n' "up, k=$k pending" "$total" "$main" "$lock" $((k + 6)) \
    "$(awk -v t="$total" -v k="$k" 'BEGIN { printf "%.3f", t / k }')"

  start=$(log_lines)
  "$bin" --no-env --uri "$uri" --dir "$dir" up >/dev/null 2>&1
  read -r total main lock < <(count_since "$start")
  printf '%-22s %7d %6d %6d %8s %9s\n' "up, nothing pending" "$total" "$main" "$lock" "1" ""
done
