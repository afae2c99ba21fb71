#!/usr/bin/env bash
# Install what the test suite needs on a fresh machine, then run all of it:
# lint, types, and pytest (core, solver, server, and the page in Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v fc-solve >/dev/null 2>&1 || need_apt+=(freecell-solver-bin)
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

.venv/bin/ruff check src tests bench
.venv/bin/mypy
.venv/bin/pytest -n 2 "$@"
