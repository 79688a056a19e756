# fleet_stack.sh — sourced by the e2e scripts (not a test itself) that run
# several simulated clusters of one account (issue 22, docs/fleet.md). Needs
# lib.sh's e2e_begin (sim, ledger, root, fail, settle.sh and stack.sh).
#
# fleet_sim_start DIR SEED [SPOTSIM ARGS...]
#   spotsim plays "east" (tests/fixtures/sim/small.json at 1440x, held at its
#   end, with deletion timestamps and no rate limit) on loopback with the tokens
#   DIR/ktok and DIR/dtok, its CA in DIR/ca.pem, east's truth in DIR/east.truth,
#   output in DIR/sim.out and DIR/sim.err, and ARGS (--also-cluster ...). Sets
#   sim_pid; waits (10 s) for its start line and one "cluster http" line per
#   --also-cluster in ARGS; sets http, east_https and east_id from the first.
# sim_cluster_https DIR ID: the HTTPS HOST:PORT of the --also-cluster whose
#   cluster id is ID (its "cluster http" line in DIR/sim.out); empty when none.
# fleet_kubeconfig DIR "NAME HOST:PORT"...: writes DIR/kubeconfig, one cluster
#   and context NAME per argument (server https://HOST:PORT, CA DIR/ca.pem), all
#   with the user "sim" whose token is DIR/ktok's; the current context is the
#   first.
# fleet_ledger_start DIR [SPOTLEDGER ARGS...]
#   spotledger on a free loopback port with DIR/ledger.db and DIR/kubeconfig,
#   spotsim's DigitalOcean API (http, token DIR/dtok), a poll every 1 s and a
#   billing poll every 2 s, and ARGS (--cluster ...); output in DIR/svc.out and
#   DIR/svc.err. Sets svc_pid and (wait_ledger) base.
# fleet_stack_start TMP [SPOTLEDGER ARGS...]
#   Two simulated clusters of one account: spotsim plays "east" (tor1, reclaim
#   after 2 h) and, with --also-cluster, "west" (the same workloads in ams3 with
#   its own ids, pool names, experiment labels ("west-" + east's: TMP/west.json)
#   and a reclaim after 5 h, its own seed), each with its own Kubernetes API
#   port and its own ground truth (TMP/east.truth, TMP/west.truth); the first
#   port's DigitalOcean API serves both. spotledger watches both through one
#   kubeconfig (extra ARGS appended). Returns once both truths are written, both
#   clusters' sources have reached the end of the scenario and each has polled
#   the final state again. Sets sim_pid, svc_pid (the caller stops them on
#   exit: on_exit_stop), base, start and until.
# Loopback only; every wait is bounded.
fleet_sim_start() {
  _fd=$1; _fseed=$2; shift 2
  _fn=0
  for _fa in "$@"; do [ "$_fa" != --also-cluster ] || _fn=$((_fn + 1)); done
  "$sim" --scenario "$root/tests/fixtures/sim/small.json" --seed "$_fseed" --speed 1440 --hold \
    --listen 127.0.0.1:0 --kube-deletion-timestamps --tls-cert-out "$_fd/ca.pem" \
    --truth "$_fd/east.truth" --rate-limit 0 --kube-token-file "$_fd/ktok" \
    --do-token-file "$_fd/dtok" "$@" > "$_fd/sim.out" 2> "$_fd/sim.err" &
  sim_pid=$!
  wait_sim "$_fd/sim.out" "$_fd/sim.err"
  east_https=$https
  east_id=$cluster
  _fi=0
  while [ "$(grep -c '^spotsim: cluster http ' "$_fd/sim.out")" -lt "$_fn" ]; do
    _fi=$((_fi + 1)); [ $_fi -le 100 ] || fail "spotsim did not start: $(cat "$_fd/sim.err")"
    sleep 0.1
  done
}

sim_cluster_https() {
  awk -v id="$2" '/^spotsim: cluster http / && $8 == id {print $6}' "$1/sim.out"
}

