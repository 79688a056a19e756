# stack.sh — sourced by the e2e scripts that start spotsim and spotledger
# themselves (not a test itself). The caller defines fail().
#
# wait_start OUT ERR PATTERN NAME: waits (10 s) for a line matching PATTERN (grep)
#   in OUT; fails "NAME did not start: " with the last 20 lines of ERR when it
#   does not come.
# wait_sim OUT ERR: wait_start for spotsim's start line in OUT ("spotsim: http
#   HOST:PORT https HOST:PORT cluster ID") and sets http, https and cluster from it.
# wait_ledger OUT ERR: wait_start for spotledger's "listening on 127.0.0.1:PORT"
#   in OUT and sets base (http://127.0.0.1:PORT).
# stack_sim OUT [SPOTSIM ARGS...]: starts spotsim (seed 7, 1440x, held at its end,
#   no rate limit; ARGS come after, so they may override) on a free loopback port
#   with the tokens $dir/do-token and $dir/kube-token, its CA in OUT/ca.pem and its
#   output in OUT/sim.out and OUT/sim.err; sets sim_pid (added to pids) and, once
#   it is up (wait_sim), http, https and cluster.
# stack_ledger OUT DB [SPOTLEDGER ARGS...]: starts spotledger on database DB
#   against that spotsim (polls every 1 s, billing every 2 s, then ARGS), output in
#   OUT/ledger.out and OUT/ledger.err; sets ledger_pid (added to pids) and, once
#   it listens (wait_ledger), base.
wait_start() {
  _wi=0
  while ! grep -q "$3" "$1" 2>/dev/null; do
    _wi=$((_wi + 1)); [ $_wi -le 100 ] || fail "$4 did not start: $(tail -20 "$2")"
    sleep 0.1
  done
}

wait_sim() {
  wait_start "$1" "$2" '^spotsim: http ' spotsim
  _wl=$(grep '^spotsim: http ' "$1")
  http=$(echo "$_wl" | awk '{print $3}')
  https=$(echo "$_wl" | awk '{print $5}')
  cluster=$(echo "$_wl" | awk '{print $7}')
}

wait_ledger() {
  wait_start "$1" "$2" 'listening on' spotledger
  base="http://127.0.0.1:$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$1")"
}

stack_sim() {
  _so=$1; shift
  "$sim" --seed 7 --speed 1440 --hold --listen 127.0.0.1:0 --rate-limit 0 \
    --tls-cert-out "$_so/ca.pem" --do-token-file "$dir/do-token" \
    --kube-token-file "$dir/kube-token" "$@" >"$_so/sim.out" 2>"$_so/sim.err" &
  sim_pid=$!
  pids="${pids:-} $sim_pid"
  wait_sim "$_so/sim.out" "$_so/sim.err"
}

stack_ledger() {
  _so=$1; _sdb=$2; shift 2
  "$ledger" --listen 127.0.0.1:0 --db "$_sdb" --do-api-url "http://$http" \
    --do-token-file "$dir/do-token" --cluster-id "$cluster" --kube-api-url "https://$https" \
    --kube-token-file "$dir/kube-token" --kube-ca-file "$_so/ca.pem" --poll-interval 1 \
    --billing-interval 2 "$@" >"$_so/ledger.out" 2>"$_so/ledger.err" &
  ledger_pid=$!
  pids="${pids:-} $ledger_pid"
  wait_ledger "$_so/ledger.out" "$_so/ledger.err"
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

# wait_final DIR BASE SECS [SOURCES]: waits (SECS) for spotsim's truth in
# DIR/truth.json, sets start and until from it, then waits (60 s) until spotledger at
# BASE has polled each of SOURCES (settle.sh's names; default "do k8s") at until, and
# for a second poll of that final state (settle.sh's settle must be sourced).
wait_final() {
  wait_files "$3" "$1/truth.json"
  until=$(jq -r .until "$1/truth.json")
  start=$(jq -r .start "$1/truth.json")
  _wsrc=${4:-do k8s}
  _wi=0
  while :; do
    _st=$(curl -sf --max-time 5 "$2/api/v1/status" || echo '{}')
    if echo "$_st" | jq -e --arg u "$until" ".now == \$u and
        ([.sources[] | select($(source_sel "$_wsrc")) | .source_time == \$u] | all)" \
        >/dev/null; then
      break
    fi
    _wi=$((_wi + 1)); [ $_wi -le 600 ] || fail "spotledger did not catch up in 60 s: $_st"
    sleep 0.1
  done
  settle "$2" "$_wsrc" 30 || fail "no second poll of the final state"
}
