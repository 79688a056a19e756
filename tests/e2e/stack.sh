# stack.sh — sourced by the e2e scripts that start spotsim and spotledger
# themselves (not a test itself). The caller defines fail().
#
# wait_sim OUT ERR: waits (10 s) for spotsim's start line in OUT
#   ("spotsim: http HOST:PORT https HOST:PORT cluster ID") and sets http, https
#   and cluster from it; fails with ERR's content when it does not come.
# wait_ledger OUT ERR: waits (10 s) for spotledger's "listening on
#   127.0.0.1:PORT" in OUT and sets base (http://127.0.0.1:PORT).
wait_sim() {
  _wi=0
  while ! grep -q '^spotsim: http ' "$1" 2>/dev/null; do
    _wi=$((_wi + 1)); [ $_wi -le 100 ] || fail "spotsim did not start: $(cat "$2")"
    sleep 0.1
  done
  _wl=$(grep '^spotsim: http ' "$1")
  http=$(echo "$_wl" | awk '{print $3}')
  https=$(echo "$_wl" | awk '{print $5}')
  cluster=$(echo "$_wl" | awk '{print $7}')
}

wait_ledger() {
  _wi=0
  while ! grep -q 'listening on' "$1" 2>/dev/null; do
    _wi=$((_wi + 1)); [ $_wi -le 100 ] || fail "spotledger did not start: $(tail -5 "$2")"
    sleep 0.1
  done
  base="http://127.0.0.1:$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$1")"
}

# wait_files SECS FILE...: waits (SECS) until every FILE is written (not empty):
#   spotsim writes its truth files when its scenario is over.
wait_files() {
  _wn=$(($1 * 10)); shift
  _wi=0
  for _wf in "$@"; do
    while [ ! -s "$_wf" ]; do
      _wi=$((_wi + 1)); [ $_wi -le $_wn ] || fail "spotsim did not finish in $((_wn / 10)) s"
      sleep 0.1
    done
  done
}

# wait_final DIR BASE SECS: waits (SECS) for spotsim's truth in DIR/truth.json, sets
# start and until from it, then waits (60 s) until spotledger at BASE has polled
# DigitalOcean and Kubernetes at until, and for a second poll of that final state
# (settle.sh's settle must be sourced).
wait_final() {
  wait_files "$3" "$1/truth.json"
  until=$(jq -r .until "$1/truth.json")
  start=$(jq -r .start "$1/truth.json")
  _wi=0
  while :; do
    _st=$(curl -sf --max-time 5 "$2/api/v1/status" || echo '{}')
    if echo "$_st" | jq -e --arg u "$until" '.now == $u and
        ([.sources[] | select(.source == "do" or .source == "k8s") | .source_time == $u] | all)' \
        >/dev/null; then
      break
    fi
    _wi=$((_wi + 1)); [ $_wi -le 600 ] || fail "spotledger did not catch up in 60 s: $_st"
    sleep 0.1
  done
  settle "$2" "do k8s" 30 || fail "no second poll of the final state"
}