fleet_kubeconfig() {
  _fd=$1; shift
  _fnames=
  {
    echo "apiVersion: v1"
    echo "kind: Config"
    echo "clusters:"
    for _fc in "$@"; do
      _fnames="$_fnames ${_fc%% *}"
      echo "- name: ${_fc%% *}"
      echo "  cluster: {server: \"https://${_fc#* }\", certificate-authority: \"$_fd/ca.pem\"}"
    done
    echo "users:"
    echo "- name: sim"
    echo "  user: {token: $(cat "$_fd/ktok")}"
    echo "contexts:"
    for _fc in $_fnames; do
      echo "- name: $_fc"
      echo "  context: {cluster: $_fc, user: sim}"
    done
    echo "current-context: ${1%% *}"
  } > "$_fd/kubeconfig"
}

fleet_ledger_start() {
  _fd=$1; shift
  "$ledger" --listen 127.0.0.1:0 --db "$_fd/ledger.db" --kubeconfig "$_fd/kubeconfig" \
    --do-api-url "http://$http" --do-token-file "$_fd/dtok" --poll-interval 1 \
    --billing-interval 2 "$@" > "$_fd/svc.out" 2> "$_fd/svc.err" &
  svc_pid=$!
  wait_ledger "$_fd/svc.out" "$_fd/svc.err"
}

fleet_stack_start() {
  _ft=$1; shift
  printf 'fleet-kube-token-71d0\n' > "$_ft/ktok"
  printf 'fleet-do-token-c3e9\n' > "$_ft/dtok"
  _fwest_id=7b3d9c1a-2e4f-4a6b-8c0d-1e2f3a4b5c6e
  jq --arg id "$_fwest_id" '.cluster = {"id": $id, "name": "sim-west", "region": "ams3"}
      | .pools |= map(.name = "west-" + .name
                      | if .id then .id = "8c4e0d2b-3f5a-4b7c-9d1e-2f3a4b5c6d7f" else . end)
      | .workloads |= map(if .experiment then .experiment = "west-" + .experiment else . end)
      | .reclaims = [{"pool": "west-gpu-spot", "after": "5h"}]' \
    "$root/tests/fixtures/sim/small.json" > "$_ft/west.json"
  fleet_sim_start "$_ft" 7 --also-cluster "$_ft/west.json:$_ft/west.truth"
  _fwest_https=$(sim_cluster_https "$_ft" "$_fwest_id")
  [ -n "$_fwest_https" ] || fail "west's line: $(cat "$_ft/sim.out")"
  fleet_kubeconfig "$_ft" "east $east_https" "west $_fwest_https"
  fleet_ledger_start "$_ft" --cluster "east=east@$east_id" --cluster "west=west@$_fwest_id" "$@"

  wait_files 120 "$_ft/east.truth" "$_ft/west.truth"
  until=$(jq -r .until "$_ft/east.truth")
  start=$(jq -r .start "$_ft/east.truth")
  _fi=0
  while :; do
    _fst=$(curl -sf --max-time 5 "$base/api/v1/status" || echo '{}')
    if echo "$_fst" | jq -e --arg u "$until" '[.clusters[]
        | (.kubernetes.source_time == $u) and (.digitalocean.source_time == $u)]
        | length == 2 and all' >/dev/null; then
      break
    fi
    _fi=$((_fi + 1)); [ $_fi -le 600 ] || fail "the clusters did not catch up in 60 s: $_fst"; sleep 0.1
  done
  settle "$base" "do k8s do_billing" 30 || fail "no second poll of the final state"
  # settle's sources are any cluster's: wait for each cluster's own next success too
  for _fc in east west; do
    for _fs in kubernetes digitalocean; do
      _fb=$(curl -sf "$base/api/v1/status" | jq -r --arg c "$_fc" --arg s "$_fs" \
        '.clusters[] | select(.name == $c) | .[$s].last_success')
      _fi=0
      until curl -sf "$base/api/v1/status" | jq -e --arg c "$_fc" --arg s "$_fs" --arg b "$_fb" \
          '.clusters[] | select(.name == $c) | .[$s].last_success > $b' >/dev/null; do
        _fi=$((_fi + 1)); [ $_fi -le 300 ] || fail "$_fc/$_fs: no new successful poll"; sleep 0.1
      done
    done
  done
}
