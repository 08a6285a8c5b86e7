# bash completion for migronaut. Installed to /usr/share/bash-completion/completions/migronaut.

# The migrations folder: --dir on the line, else the config's migrationsDir, else migrations.
_migronaut_dir() {
  local i dir=""
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in
      --dir) dir=${words[i + 1]} ;;
      --dir=*) dir=${words[i]#--dir=} ;;
    esac
  done
  if [[ -z $dir && -f migronaut.config.json ]]; then
    dir=$(sed -n 's/.*"migrationsDir"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' migronaut.config.json)
  fi
  echo "${dir:-migrations}"
}

# Completes the names of the files in the migrations folder.
_migronaut_files() {
  local dir
  dir=$(_migronaut_dir)
  [[ -d $dir ]] && COMPREPLY=($(compgen -W "$(ls "$dir")" -- "$cur"))
}

_migronaut() {
  local cur prev words cword
  _init_completion || return

  local commands="init create up down redo status list dry-run baseline lock unlock wait audit repair import lint help"
  local globals="--uri --db --dir --config --env-file --no-env --verbose --quiet --no-color --json --help --version"
  local command="" word
  for word in "${words[@]:1:cword-1}"; do
    case " $commands " in *" $word "*) command=$word; break ;; esac
  done

  case $prev in
    --config | --env-file | --template | --output) _filedir; return ;;
    --dir) _filedir -d; return ;;
    --uri | --db | --reason | --steps | --batch | --wait-timeout | --timeout) return ;;
    --from) COMPREPLY=($(compgen -W "dbmate golang-migrate flyway knex node-pg-migrate sql-migrate migrate-mongo" -- "$cur")); return ;;
    --to) _migronaut_files; return ;;
  esac

  local flags=""
  case $command in
    init) flags="--force" ;;
    create) flags="--template" ;;
    up) flags="--to --steps --wait --no-wait --wait-timeout --no-lock --reason --lint" ;;
    down) flags="--steps --batch --to --all --no-lock --reason" ;;
    redo) flags="" ;;
    status) flags="--check" ;;
    list) flags="--pending --applied" ;;
    dry-run) flags="--to --steps --batch --all --sql --output" ;;
    baseline) flags="--to --yes" ;;
    lock) flags="" ;;
    unlock) flags="--yes --force" ;;
    wait) flags="--timeout" ;;
    audit) flags="" ;;
    repair) flags="--reason --yes" ;;
    import) flags="--from --table --dry-run --force --trust-hash" ;;
    lint) flags="--pending" ;;
    help) COMPREPLY=($(compgen -W "$commands exit-codes" -- "$cur")); return ;;
    "") if [[ $cur != -* ]]; then COMPREPLY=($(compgen -W "$commands" -- "$cur")); return; fi ;;
  esac
  if [[ $command == dry-run && $cur != -* ]]; then
    COMPREPLY=($(compgen -W "up down" -- "$cur"))
    return
  fi
  case $command in
    up | down | redo | repair | lint) if [[ $cur != -* ]]; then _migronaut_files; return; fi ;;
  esac
  COMPREPLY=($(compgen -W "$flags $globals" -- "$cur"))
}
complete -F _migronaut migronaut
