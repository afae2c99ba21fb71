#!/usr/bin/env bash
# The C library in csrc/ on its own, without Python: every file compiled alone
# (and the one-unit build), its unit tests, and its fuzz driver for the
# position parser and the line player and checker, all under AddressSanitizer
# and UndefinedBehaviorSanitizer. libFuzzer with clang where it is installed,
# otherwise the driver's own deterministic random inputs under gcc.
# FUZZ_SECONDS (default 30) bounds the fuzzing. Any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=${CC:-gcc}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/bakers-core.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
FLAGS=(-std=c11 -O1 -g -Wall -Wextra -Werror -Icsrc/include "${SAN[@]}")
export ASAN_OPTIONS=abort_on_error=1:halt_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

if grep -rl "Python.h" csrc; then
  echo "csrc/ must not include Python.h" >&2
  exit 1
fi

objs=()
for src in csrc/*.c; do
  [ "$src" = csrc/bakers_all.c ] && continue
  obj="$OUT/$(basename "$src" .c).o"
  "$CC" "${FLAGS[@]}" -c "$src" -o "$obj"
  objs+=("$obj")
done
ar rcs "$OUT/libbakers.a" "${objs[@]}"
"$CC" -std=c11 -O2 -Wall -Wextra -Werror -Icsrc/include -c csrc/bakers_all.c -o "$OUT/all.o"
echo "library: ${#objs[@]} files compiled alone, and as one unit"

"$CC" "${FLAGS[@]}" csrc/tests/test_core.c "$OUT/libbakers.a" -pthread -o "$OUT/test_core"
"$OUT/test_core"

if command -v clang >/dev/null 2>&1 &&
   echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
   clang -x c -fsanitize=fuzzer - -o "$OUT/probe" >/dev/null 2>&1; then
  clang -std=c11 -O1 -g -Icsrc/include -DBK_LIBFUZZER -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=all csrc/tests/fuzz.c csrc/[!b]*.c csrc/b[!a]*.c -pthread \
    -o "$OUT/fuzz"
  "$OUT/fuzz" -max_total_time="$FUZZ_SECONDS" -seed=1 -print_final_stats=1
else
  "$CC" "${FLAGS[@]}" csrc/tests/fuzz.c "$OUT/libbakers.a" -pthread -o "$OUT/fuzz"
  "$OUT/fuzz" "$FUZZ_SECONDS"
fi
echo "core: no report"
