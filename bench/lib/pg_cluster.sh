# Sourced by the bench scripts: starts a throwaway PostgreSQL cluster (initdb in a temp dir, a
# free port, loopback only) and removes it at exit. After `pg_cluster_start [extra -c options]`:
# $pg_bin, $pg_port, $pg_work (a temp dir on disk for the caller's files), and `pg_psql DB SQL` /
# `pg_uri DB`.
#
# The cluster's data lives in memory (/dev/shm) where the machine has it: on a VM's virtual disk,
# writeback of the tables and WAL an apply creates made its times swing 2x from run to run, the
# same for every tool. The migration folders stay on disk, where users keep theirs.

as_server_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_cluster_stop() {
  as_server_user "$pg_bin/pg_ctl" -D "$pg_data/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$pg_work" "$pg_data"
}

pg_cluster_start() {
  pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  pg_work=$(mktemp -d /tmp/migronaut-bench-pg.XXXXXX)
  local memory=/tmp
  [ -d /dev/shm ] && [ -w /dev/shm ] && memory=/dev/shm
  pg_data=$(mktemp -d "$memory/migronaut-bench-pgdata.XXXXXX")
  chmod 755 "$pg_work" "$pg_data"
  [ "$(id -u)" = 0 ] && chown postgres "$pg_work" "$pg_data"
  pg_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  as_server_user "$pg_bin/initdb" -D "$pg_data/data" -U postgres -A trust >/dev/null
  local options="-p $pg_port -k $pg_work -c listen_addresses=127.0.0.1"
  for option in "$@"; do options+=" -c $option"; done
  as_server_user "$pg_bin/pg_ctl" -D "$pg_data/data" -l "$pg_work/server.log" -w \
    -o "$options" start >/dev/null
  trap pg_cluster_stop EXIT
}

pg_uri() { echo "postgres://postgres@127.0.0.1:$pg_port/$1"; }

pg_psql() {
  as_server_user "$pg_bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres \
    -d "$1" -c "$2"
}
