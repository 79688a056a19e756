# demo_up.sh — sourced by the e2e scripts that test against `make run`'s demo (not a
# test itself). The caller defines fail() and $root, and stops run_pid on exit
# (lib.sh's on_exit_stop run_pid: TERM, then KILL after 5 s).
#
# demo_start DIR: starts deploy/demo/run.sh as `make run` does (run folder DIR/run,
#   a free port, the binaries under test), sets run_pid and base
#   (http://127.0.0.1:PORT) once run.sh has written demo.env and printed its start-up
#   lines; bounded (20 s).
# demo_week_done SECONDS: waits until run.sh says the simulated week is complete and
#   the source clock reached its end (2026-11-16T00:00:00Z); bounded by SECONDS.
demo_start() {
  _dd=$1
  SPOTLEDGER_RUN_DIR="$_dd/run" SPOTLEDGER_PORT=0 SPOTLEDGER_BIN="$SPOTLEDGER_BIN" \
    SPOTSIM_BIN="$SPOTSIM_BIN" sh "$root/deploy/demo/run.sh" >"$_dd/run.out" 2>"$_dd/run.err" &
  run_pid=$!
  _di=0
  # run.sh's last start-up line, printed after demo.env is written and after the
  # lines e2e_readme checks (waiting for demo.env alone raced them)
  until grep -q '^Ctrl-C stops both' "$_dd/run.out" 2>/dev/null; do
    _di=$((_di + 1)); [ $_di -le 200 ] || fail "the demo did not start: $(cat "$_dd/run.out" "$_dd/run.err")"
    kill -0 "$run_pid" 2>/dev/null || fail "the demo exited: $(cat "$_dd/run.out" "$_dd/run.err")"
    sleep 0.1
  done
  base=$(sed -n 's|^B=\(http://127\.0\.0\.1:[0-9]*\)/api/v1$|\1|p' "$_dd/run/demo.env")
  [ -n "$base" ] || fail "demo.env has no B=: $(cat "$_dd/run/demo.env")"
}

demo_week_done() {
  _di=0
  until grep -q 'the simulated week is complete' "$_dd/run.out" &&
    curl -sf --max-time 5 "$base/api/v1/status" | jq -e '.now == "2026-11-16T00:00:00Z"' >/dev/null; do
    _di=$((_di + 1)); [ $_di -le $(($1 * 2)) ] || fail "the demo week did not complete in $1 s: $(tail -n 3 "$_dd/run.out")"
    sleep 0.5
  done
}
