#!/bin/sh
# Runs every part of the suite and ends with ONE line over all of them:
#   N passed, N failed, N skipped
# Parts, in order (TEST_PARTS selects, default all): layers (make layers: the
# include order of src/ and its self-test; no citation outside the repository and its
# self-test), format (make format-check),
# fuzz (tests/fuzz/run_fuzz.sh FUZZ_SMOKE_SECONDS: the smoke run of every harness
# already built in build/fuzz), unit (every binary BUILD_DIR/tests/test_*), e2e
# (every tests/e2e/e2e_*.sh). UNIT_JOBS=N runs the unit binaries N at a time, longest first (make unit: 3).
# Counting: each layer check, format check, fuzz run, unit binary and e2e script is one suite
# and counts as passed or failed; every line a suite prints that begins with
# "SKIP: " (a part it could not run, e.g. ../shared/fixtures missing) counts as
# one skipped. Each suite is bounded in time (timeout), so a hung test fails
# instead of hanging CI. Usage: tests/run_tests.sh BUILD_DIR (build/san in make test).
set -u
build=${1:-build/san}
parts=${TEST_PARTS:-layers format fuzz unit e2e}
root=$(cd "$(dirname "$0")/.." && pwd)
export SPOTLEDGER_BIN="$root/$build/spotledger" SPOTSIM_BIN="$root/$build/spotsim"
export SPOTLEDGER_ROOT="$root"
export SHARED_FIXTURES="${SHARED_FIXTURES:-$root/../shared/fixtures}"
export CMOCKA_MESSAGE_OUTPUT=stdout
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
pass=0; fail=0; skip=0; failed=""; skipped=""
logdir=$(mktemp -d "${TMPDIR:-/tmp}/spotledger-tests-XXXXXX") || exit 1
trap 'rm -rf "$logdir"' EXIT INT TERM

# suite NAME SECONDS CMD...: runs CMD in the repository root, streams its output,
# counts its result and its SKIP lines.
suite() {
  name=$1; secs=$2; shift 2
  log="$logdir/log"
  (cd "$root" && timeout "$secs" "$@"; echo $? >"$logdir/rc") 2>&1 | tee "$log"
  rc=$(cat "$logdir/rc" 2>/dev/null || echo 1)
  n=$(grep -c '^SKIP: ' "$log")
  if [ "$n" -gt 0 ]; then skip=$((skip + n)); skipped="$skipped $name($n)"; fi
  if [ "$rc" -eq 0 ]; then
    pass=$((pass + 1))
  else
    [ "$rc" -eq 124 ] && echo "$name: timed out after $secs s"
    fail=$((fail + 1)); failed="$failed $name"
  fi
}

for part in $parts; do
  case "$part" in
  layers)
    suite check_layers 300 sh tests/layers/check_layers.sh src src/layers.txt
    suite test_check_layers 300 sh tests/layers/test_check_layers.sh
    suite check_citations 300 sh tests/layers/check_citations.sh src tests web deploy docs README.md Makefile
    suite test_check_citations 300 sh tests/layers/test_check_citations.sh ;;
  format)
    suite format-check 300 ${MAKE:-make} --no-print-directory format-check ;;
  fuzz)
    echo "fuzz-smoke: every libFuzzer harness for ${FUZZ_SMOKE_SECONDS:-12} s (tests/fuzz/run_fuzz.sh)"
    suite fuzz-smoke 900 sh tests/fuzz/run_fuzz.sh "${FUZZ_SMOKE_SECONDS:-12}" ;;
  unit)
    if [ "${UNIT_JOBS:-1}" -le 1 ]; then
      for t in "$root/$build"/tests/test_*; do
        [ -x "$t" ] || continue
        case "$t" in *.o|*.d) continue;; esac
        suite "$(basename "$t")" 300 "$t"
      done
    else
      # UNIT_JOBS at a time from one queue (xargs -P): the next free slot takes the next
      # binary, the longest of the last run first (their wall milliseconds are kept in
      # BUILD_DIR/tests/unit-times; a binary not timed yet counts as the longest), so
      # two slow ones do not end up one after the other in one lane. Each binary keeps
      # its own log and exit code; then they are shown and counted in name order, as
      # the serial loop does.
      times="$root/$build/tests/unit-times"
      for t in "$root/$build"/tests/test_*; do
        [ -x "$t" ] || continue
        case "$t" in *.o|*.d) continue;; esac
        echo "$t" >>"$logdir/order"
        n=$(basename "$t")
        s=$(awk -v n="$n" '$2 == n {print $1}' "$times" 2>/dev/null)
        echo "${s:-999999} $t" >>"$logdir/queue"
      done
      if [ -f "$logdir/order" ]; then
        sort -rn "$logdir/queue" | cut -d' ' -f2- |
          xargs -d '\n' -n 1 -P "$UNIT_JOBS" sh -c '
            n=$(basename "$3"); t0=$(date +%s%N)
            (cd "$1" && timeout 300 "$3" >"$2/u.$n.log" 2>&1; echo $? >"$2/u.$n.rc")
            echo "$(( ($(date +%s%N) - t0) / 1000000 )) $n" >"$2/u.$n.ms"' sh "$root" "$logdir"
        cat "$logdir"/u.*.ms >"$times.tmp" 2>/dev/null && mv "$times.tmp" "$times"
        while read -r t; do
          n=$(basename "$t")
          suite "$n" 10 sh -c 'cat "$1"; exit "$(cat "$2" 2>/dev/null || echo 1)"' sh \
            "$logdir/u.$n.log" "$logdir/u.$n.rc"
          [ "$(cat "$logdir/u.$n.rc" 2>/dev/null)" = 124 ] && echo "$n: timed out after 300 s"
        done <"$logdir/order"
      fi
    fi ;;
  e2e)
    for s in "$root"/tests/e2e/e2e_*.sh; do
      [ -f "$s" ] || continue
      name=$(basename "$s")
      echo "[ RUN      ] $name"
      suite "$name" 900 sh "$s"
      if [ "$rc" -eq 0 ]; then echo "[       OK ] $name"; else echo "[  FAILED  ] $name"; fi
    done ;;
  *) echo "run_tests: unknown part '$part'" >&2; fail=$((fail + 1)); failed="$failed $part" ;;
  esac
done
[ "$fail" -eq 0 ] || echo "failed:$failed"
[ "$skip" -eq 0 ] || echo "skipped:$skipped"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
