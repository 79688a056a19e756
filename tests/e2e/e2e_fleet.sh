#!/bin/sh
# e2e_fleet — a fleet with a cluster down (issue 22, docs/fleet.md): spotledger
# is started with three --cluster flags from one kubeconfig: "east" is spotsim
# (Kubernetes over HTTPS, its DigitalOcean cluster id given as CONTEXT@UUID),
# "west" points at a closed port with a cluster id DigitalOcean does not know
# (down: both its watcher and its poller fail), "ghost" names a context the
# kubeconfig does not have. The service starts, reports each cluster's state in
# /api/v1/status and /metrics, shares the token's budget between the two
# pollers, writes every row under "east", and its figures equal the
# independent oracle's truth of spotsim's scenario to the micro-dollar (the
# down cluster took nothing away and added nothing).
# POSIX sh, loopback only, bounded polls; kills only the processes it started.
set -eu
: "${SPOTLEDGER_BIN:?}" "${SPOTSIM_BIN:?}" "${SPOTLEDGER_ROOT:?}"
root=$SPOTLEDGER_ROOT
tmp=$(mktemp -d)
sim=; svc=
cleanup() {
  [ -n "$svc" ] && kill "$svc" 2>/dev/null && wait "$svc" 2>/dev/null
  [ -n "$sim" ] && kill "$sim" 2>/dev/null && wait "$sim" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { [ -f "$tmp/svc.err" ] && tail -20 "$tmp/svc.err" >&2; echo "e2e_fleet: $*" >&2; exit 1; }
. "$(dirname "$0")/settle.sh"
. "$(dirname "$0")/oracle_check.sh"

printf 'fleet-kube-token-4e1a\n' > "$tmp/ktok"
printf 'fleet-do-token-93c2\n' > "$tmp/dtok"
"$SPOTSIM_BIN" --scenario "$root/tests/fixtures/sim/small.json" --seed 7 --speed 1440 --hold \
  --listen 127.0.0.1:0 --kube-deletion-timestamps --tls-cert-out "$tmp/ca.pem" \
  --truth "$tmp/truth.json" --rate-limit 0 --kube-token-file "$tmp/ktok" \
  --do-token-file "$tmp/dtok" > "$tmp/sim.out" 2> "$tmp/sim.err" &
sim=$!
i=0
while ! grep -q '^spotsim: http ' "$tmp/sim.out" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 200 ] || fail "spotsim did not start"; sleep 0.05
done
http=$(awk '/^spotsim: http /{print $3}' "$tmp/sim.out")
https=$(awk '/^spotsim: http /{print $5}' "$tmp/sim.out")
cluster=$(awk '/^spotsim: http /{print $7}' "$tmp/sim.out")
[ -n "$cluster" ] || fail "no cluster id on spotsim's start line"
west_id=00000000-0000-4000-8000-00000000beef

cat > "$tmp/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: east
  cluster:
    server: https://$https
    certificate-authority: $tmp/ca.pem
- name: west
  cluster:
    server: https://127.0.0.1:1
    certificate-authority: $tmp/ca.pem
users:
- name: sim
  user:
    token: $(cat "$tmp/ktok")
contexts:
- name: east
  context: {cluster: east, user: sim}
- name: west
  context: {cluster: west, user: sim}
current-context: east
KC

"$SPOTLEDGER_BIN" --listen 127.0.0.1:0 --db "$tmp/ledger.db" --kubeconfig "$tmp/kubeconfig" \
  --cluster "east=east@$cluster" --cluster "west=west@$west_id" --cluster ghost=no-such-context \
  --do-api-url "http://$http" --do-token-file "$tmp/dtok" --poll-interval 1 \
  --billing-interval 2 > "$tmp/svc.out" 2> "$tmp/svc.err" &
svc=$!
i=0
while ! grep -q '^spotledger: listening on ' "$tmp/svc.out" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "spotledger did not start"; sleep 0.05
done
base="http://$(awk '/^spotledger: listening on /{print $4}' "$tmp/svc.out")"

# the scenario is over when spotsim has written its truth (bounded: 120 s)
i=0
while [ ! -s "$tmp/truth.json" ]; do
  i=$((i + 1)); [ $i -le 1200 ] || fail "spotsim did not finish in 120 s"; sleep 0.1
done
until=$(jq -r .until "$tmp/truth.json")
start=$(jq -r .start "$tmp/truth.json")
# east's sources (the only live ones) reach the end of the scenario...
i=0
while :; do
  st=$(curl -sf --max-time 5 "$base/api/v1/status" || echo '{}')
  if echo "$st" | jq -e --arg u "$until" '.clusters[] | select(.name == "east")
      | (.kubernetes.source_time == $u) and (.digitalocean.source_time == $u)' >/dev/null &&
     echo "$st" | jq -e --arg u "$until" \
       '.sources[] | select(.source == "do_billing") | .source_time == $u' >/dev/null; then
    break
  fi
  i=$((i + 1)); [ $i -le 600 ] || fail "east did not catch up in 60 s: $st"; sleep 0.1
