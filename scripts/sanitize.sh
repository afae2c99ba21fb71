#!/usr/bin/env bash
# The native core under AddressSanitizer and UndefinedBehaviorSanitizer: build
# a sanitized copy of the extension beside a copy of the sources, then run the
# native tests and a few hundred deals of each game on it (limits and error
# paths included). Any report stops the run with a non-zero status.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
CC=${CC:-gcc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/bakers-sanitize.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cp -r src "$TMP/src"
rm -f "$TMP"/src/bakers/solver/_native*.so
INC=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
SUFFIX=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
"$CC" -shared -fPIC -O1 -g -std=c11 -Wall -Wextra -Werror \
  -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
  -I"$INC" -Icsrc/include src/bakers/solver/_native.c csrc/bakers_all.c \
  -o "$TMP/src/bakers/solver/_native$SUFFIX"

LD_PRELOAD="$("$CC" -print-file-name=libasan.so):$("$CC" -print-file-name=libubsan.so)"
export LD_PRELOAD
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PYTHONPATH="$TMP/src"
export BAKERS_REQUIRE_NATIVE=1

"$PY" - "$TMP" <<'PYEOF'
import sys
from bakers.solver import native
assert native.AVAILABLE, native.IMPORT_ERROR
assert native._core is not None and native._core.__file__.startswith(sys.argv[1]), "not the sanitized build"
print("sanitized core:", native._core.__file__)
PYEOF

"$PY" -m pytest -q -p no:xdist -p no:cacheprovider -p no:randomly tests/test_native.py \
  -k "not verdicts_agree and not move_generator"

"$PY" - <<'PYEOF'
import time
from bakers import Board
from bakers.solver import Verdict, solve
start = time.perf_counter()
counts = {}
for game, deals in (("bakers_game", range(1, 301)), ("freecell", range(1, 301)),
                    ("bakers_dozen", range(1, 121)), ("bakers_game", range(1, 41)),
                    ("freecell", range(11982, 11983))):
    for deal in deals:
        for cells in ((None,) if game == "bakers_dozen" else (None, 2)):
            board = Board.deal(game, deal, cells=cells)
            result = solve(board, engine="native", max_states=400_000)
            counts[result.verdict] = counts.get(result.verdict, 0) + 1
# the exhaustive search: FreeCell and Baker's Game with 1 cell, Baker's Dozen
for game, cells, deals in (("freecell", 1, range(1, 61)), ("bakers_game", 1, range(1, 61)),
                           ("bakers_dozen", None, range(1, 11))):
    for deal in deals:
        result = solve(Board.deal(game, deal, cells=cells), search="exhaustive",
                       max_states=200_000)
        counts[result.verdict] = counts.get(result.verdict, 0) + 1
assert solve(Board.deal("freecell", 27, cells=1), search="exhaustive", max_memory_mb=66,
             max_states=None).limit == "memory limit 66 MB"
# the limits' own paths: memory, states, time
board = Board.deal("freecell", 11982)
assert solve(board, engine="native", max_memory_mb=1, max_states=None).limit == "memory limit 1 MB"
assert solve(board, engine="native", max_states=10).verdict is Verdict.UNKNOWN
assert solve(Board.deal("bakers_dozen", 152), engine="native", timeout=0.2).verdict is Verdict.UNKNOWN
print("sanitized deals:", {k.value: v for k, v in counts.items()},
      f"in {time.perf_counter() - start:.1f} s")
PYEOF
echo "sanitizers: no report"
