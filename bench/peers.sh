#!/usr/bin/env bash
# migronaut beside its peers, in one run, on one throwaway PostgreSQL cluster and on SQLite:
# dbmate (its Go binary from npm), sql-migrate (Debian), node-pg-migrate (npm) and the C client
# floors (`psql -c 'SELECT 1'`, `sqlite3 db 'SELECT 1'` and a sqlite3 read of one table, which
# parses the schema as every real query does). Prints markdown tables of medians, peak RSS and
# ratios (bench/lib/measure.py), then the scale slope beside the floor of reading the files
# (bench/lib/read_files.c one by one, read_files_uring.c in batches through io_uring), and a
# 100-process storm beside the floor of 100 psql clients freed by one COMMIT (each crowd queued
# behind one gate before it opens). Its header gives what a page fault costs on the machine
# (bench/lib/page_fault.c), which moves every absolute number.
# Installs its npm peers into bench/.peers (git-ignored). Never run by ctest.
#
# Usage: bench/peers.sh [path/to/migronaut]     (default: build/src/cli/migronaut)
# Environment: RUNS (default 15), APPLY_RUNS (5), APPLY_N (1000), SCALE ("1000 10000 100000"),
#              STORM (100), SKIP ("" or a list of: boot apply scale storm)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-build/src/cli/migronaut}")
runs=${RUNS:-15}
apply_runs=${APPLY_RUNS:-5}
apply_n=${APPLY_N:-1000}
scale=${SCALE:-1000 10000 100000}
storm=${STORM:-100}
skip=${SKIP:-}
measure=("python3" "$here/lib/measure.py")

peers=$here/.peers
if [ ! -x "$peers/node_modules/@dbmate/linux-x64/bin/dbmate" ] ||
  [ ! -f "$peers/node_modules/node-pg-migrate/bin/node-pg-migrate.js" ]; then
  npm install --silent --no-audit --no-fund --prefix "$peers" dbmate node-pg-migrate pg >&2
fi
command -v sql-migrate >/dev/null || { echo "sql-migrate missing: apt-get install sql-migrate" >&2; exit 1; }
dbmate=$peers/node_modules/@dbmate/linux-x64/bin/dbmate
npgm="node $peers/node_modules/node-pg-migrate/bin/node-pg-migrate.js"

source "$here/lib/pg_cluster.sh"
pg_cluster_start max_connections=400 track_commit_timestamp=on fsync=off
work=$pg_work/bench
mkdir -p "$work"

# A folder of $2 tables in tool $1's file format.
make_folder() {
  python3 - "$1" "$2" "$work/$1-$2" <<'PY'
import os, sys
tool, count, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(folder, exist_ok=True)
markers = {"migronaut": ("-- migrate:up", "-- migrate:down", "-"),
           "dbmate": ("-- migrate:up", "-- migrate:down", "_"),
           "sqlm": ("-- +migrate Up", "-- +migrate Down", "_"),
           "npgm": ("-- Up Migration", "-- Down Migration", "_")}
up, down, sep = markers[tool]
for i in range(1, count + 1):
    with open(f"{folder}/{20260101000000 + i:014d}{sep}t{i}.sql", "w") as f:
        f.write(f"{up}\nCREATE TABLE t{i} (id int);\n{down}\nDROP TABLE t{i};\n")
PY
  echo "$work/$1-$2"
}

# The command each tool runs to apply the folder $2 to the PostgreSQL database $1.
pg_command() {
  local db=$1 dir=$2 tool=$3 uri
  uri=$(pg_uri "$db")
  case $tool in
    migronaut) echo "$bin --no-env --uri $uri --dir $dir up $no_wait" ;;
    migronaut-wait) echo "$bin --no-env --uri $uri --dir $dir up --wait" ;;
    dbmate) echo "$dbmate --url $uri?sslmode=disable --migrations-dir $dir --no-dump-schema up" ;;
    sqlm)
      printf 'bench:\n  dialect: postgres\n  datasource: %s\n  dir: %s\n' \
        "host=127.0.0.1 port=$pg_port user=postgres dbname=$db sslmode=disable" "$dir" \
        >"$work/sqlm-$db.yml"
      echo "sql-migrate up -config=$work/sqlm-$db.yml -env=bench" ;;
    npgm) echo "env DATABASE_URL=$uri $npgm up -m $dir --no-verbose" ;;
  esac
}