done
# ...and read the final state twice more (the down cluster never succeeds, so
# the latest success of each source is east's)
settle "$base" "do k8s do_billing" 30 || fail "no second poll of the final state"

# status: each cluster's state, the shared budget
curl -sf --max-time 5 "$base/api/v1/status" > "$tmp/status.json"
jq -e '.clusters | map(.name) == ["east", "west", "ghost"]' "$tmp/status.json" >/dev/null ||
  fail "status does not list the three clusters: $(jq -c .clusters "$tmp/status.json")"
jq -e --arg c "$cluster" '.clusters[0] | .do_cluster_id == $c and .kubernetes.watching
    and .kubernetes.status == "ok" and .digitalocean.watching and .digitalocean.status == "ok"' \
  "$tmp/status.json" >/dev/null || fail "east is not ok: $(jq -c '.clusters[0]' "$tmp/status.json")"
jq -e '.clusters[1] | .kubernetes.watching and .kubernetes.status == "error"
    and (.kubernetes.error | length > 0) and .kubernetes.last_success == null
    and .digitalocean.status == "error" and .digitalocean.last_success == null' \
  "$tmp/status.json" >/dev/null || fail "west is not reported down: $(jq -c '.clusters[1]' "$tmp/status.json")"
jq -e '.clusters[2] | (.kubernetes.watching | not)
    and (.kubernetes.not_watching_because | test("no-such-context"))
    and (.digitalocean.watching | not)
    and (.digitalocean.not_watching_because | test("no DigitalOcean cluster id"))' \
  "$tmp/status.json" >/dev/null || fail "ghost's reasons: $(jq -c '.clusters[2]' "$tmp/status.json")"
# 5000 requests/h and 250/min of the token, shared by east's and west's pollers
jq -e '.do_budget | .token_per_hour == 5000 and .pollers == 2 and .per_poller_per_hour == 2500
    and .per_poller_per_minute == 125' "$tmp/status.json" >/dev/null ||
  fail "budget: $(jq -c .do_budget "$tmp/status.json")"

# /metrics: the cluster label
curl -sf --max-time 5 "$base/metrics" > "$tmp/metrics.txt"
for want in 'spotledger_cluster_up{cluster="east",source="k8s"} 1' \
    'spotledger_cluster_up{cluster="east",source="do"} 1' \
    'spotledger_cluster_up{cluster="west",source="k8s"} 0' \
    'spotledger_cluster_up{cluster="west",source="do"} 0' \
    'spotledger_cluster_up{cluster="ghost",source="k8s"} 0' \
    'spotledger_cluster_last_successful_poll_timestamp_seconds{cluster="west",source="k8s"} 0'; do
  grep -qxF "$want" "$tmp/metrics.txt" || fail "/metrics lacks: $want"
done

# every cluster-scoped row is east's
for t in tasks attempts nodes node_pools; do
  n=$(sqlite3 "file:$tmp/ledger.db?mode=ro" "SELECT count(*) FROM $t")
  other=$(sqlite3 "file:$tmp/ledger.db?mode=ro" "SELECT count(*) FROM $t WHERE cluster != 'east'")
  [ "$n" -gt 0 ] || fail "no $t stored"
  [ "$other" -eq 0 ] || fail "$other $t rows are not east's"
done

# the figures: the independent oracle's truth of east's scenario, to the micro-dollar
w="window=$start,$until"
oracle_check "$base" "$w" "$tmp/truth.json" "$tmp/fleet" ||
  fail "the fleet's figures differ from the oracle's truth of east"
cp "$tmp/fleet.summary" "$tmp/summary.json"
# cluster=east is the fleet (west and ghost stored nothing); cluster=west is empty
curl -sf "$base/api/v1/summary?$w&cluster=east" | jq -S 'del(.now)' > "$tmp/east.json"
jq -S 'del(.now)' "$tmp/summary.json" | cmp -s - "$tmp/east.json" ||
  fail "cluster=east differs from the fleet summary"
curl -sf "$base/api/v1/summary?$w&cluster=west" |
  jq -e '.nodes_total_cost == 0 and ([.configurations[] | .tasks_succeeded] | add) == 0' \
  >/dev/null || fail "cluster=west is not empty"
for tok in "$(cat "$tmp/ktok")" "$(cat "$tmp/dtok")"; do
  grep -q -- "$tok" "$tmp/svc.err" "$tmp/svc.out" "$tmp/status.json" "$tmp/metrics.txt" &&
    fail "a token reached the log or the API"
done
echo "e2e_fleet: east exact against the oracle ($(jq -r .nodes_total_cost "$tmp/summary.json") nodes cost), west reported down, ghost reported unresolved, budget 2 x 2500/h"
