#!/usr/bin/env bash
# Runs the test binaries that execute kernels and runtime code under valgrind's memcheck:
# the runtime's unit tests, every kernel test of tests/, the differential tester's CI subset,
# and sparse-core's tests. (The UI tests and the fuzzer's smoke run only spawn compilers and
# workers; they execute no kernel.) Exits non-zero on the first memcheck error.
#
#   bash scripts/valgrind.sh            # debug build (debug assertions on)
#   PROFILE=release bash scripts/valgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 2; }
flag=()
[ "${PROFILE:-dev}" = release ] && flag=(--release)
bins=$(cargo test "${flag[@]}" -p sparse-runtime -p sparse-tests -p sparse-difftest -p sparse-core \
    --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"] and m["target"]["name"] != "ui":
        print(m["executable"])')
for bin in $bins; do
  echo "== $bin"
  valgrind --tool=memcheck --error-exitcode=1 --leak-check=no --quiet "$bin" --test-threads=1 -q
done
echo "valgrind: memcheck clean over $(echo "$bins" | wc -w) test binaries"