# `up` means "wait for the lock" once waiting is the default; the fail-fast form is measured.
no_wait=""
"$bin" up --help 2>&1 | grep -q -- '--no-wait' && no_wait="--no-wait"

pg_tools=(migronaut migronaut-wait dbmate sqlm npgm)
declare -A label=([migronaut]="migronaut up" [migronaut-wait]="migronaut up --wait"
  [dbmate]="dbmate up" [sqlm]="sql-migrate up" [npgm]="node-pg-migrate up")
folder_of() { case $1 in migronaut*) echo migronaut ;; *) echo "$1" ;; esac; }

echo "# migronaut and its peers — $(date -u +%Y-%m-%d), $(nproc) cores, $("$pg_bin/postgres" --version)"
cc -O2 -o "$work/page_fault" "$here/lib/page_fault.c"
echo "# a page fault costs $("$work/page_fault") µs here (bench/lib/page_fault.c)"
echo "# dbmate $("$dbmate" --version | awk '{print $NF}'), node-pg-migrate $(node -p "require('$peers/node_modules/node-pg-migrate/package.json').version"), sql-migrate (Debian $(dpkg-query -W -f='${Version}' sql-migrate))"

if [[ " $skip " != *" boot "* ]]; then
  pairs=("psql -c 'SELECT 1'" "$pg_bin/psql -X -q -h 127.0.0.1 -p $pg_port -U postgres -d postgres -c 'SELECT 1'")
  for tool in "${pg_tools[@]}"; do
    db="boot_${tool//-/_}"
    pg_psql postgres "CREATE DATABASE $db"
    cmd=$(pg_command "$db" "$(make_folder "$(folder_of "$tool")" 100)" "$tool")
    $cmd >/dev/null 2>&1
    pairs+=("${label[$tool]}" "$cmd")
  done
  "${measure[@]}" --runs "$runs" --title "PostgreSQL boot check: 100 applied, nothing pending" \
    -- "${pairs[@]}"

  sqlite_dir=$(make_folder migronaut 100)
  dbmate_dir=$(make_folder dbmate 100)
  "$bin" --no-env --uri "sqlite:$work/boot.db" --dir "$sqlite_dir" up >/dev/null 2>&1
  "$dbmate" --url "sqlite:$work/boot-dbmate.db" --migrations-dir "$dbmate_dir" --no-dump-schema up >/dev/null
  "${measure[@]}" --runs "$runs" --title "SQLite boot check: 100 applied, nothing pending" -- \
    "sqlite3 db 'SELECT 1'" "sqlite3 $work/boot.db 'SELECT 1'" \
    "sqlite3 db, count the changelog" "sqlite3 $work/boot.db 'SELECT count(*) FROM _migronaut_migrations'" \
    "migronaut up" "$bin --no-env --uri sqlite:$work/boot.db --dir $sqlite_dir up $no_wait" \
    "migronaut up --wait" "$bin --no-env --uri sqlite:$work/boot.db --dir $sqlite_dir up --wait" \
    "dbmate up" "$dbmate --url sqlite:$work/boot-dbmate.db --migrations-dir $dbmate_dir --no-dump-schema up"
fi

