#!/usr/bin/env bash
# Install what the test suite needs on a fresh machine, then run all of it:
# lint, types, pytest (core, solver, server, and the page in Chromium), and the
# C library's own tests and fuzzing under the sanitizers.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v fc-solve >/dev/null 2>&1 || need_apt+=(freecell-solver-bin)
# PostgreSQL for the store tests (a throwaway cluster is started below)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need_apt+=(postgresql)
if ((${#need_apt[@]})); then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages: ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "note: missing ${need_apt[*]}; the tests that need them will be skipped" >&2
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'

# --- PostgreSQL: a throwaway cluster on a free port, stopped at exit --------------
# The store tests also run against it through BAKERS_TEST_PG_URL; if it cannot
# start, those tests skip with the reason and everything else still runs.
PG_DIR=""
stop_postgres() {
  if [ -n "$PG_DIR" ] && [ -d "$PG_DIR" ]; then
    pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
  fi
}
pg_as() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
start_postgres() {
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ]; then
    echo "note: PostgreSQL is not installed; its tests will be skipped" >&2
    return 1
  fi
  if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
    echo "note: no postgres user to run PostgreSQL as; its tests will be skipped" >&2
    return 1
  fi
  PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bakers-pg.XXXXXX")
  chmod 755 "$PG_DIR"
  [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
  local port
  port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U bakers -A trust --no-sync >"$PG_DIR/initdb.log" 2>&1 \
    || { echo "note: initdb failed (see below); PostgreSQL tests will be skipped" >&2; tail -n 5 "$PG_DIR/initdb.log" >&2; return 1; }
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 30 \
    -o "-p $port -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" \
    start >/dev/null \
    || { echo "note: PostgreSQL did not start; its tests will be skipped" >&2; tail -n 5 "$PG_DIR/server.log" >&2; return 1; }
  export BAKERS_TEST_PG_URL="postgresql://bakers@127.0.0.1:$port/postgres"
  echo "PostgreSQL test cluster at 127.0.0.1:$port"
}
trap stop_postgres EXIT
if [ -z "${BAKERS_TEST_PG_URL:-}" ]; then
  start_postgres || true
fi

.venv/bin/ruff check src tests bench
.venv/bin/mypy
# the native core must have been built here (gcc is on every machine this runs on);
# its tests fail rather than skip without it
export BAKERS_REQUIRE_NATIVE=1
.venv/bin/pytest -n 2 "$@"
# the C library on its own (unit tests and fuzzing), then the compiled core
# behind Python, both under AddressSanitizer and UndefinedBehaviorSanitizer
if [ $# -eq 0 ]; then
  bash scripts/test-core.sh
  bash scripts/sanitize.sh
fi
