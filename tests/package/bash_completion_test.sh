#!/usr/bin/env bash
# The bash completion offers the files of the migrations folder the command line names (--dir),
# else the config's migrationsDir, else migrations/. bash-completion's own helpers are stood in
# for by the least that sets the variables they set, so the script's logic is what runs.
# Usage: bash_completion_test.sh <completions/migronaut.bash>
set -euo pipefail
script=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p migrations db/migrations custom
touch migrations/0001-default.sql db/migrations/0001-from-config.sql custom/0001-from-flag.sql

_init_completion() {
  words=("${COMP_WORDS[@]}")
  cword=$COMP_CWORD
  cur=${words[cword]}
  prev=${words[cword - 1]:-}
}
_filedir() { :; }
complete() { :; }
# shellcheck source=/dev/null
source "$script"

# Completes the line (its last word is the one being completed) and checks the offers.
expect() {
  local expected=$1
  shift
  COMP_WORDS=(migronaut "$@")
  COMP_CWORD=$#
  COMPREPLY=()
  _migronaut || true
  local offered="${COMPREPLY[*]}"
  if [[ $offered != "$expected" ]]; then
    echo "FAIL: migronaut $* -> '$offered', expected '$expected'" >&2
    exit 1
  fi
  echo "ok: migronaut $* -> '$offered'"
}

expect "0001-default.sql" up --to 0
expect "0001-default.sql" up 0
expect "0001-from-flag.sql" --dir custom up --to 0
expect "0001-from-flag.sql" up --dir=custom 0
expect "0001-from-flag.sql" --dir custom down 0
echo '{ "uri": "sqlite:app.db", "migrationsDir": "db/migrations" }' >migronaut.config.json
expect "0001-from-config.sql" redo 0
expect "0001-from-flag.sql" --dir custom lint 0
expect "--steps" down --ste
expect "--all" down --al