if [[ " $skip " != *" apply "* ]]; then
  pairs=()
  for tool in "${pg_tools[@]}"; do
    pairs+=("${label[$tool]}" "$(pg_command "apply_${tool//-/_}" "$(make_folder "$(folder_of "$tool")" "$apply_n")" "$tool")")
  done
  # Each timed run starts from an empty database; the label names it.
  prepare='db=apply_$(case $LABEL in "migronaut up") echo migronaut;; "migronaut up --wait") echo migronaut_wait;; "dbmate up") echo dbmate;; "sql-migrate up") echo sqlm;; *) echo npgm;; esac)'
  prepare+="; PGOPTIONS='-c client_min_messages=warning' $pg_bin/psql -X -q -h 127.0.0.1 -p $pg_port -U postgres -d postgres -c \"DROP DATABASE IF EXISTS \$db\" -c \"CREATE DATABASE \$db\""
  "${measure[@]}" --runs "$apply_runs" --warmup 1 --prepare "$prepare" \
    --title "PostgreSQL: apply $apply_n small migrations to an empty database" -- "${pairs[@]}"

  sqlite_dir=$(make_folder migronaut "$apply_n")
  dbmate_dir=$(make_folder dbmate "$apply_n")
  "${measure[@]}" --runs "$apply_runs" --warmup 1 --prepare "rm -f $work/apply*.db" \
    --title "SQLite: apply $apply_n small migrations to an empty database" -- \
    "migronaut up" "$bin --no-env --uri sqlite:$work/apply.db --dir $sqlite_dir up $no_wait" \
    "dbmate up" "$dbmate --url sqlite:$work/apply-dbmate.db --migrations-dir $dbmate_dir --no-dump-schema up"
fi

if [[ " $skip " != *" scale "* ]]; then
  cc -O2 -o "$work/read_files" "$here/lib/read_files.c"
  cc -O2 -o "$work/read_files_uring" "$here/lib/read_files_uring.c" -luring
  for n in $scale; do
    dir=$(make_folder migronaut "$n")
    db="scale_$n"
    pg_psql postgres "CREATE DATABASE $db"
    "$bin" --no-env --uri "$(pg_uri "$db")" --dir "$dir" baseline --yes >/dev/null 2>&1
    "$bin" --no-env --uri "sqlite:$work/$db.db" --dir "$dir" baseline --yes >/dev/null 2>&1
    "${measure[@]}" --runs 5 --warmup 1 --title "Scale: $n applied, nothing pending" -- \
      "floor: read every file (C)" "$work/read_files $dir" \
      "floor: read every file (C, io_uring)" "$work/read_files_uring $dir" \
      "PostgreSQL up" "$bin --no-env --uri $(pg_uri "$db") --dir $dir up $no_wait" \
      "PostgreSQL status" "$bin --no-env --uri $(pg_uri "$db") --dir $dir status" \
      "SQLite up" "$bin --no-env --uri sqlite:$work/$db.db --dir $dir up $no_wait" \
      "SQLite status" "$bin --no-env --uri sqlite:$work/$db.db --dir $dir status"
  done
fi

if [[ " $skip " != *" storm "* ]]; then
  dir=$work/storm
  mkdir -p "$dir"
  # The migration first queues on the bench's gate (advisory lock 7), so its 2 s start only once
  # every other process is waiting: spawning 100 processes can itself take seconds. No lock
  # timeout: the default 5 s would fail a long wait at the gate.
  printf -- '%s\n' '-- migrate:up lock_timeout:off' 'SELECT pg_advisory_xact_lock_shared(7);' \
    'SELECT pg_sleep(2);' 'CREATE TABLE storm (id int);' >"$dir/20260101000001-storm.sql"
  pg_psql postgres "CREATE DATABASE storm"
  python3 - "$bin" "$(pg_uri storm)" "$dir" "$storm" "$pg_bin/psql" "$pg_port" <<'PY'
import os, signal, subprocess, sys, time
binary, uri, folder, count, psql, port = sys.argv[1:7]
count = int(count)
psql_on = [psql, "-X", "-q", "-At", "-F", " ", "-h", "127.0.0.1", "-p", port, "-U", "postgres",
           "-d", "storm", "-c"]

def query(sql):
    done = subprocess.run(psql_on + [sql], capture_output=True, text=True, check=True)
    return done.stdout.split()

def exits(procs, timeout=120):
    """Exit codes and times, taken as each process ends: a blocking wait returns as soon as any
    child ends (polling with a sleep overslept by milliseconds on two busy cores), and an alarm
    bounds the whole."""
    pending, codes, ends = {proc.pid for proc in procs}, [], []
    def overdue(signum, frame):
        sys.exit(f"storm: {len(pending)} processes still running after {timeout} s")
    previous = signal.signal(signal.SIGALRM, overdue)
    signal.alarm(timeout)
    try:
        while pending:
            pid, status = os.waitpid(-1, 0)
            if pid in pending:
                pending.discard(pid)
                codes.append(os.waitstatus_to_exitcode(status))
                ends.append(time.time())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return codes, sorted(ends)

def commit_of(table):
    epoch = "extract(epoch FROM pg_xact_commit_timestamp(xmin))"
    return float(query(f"SELECT {epoch} FROM {table}")[0])

def advisory_locks(granted):
    return int(query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
                     + ("" if granted else "NOT ") + "granted")[0])

def until(condition, procs=()):
    """Polls `condition`; a process of `procs` that ends first, or 60 s, ends the bench."""
    deadline = time.time() + 60
    while not condition():
        ended = [proc for proc in procs if proc.poll() is not None]
        if ended:
            sys.exit(f"storm: a process ended (exit {ended[0].returncode}) before all queued")
        if time.time() > deadline:
            sys.exit("storm: the clients never all queued")
        time.sleep(0.01)

def gate():
    """A psql session holding advisory lock 7 until its stdin says COMMIT."""
    session = subprocess.Popen(psql_on[:-1], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               text=True)
    session.stdin.write("BEGIN; SELECT pg_advisory_xact_lock(7);\n")
    session.stdin.flush()
    until(lambda: advisory_locks(granted=True) == 1)
    return session

def open_gate(session, sql=""):
    session.stdin.write(sql + "COMMIT;\n")
    session.stdin.close()
    session.wait(timeout=60)

# Exit times are taken when a process is reaped, so every process must be queued before the
# holder can commit: the holder blocks on the gate until each of the others says it waits.
logs = os.path.join(folder, "logs")
os.makedirs(logs, exist_ok=True)
storm_gate = gate()
procs = []
for i in range(count):
    with open(os.path.join(logs, f"{i}.log"), "w") as log:
        procs.append(subprocess.Popen([binary, "--no-env", "--uri", uri, "--dir", folder, "up",
                                       "--wait"], stdout=subprocess.DEVNULL, stderr=log))
def waiting(name):
    with open(os.path.join(logs, name)) as log:
        return "waiting for it to release" in log.read()
until(lambda: advisory_locks(granted=False) == 1 and
      sum(waiting(name) for name in os.listdir(logs)) == count - 1, procs)
open_gate(storm_gate)
codes, ends = exits(procs)
commit = commit_of("_migronaut_migrations")
records, locks = (int(n) for n in query("SELECT (SELECT count(*) FROM _migronaut_migrations), "
                                        "(SELECT count(*) FROM _migronaut_locks)"))
last = 1000 * (ends[-1] - commit)

# The floor: as many C clients (psql, one connection each) blocked on one transaction, all freed
# by its COMMIT once every one of them is queued, and exiting at once — what the server and the
# machine allow a crowd to take.
query("CREATE TABLE floor_gate (id int)")
floor_gate = gate()
crowd = [subprocess.Popen(psql_on + ["SELECT pg_advisory_xact_lock_shared(7)"],
                          stdout=subprocess.DEVNULL) for _ in range(count)]
until(lambda: advisory_locks(granted=False) == count)
open_gate(floor_gate, "INSERT INTO floor_gate VALUES (1); ")
floor_codes, floor_ends = exits(crowd)
floor_last = 1000 * (floor_ends[-1] - commit_of("floor_gate"))

print(f"\n### Storm: {count} processes `up --wait`, one pending 2 s migration\n")
print(f"- exit codes: {sorted(set(codes))} (all {count} exit 0: {all(c == 0 for c in codes)})")
print(f"- changelog records: {records} (applied once: {records == 1}); lock rows left: {locks}")
first, half = (1000 * (ends[i] - commit) for i in (0, len(ends) // 2))
print(f"- after the holder's commit: the first exited at {first:.0f} ms, half at {half:.0f} ms, "
      f"the last at {last:.0f} ms (server commit timestamp)")
print(f"- floor, {count} psql clients freed by one COMMIT: the last exits at {floor_last:.0f} ms "
      f"(exit codes {sorted(set(floor_codes))}); migronaut {last / floor_last:.2f}x the floor")
PY
fi
