# lib.sh — the harness the e2e scripts share (sourced; not a test itself).
#
# e2e_begin NAME [LOG]: the start of a script that runs its own spotsim and
#   spotledger: sim, ledger and root from the environment (tests/run_tests.sh sets
#   SPOTSIM_BIN, SPOTLEDGER_BIN and SPOTLEDGER_ROOT), dir (a new temporary
#   directory), pids (the script appends each process it starts; on exit, and on
#   INT and TERM, they get SIGTERM and dir is removed), fail MESSAGE ("NAME:
#   MESSAGE" on stderr, or "NAME: CASE: MESSAGE" while the script sets
#   e2e_case=CASE, after the last 20 lines of dir/LOG when LOG is given and
#   written; exit 1), and settle.sh's and stack.sh's functions. E2E_KEEP=PREFIX
#   copies dir to PREFIX.PID before removing it (logs, databases, truths).
# e2e_begin_named NAME VAR...: the start of a script that keeps each process it
#   starts in a variable of its own (VAR..., set empty here) and sets root, sim
#   and ledger itself: dir (a new temporary directory), on_exit_stop VAR..., fail
#   MESSAGE ("NAME: FAIL: MESSAGE" on stderr, exit 1), note MESSAGE ("NAME:
#   MESSAGE" on stdout), and settle.sh's and stack.sh's functions.
# stop_pid PID: SIGTERM, up to 5 s for PID to end, then SIGKILL; reaps it. An
#   empty PID or one already gone is no error.
# on_exit_stop VAR...: on exit, stop_pid the process each variable names (read
#   then), remove dir and exit with the script's code; INT and TERM exit 1.
# need CMD...: fail "CMD is not installed" for the first CMD not on the PATH.
# find_chromium: sets chromium to the first of chromium, chromium-browser and
#   google-chrome installed; fail when there is none.
_e2e_dir=$(dirname "$0")
. "$_e2e_dir/settle.sh"
. "$_e2e_dir/stack.sh"

e2e_begin() {
  _e2e_name=$1
  _e2e_fail=$1
  _e2e_log=${2:-}
  sim=${SPOTSIM_BIN:?}
  ledger=${SPOTLEDGER_BIN:?}
  root=${SPOTLEDGER_ROOT:?}
  dir=$(mktemp -d)
  pids=
  trap _e2e_cleanup EXIT
  trap 'exit 1' INT TERM
}

e2e_begin_named() {
  _e2e_name=$1
  _e2e_fail="$1: FAIL"
  shift
  for _e2e_v in "$@"; do eval "$_e2e_v="; done
  dir=$(mktemp -d)
  on_exit_stop "$@"
}

_e2e_cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  [ -n "${E2E_KEEP:-}" ] && cp -r "$dir" "$E2E_KEEP.$$"; rm -rf "$dir"
}

fail() {
  [ -n "${_e2e_log:-}" ] && [ -f "$dir/$_e2e_log" ] && tail -20 "$dir/$_e2e_log" >&2
  echo "$_e2e_fail: ${e2e_case:+$e2e_case: }$*" >&2; exit 1
}

note() { echo "$_e2e_name: $*"; }

stop_pid() {
  [ -n "$1" ] || return 0
  kill "$1" 2>/dev/null || return 0
  _e2e_i=0
  while kill -0 "$1" 2>/dev/null && [ $_e2e_i -lt 50 ]; do sleep 0.1; _e2e_i=$((_e2e_i + 1)); done
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

on_exit_stop() {
  _e2e_stop_vars=$*
  trap '_e2e_rc=$?; set +e
    for _e2e_v in $_e2e_stop_vars; do eval "stop_pid \"\${$_e2e_v:-}\""; done
    rm -rf "$dir"; exit $_e2e_rc' EXIT
  trap 'exit 1' INT TERM
}

need() {
  for _e2e_c in "$@"; do
    command -v "$_e2e_c" >/dev/null || fail "$_e2e_c is not installed"
  done
}

find_chromium() {
  chromium=
  for _e2e_c in chromium chromium-browser google-chrome; do
    if command -v "$_e2e_c" >/dev/null 2>&1; then chromium=$_e2e_c; break; fi
  done
  [ -n "$chromium" ] || fail "chromium is not installed (Debian package chromium; make deps installs it)"
}
