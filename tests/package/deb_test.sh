#!/usr/bin/env bash
# The CLI's .deb from this build tree, as a user gets it: built by CPack, installed with
# dpkg -i, `migronaut --version` run from /usr/bin, the binary under 5 MB and loading no
# database client, logger or C++ runtime itself, its runtime dependencies declared, the man page
# and completions in place, then removed again; and the -dev package's dependencies.
# Needs root (dpkg); anyone else skips (exit 77).
# Usage: deb_test.sh <build dir> <expected version>
set -euo pipefail
build_dir=$1
expected_version=$2

if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: installing a .deb needs root"
  exit 77
fi
# Never replace a migronaut this machine already has installed.
if dpkg-query -W -f='${Status}' migronaut 2>/dev/null | grep -q 'install ok installed'; then
  echo "skipped: a migronaut package is already installed"
  exit 77
fi

work=$(mktemp -d)
cleanup() {
  dpkg -r migronaut >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

cpack --config "$build_dir/CPackConfig.cmake" -G DEB -D CPACK_COMPONENTS_ALL=cli -B "$work" \
  >"$work/cpack.log" || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/migronaut_*.deb)

depends=$(dpkg-deb -f "$deb" Depends)
for library in libpq5 libmongoc-1.0-0; do
  case "$depends" in
    *"$library"*) ;;
    *) echo "Depends lacks $library: $depends"; exit 1 ;;
  esac
done

# The -dev package declares the Debian packages of the static libraries its library's users
# link beside it (cmake/migronaut.pc.in), found by who owns them here.
cpack --config "$build_dir/CPackConfig.cmake" -G DEB -D CPACK_COMPONENTS_ALL=dev -B "$work/dev" \
  >"$work/cpack-dev.log" || { cat "$work/cpack-dev.log"; exit 1; }
dev_depends=", $(dpkg-deb -f "$work"/dev/migronaut-dev_*.deb Depends),"
for archive in libpg_query.a libz.a; do
  owner=$(dpkg -S "/usr/lib/$(gcc -print-multiarch)/$archive" | cut -d: -f1)
  case "$dev_depends" in
    *", $owner,"*) ;;
    *) echo "migronaut-dev's Depends lack $owner (for $archive): $dev_depends"; exit 1 ;;
  esac
done

# dpkg takes its own lock; wait for a concurrent install rather than fail on it.
dpkg -i "$deb" >/dev/null

version=$(/usr/bin/migronaut --version)
[ "$version" = "$expected_version" ] || { echo "--version says '$version'"; exit 1; }
size=$(stat -c %s /usr/bin/migronaut)
[ "$size" -lt $((5 * 1024 * 1024)) ] || { echo "the CLI is $size bytes"; exit 1; }
for file in /usr/share/man/man1/migronaut.1 /usr/share/bash-completion/completions/migronaut \
  /usr/share/zsh/vendor-completions/_migronaut /usr/share/doc/migronaut/copyright; do
  [ -f "$file" ] || [ -f "$file.gz" ] || { echo "missing $file"; exit 1; }
done
/usr/bin/migronaut help up | grep -q "Usage: migronaut up"
# Start-up is every boot's price: the binary itself loads no database client nor the library's
# default logger (spdlog); a store module brings its client when a URI asks for it. SQLite, the
# C++ runtime and fmt are linked in, their shared libraries' relocations saved.
needed=$(objdump -p /usr/bin/migronaut | awk '/NEEDED/ {print $2}')
for library in libpq libmongoc libspdlog libsqlite3 libstdc++ libfmt; do
  case "$needed" in
    *"$library"*) echo "the CLI itself links $library: $needed"; exit 1 ;;
  esac
done
# One C++ runtime: the modules link none of their own and use the one the CLI exports, so an
# exception a module throws is the CLI's to catch.
modules=$(dpkg -L migronaut | grep '/migronaut/libmigronaut-.*\.so$')
[ -n "$modules" ] || { echo "the package holds no module"; exit 1; }
for module in $modules; do
  if objdump -p "$module" | grep -q 'NEEDED.*libstdc++'; then
    echo "$module links libstdc++"; exit 1
  fi
done
# The store modules load from where the package put them: an unreachable server is exit 5
# (connection failed), not a missing module.
status=0
/usr/bin/migronaut --no-env --dir "$work" --uri postgres://nobody@127.0.0.1:1/x status 2>"$work/pg.err" || status=$?
[ "$status" -eq 5 ] || { echo "postgres from the package: exit $status"; cat "$work/pg.err"; exit 1; }
# So does PostgreSQL's parser, which no start-up maps any more: `lint` loads it and finds the
# blocking index build.
! grep -q 'pg_query\.' /usr/bin/migronaut || { echo "the CLI itself carries libpg_query"; exit 1; }
mkdir -p "$work/lint"
printf -- '-- migrate:up\nCREATE INDEX i ON t (c);\n' >"$work/lint/20260101000000-index.sql"
status=0
/usr/bin/migronaut --no-env lint "$work/lint/20260101000000-index.sql" >"$work/lint.out" 2>&1 || status=$?
if [ "$status" -ne 45 ] || ! grep -q require-concurrent-index-creation "$work/lint.out"; then
  echo "lint from the package: exit $status"; cat "$work/lint.out"; exit 1
fi

dpkg -r migronaut >/dev/null
[ ! -e /usr/bin/migronaut ] || { echo "dpkg -r left /usr/bin/migronaut"; exit 1; }
echo "ok: $(basename "$deb"), $size bytes"
