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
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_fleet svc.err
sim_pid=; svc_pid=
on_exit_stop svc_pid sim_pid
. "$(dirname "$0")/oracle_check.sh"
. "$(dirname "$0")/fleet_stack.sh"

printf 'fleet-kube-token-4e1a\n' > "$dir/ktok"
printf 'fleet-do-token-93c2\n' > "$dir/dtok"
fleet_sim_start "$dir" 7
[ -n "$east_id" ] || fail "no cluster id on spotsim's start line"
west_id=00000000-0000-4000-8000-00000000beef
fleet_kubeconfig "$dir" "east $east_https" "west 127.0.0.1:1"
fleet_ledger_start "$dir" --cluster "east=east@$east_id" --cluster "west=west@$west_id" \
  --cluster ghost=no-such-context

# the scenario is over when spotsim has written its truth (bounded: 120 s)
wait_files 120 "$dir/east.truth"
until=$(jq -r .until "$dir/east.truth")
start=$(jq -r .start "$dir/east.truth")
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
curl -sf --max-time 5 "$base/api/v1/status" > "$dir/status.json"
jq -e '.clusters | map(.name) == ["east", "west", "ghost"]' "$dir/status.json" >/dev/null ||
  fail "status does not list the three clusters: $(jq -c .clusters "$dir/status.json")"
jq -e --arg c "$east_id" '.clusters[0] | .do_cluster_id == $c and .kubernetes.watching
    and .kubernetes.status == "ok" and .digitalocean.watching and .digitalocean.status == "ok"' \
  "$dir/status.json" >/dev/null || fail "east is not ok: $(jq -c '.clusters[0]' "$dir/status.json")"
jq -e '.clusters[1] | .kubernetes.watching and .kubernetes.status == "error"
    and (.kubernetes.error | length > 0) and .kubernetes.last_success == null
    and .digitalocean.status == "error" and .digitalocean.last_success == null' \
  "$dir/status.json" >/dev/null || fail "west is not reported down: $(jq -c '.clusters[1]' "$dir/status.json")"
jq -e '.clusters[2] | (.kubernetes.watching | not)
    and (.kubernetes.not_watching_because | test("no-such-context"))
    and (.digitalocean.watching | not)
    and (.digitalocean.not_watching_because | test("no DigitalOcean cluster id"))' \
  "$dir/status.json" >/dev/null || fail "ghost's reasons: $(jq -c '.clusters[2]' "$dir/status.json")"
# 5000 requests/h and 250/min of the token, shared by east's and west's pollers
jq -e '.do_budget | .token_per_hour == 5000 and .pollers == 2 and .per_poller_per_hour == 2500
    and .per_poller_per_minute == 125' "$dir/status.json" >/dev/null ||
  fail "budget: $(jq -c .do_budget "$dir/status.json")"

# /metrics: the cluster label
curl -sf --max-time 5 "$base/metrics" > "$dir/metrics.txt"
for want in 'spotledger_cluster_up{cluster="east",source="k8s"} 1' \
    'spotledger_cluster_up{cluster="east",source="do"} 1' \
    'spotledger_cluster_up{cluster="west",source="k8s"} 0' \
    'spotledger_cluster_up{cluster="west",source="do"} 0' \
    'spotledger_cluster_up{cluster="ghost",source="k8s"} 0' \
    'spotledger_cluster_last_successful_poll_timestamp_seconds{cluster="west",source="k8s"} 0'; do
  grep -qxF "$want" "$dir/metrics.txt" || fail "/metrics lacks: $want"
done

# every cluster-scoped row is east's
for t in tasks attempts nodes node_pools; do
  n=$(sqlite3 "file:$dir/ledger.db?mode=ro" "SELECT count(*) FROM $t")
  other=$(sqlite3 "file:$dir/ledger.db?mode=ro" "SELECT count(*) FROM $t WHERE cluster != 'east'")
  [ "$n" -gt 0 ] || fail "no $t stored"
  [ "$other" -eq 0 ] || fail "$other $t rows are not east's"
done

# the figures: the independent oracle's truth of east's scenario, to the micro-dollar
w="window=$start,$until"
oracle_check "$base" "$w" "$dir/east.truth" "$dir/fleet" ||
  fail "the fleet's figures differ from the oracle's truth of east"
cp "$dir/fleet.summary" "$dir/summary.json"
# cluster=east is the fleet (west and ghost stored nothing); cluster=west is empty
curl -sf "$base/api/v1/summary?$w&cluster=east" | jq -S 'del(.now)' > "$dir/east.json"
jq -S 'del(.now)' "$dir/summary.json" | cmp -s - "$dir/east.json" ||
  fail "cluster=east differs from the fleet summary"
curl -sf "$base/api/v1/summary?$w&cluster=west" |
  jq -e '.nodes_total_cost == 0 and ([.configurations[] | .tasks_succeeded] | add) == 0' \
  >/dev/null || fail "cluster=west is not empty"
for tok in "$(cat "$dir/ktok")" "$(cat "$dir/dtok")"; do
  grep -q -- "$tok" "$dir/svc.err" "$dir/svc.out" "$dir/status.json" "$dir/metrics.txt" &&
    fail "a token reached the log or the API"
done
echo "e2e_fleet: east exact against the oracle ($(jq -r .nodes_total_cost "$dir/summary.json") nodes cost), west reported down, ghost reported unresolved, budget 2 x 2500/h"
