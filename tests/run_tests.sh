#!/bin/sh
# Runs every unit test binary, then every end-to-end script (tests/e2e/e2e_*.sh),
# and prints one summary. Usage: tests/run_tests.sh BUILD_DIR (build/san in make test).
# Each test is bounded in time (timeout), so a hung test fails instead of hanging CI.
set -u
build=${1:-build/san}
root=$(cd "$(dirname "$0")/.." && pwd)
export SPOTLEDGER_BIN="$root/$build/spotledger" SPOTSIM_BIN="$root/$build/spotsim"
export SPOTLEDGER_ROOT="$root"
export SHARED_FIXTURES="${SHARED_FIXTURES:-$root/../shared/fixtures}"
export CMOCKA_MESSAGE_OUTPUT=stdout
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
pass=0; fail=0; failed=""
for t in "$root/$build"/tests/test_*; do
  [ -x "$t" ] || continue
  case "$t" in *.o|*.d) continue;; esac
  name=$(basename "$t")
  if (cd "$root" && timeout 300 "$t"); then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $name"; fi
done
for s in "$root"/tests/e2e/e2e_*.sh; do
  [ -f "$s" ] || continue
  name=$(basename "$s")
  echo "[ RUN      ] $name"
  if (cd "$root" && timeout 900 sh "$s"); then
    echo "[       OK ] $name"; pass=$((pass + 1))
  else
    echo "[  FAILED  ] $name"; fail=$((fail + 1)); failed="$failed $name"
  fi
done
echo "[==========] $((pass + fail)) test suite(s) run (unit binaries and end-to-end scripts)."
echo "[  PASSED  ] $pass suite(s)."
[ "$fail" -eq 0 ] || echo "[  FAILED  ] $fail suite(s):$failed"
[ "$fail" -eq 0 ]
