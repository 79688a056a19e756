# fleet_stack.sh — sourced by the e2e scripts (not a test itself).
#
# fleet_stack_start TMP [SPOTLEDGER ARGS...]
#   Two simulated clusters of one account (issue 22, docs/fleet.md): spotsim
#   plays "east" (tests/fixtures/sim/small.json, tor1, reclaim after 2 h) and,
#   with --also-cluster, "west" (the same workloads in ams3 with its own ids,
#   pool names, experiment labels ("west-" + east's: TMP/west.json) and a
#   reclaim after 5 h, its own seed), each with its own
#   Kubernetes API port and its own ground truth (TMP/east.truth,
#   TMP/west.truth); the first port's DigitalOcean API serves both. spotledger
#   watches both through one kubeconfig (extra ARGS appended). Returns once
#   both truths are written, both clusters' sources have reached the end of
#   the scenario and each has polled the final state again. Sets $sim, $svc
#   (the pids: the caller's cleanup kills them), $base, $start and $until.
#   Needs $SPOTSIM_BIN, $SPOTLEDGER_BIN, $root, a fail() and settle.sh sourced.
#   Loopback only; every wait is bounded.
fleet_stack_start() {
  _ft=$1; shift
  printf 'fleet-kube-token-71d0\n' > "$_ft/ktok"
  printf 'fleet-do-token-c3e9\n' > "$_ft/dtok"
  jq '.cluster = {"id": "7b3d9c1a-2e4f-4a6b-8c0d-1e2f3a4b5c6e", "name": "sim-west", "region": "ams3"}
      | .pools |= map(.name = "west-" + .name
                      | if .id then .id = "8c4e0d2b-3f5a-4b7c-9d1e-2f3a4b5c6d7f" else . end)
      | .workloads |= map(if .experiment then .experiment = "west-" + .experiment else . end)
      | .reclaims = [{"pool": "west-gpu-spot", "after": "5h"}]' \
    "$root/tests/fixtures/sim/small.json" > "$_ft/west.json"
  "$SPOTSIM_BIN" --scenario "$root/tests/fixtures/sim/small.json" --seed 7 --speed 1440 --hold \
    --listen 127.0.0.1:0 --kube-deletion-timestamps --tls-cert-out "$_ft/ca.pem" \
    --truth "$_ft/east.truth" --also-cluster "$_ft/west.json:$_ft/west.truth" --rate-limit 0 \
    --kube-token-file "$_ft/ktok" --do-token-file "$_ft/dtok" > "$_ft/sim.out" 2> "$_ft/sim.err" &
  sim=$!
  _fi=0
  while ! grep -q '^spotsim: cluster http ' "$_ft/sim.out" 2>/dev/null; do
    _fi=$((_fi + 1)); [ $_fi -lt 200 ] || fail "spotsim did not start: $(cat "$_ft/sim.err")"; sleep 0.05
  done
  _fhttp=$(awk '/^spotsim: http /{print $3}' "$_ft/sim.out")
  _feast_https=$(awk '/^spotsim: http /{print $5}' "$_ft/sim.out")
  _feast_id=$(awk '/^spotsim: http /{print $7}' "$_ft/sim.out")
  _fwest_https=$(awk '/^spotsim: cluster http /{print $6}' "$_ft/sim.out")
  _fwest_id=$(awk '/^spotsim: cluster http /{print $8}' "$_ft/sim.out")
  [ "$_fwest_id" = 7b3d9c1a-2e4f-4a6b-8c0d-1e2f3a4b5c6e ] || fail "west's line: $(cat "$_ft/sim.out")"

  cat > "$_ft/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: east
  cluster: {server: "https://$_feast_https", certificate-authority: "$_ft/ca.pem"}
- name: west
  cluster: {server: "https://$_fwest_https", certificate-authority: "$_ft/ca.pem"}
users:
- name: sim
  user: {token: $(cat "$_ft/ktok")}
contexts:
- name: east
  context: {cluster: east, user: sim}
- name: west
  context: {cluster: west, user: sim}
current-context: east
KC
  "$SPOTLEDGER_BIN" --listen 127.0.0.1:0 --db "$_ft/ledger.db" --kubeconfig "$_ft/kubeconfig" \
    --cluster "east=east@$_feast_id" --cluster "west=west@$_fwest_id" \
    --do-api-url "http://$_fhttp" --do-token-file "$_ft/dtok" --poll-interval 1 \
    --billing-interval 2 "$@" > "$_ft/svc.out" 2> "$_ft/svc.err" &
  svc=$!
  _fi=0
  while ! grep -q '^spotledger: listening on ' "$_ft/svc.out" 2>/dev/null; do
    _fi=$((_fi + 1)); [ $_fi -lt 300 ] || fail "spotledger did not start"; sleep 0.05
  done
  base="http://$(awk '/^spotledger: listening on /{print $4}' "$_ft/svc.out")"

  _fi=0
  while [ ! -s "$_ft/east.truth" ] || [ ! -s "$_ft/west.truth" ]; do
    _fi=$((_fi + 1)); [ $_fi -le 1200 ] || fail "spotsim did not finish in 120 s"; sleep 0.1
  done
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
