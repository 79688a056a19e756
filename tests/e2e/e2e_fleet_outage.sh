#!/bin/sh
# e2e_fleet_outage — three simulated clusters of one account, one of them losing
# its Kubernetes API mid-run (issue 22, docs/fleet.md). spotsim plays "east"
# (tests/fixtures/sim/small.json, tor1, reclaim after 2 h), "west" (ams3, its own
# ids and pool names, reclaim after 5 h) and "south" (sgp1, reclaim after 3 h);
# --cluster-down stops south's Kubernetes API at 6 h of the 12 h run (its ports
# close; the DigitalOcean API, on the first port, still answers for it).
# spotledger watches all three through one kubeconfig. Then:
#   - south is reported down: status.clusters[south].kubernetes is "error" with
#     an error, its last success before the outage; spotledger_cluster_up is 0
#     for south/k8s and 1 for every other cluster and source;
#   - east and west equal their own independent oracle truth to the micro-dollar
#     (summary, nodes, pools, reclaims: oracle_check.sh), south's outage took
#     nothing from them;
#   - the fleet's node, allocated and idle cost equal the sums of the three
#     clusters' figures, and aggregate=cluster answers each cluster= summary;
#   - the DigitalOcean budget is shared by the three pollers (status.do_budget);
#   - spotsim's one DigitalOcean account bills every cluster: the invoice
#     preview's items are the three truths' billed nodes (droplet id, amount in
#     cents), its amount their sum; reconciliation?cluster=east and west each
#     estimate their truth's billed_total, the fleet's the three truths' sum,
#     nothing unexplained.
# (Two clusters without an outage: e2e_fleet_sim.sh; clusters down from the
# start: e2e_fleet.sh.)
# POSIX sh, loopback only, bounded polls (about 55 s under ASan on the shared 2
# cores); kills only the
# processes it started.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_fleet_outage svc.err
sim_pid=; svc_pid=
on_exit_stop svc_pid sim_pid
. "$(dirname "$0")/oracle_check.sh"
. "$(dirname "$0")/fleet_stack.sh"

west_id=7b3d9c1a-2e4f-4a6b-8c0d-1e2f3a4b5c6e
south_id=9e5f1d3b-4a6c-4b8d-9f0e-2a3b4c5d6e7f
printf 'outage-kube-token-52aa\n' > "$dir/ktok"
printf 'outage-do-token-e81f\n' > "$dir/dtok"
jq --arg id "$west_id" '.cluster = {"id": $id, "name": "sim-west", "region": "ams3"}
    | .pools |= map(.name = "west-" + .name
                    | if .id then .id = "8c4e0d2b-3f5a-4b7c-9d1e-2f3a4b5c6d7f" else . end)
    | .reclaims = [{"pool": "west-gpu-spot", "after": "5h"}]' \
  "$root/tests/fixtures/sim/small.json" > "$dir/west.json"
jq --arg id "$south_id" '.cluster = {"id": $id, "name": "sim-south", "region": "sgp1"}
    | .pools |= map(.name = "south-" + .name
                    | if .id then .id = "0a6b2e4c-5d7f-4c9e-8a1b-3c4d5e6f7a8b" else . end)
    | .reclaims = [{"pool": "south-gpu-spot", "after": "3h"}]' \
  "$root/tests/fixtures/sim/small.json" > "$dir/south.json"
fleet_sim_start "$dir" 11 --also-cluster "$dir/west.json:$dir/west.truth" \
  --also-cluster "$dir/south.json:$dir/south.truth" --cluster-down "$south_id@6h"
west_https=$(sim_cluster_https "$dir" "$west_id")
south_https=$(sim_cluster_https "$dir" "$south_id")
[ -n "$west_https" ] && [ -n "$south_https" ] || fail "the cluster lines: $(cat "$dir/sim.out")"
fleet_kubeconfig "$dir" "east $east_https" "west $west_https" "south $south_https"
fleet_ledger_start "$dir" --cluster "east=east@$east_id" --cluster "west=west@$west_id" \
  --cluster "south=south@$south_id"

wait_files 120 "$dir/east.truth" "$dir/west.truth" "$dir/south.truth"
grep -q "^spotsim: cluster $south_id down at 2026-11-09T06:" "$dir/sim.out" ||
  fail "south did not go down at 6 h: $(cat "$dir/sim.out")"
until=$(jq -r .until "$dir/east.truth")
start=$(jq -r .start "$dir/east.truth")
st() { curl -sf --max-time 5 "$base/api/v1/status" || echo '{"clusters":[]}'; }
cl() { jq --arg c "$1" '.clusters[] | select(.name == $c)'; }
# east and west read the final state; south's watcher has failed since the outage
i=0
while :; do
  st > "$dir/status.json"
  if jq -e --arg u "$until" '[.clusters[] | select(.name != "south")
      | (.kubernetes.source_time == $u) and (.digitalocean.source_time == $u)]
      | length == 2 and all' "$dir/status.json" >/dev/null &&
    cl south < "$dir/status.json" | jq -e '.kubernetes.status == "error"' >/dev/null; then
    break
  fi
  i=$((i + 1)); [ $i -le 600 ] || fail "the clusters did not settle in 60 s: $(cat "$dir/status.json")"
  sleep 0.1
done
# the final state read twice more by each live cluster's watcher and poller
for round in 1 2; do
  for c in east west; do
    for side in kubernetes digitalocean; do
      b=$(st | cl "$c" | jq -r --arg s "$side" '.[$s].last_success')
      i=0
      until st | cl "$c" | jq -e --arg s "$side" --arg b "$b" '.[$s].last_success > $b' >/dev/null; do
        i=$((i + 1)); [ $i -le 300 ] || fail "$c/$side: no new successful poll (round $round)"; sleep 0.1
      done
    done
  done
done

settle "$base" "do_billing" 30 || fail "no second billing poll of the final state"

# --- south is reported down, the others up ---------------------------------------
st > "$dir/status.json"
cl south < "$dir/status.json" | jq -e --arg u "$until" '.kubernetes.watching
    and .kubernetes.status == "error" and (.kubernetes.error | length > 0)
    and .kubernetes.last_success != null and .kubernetes.source_time < $u
    and .digitalocean.status == "ok"' >/dev/null ||
  fail "south is not reported down: $(cl south < "$dir/status.json" | jq -c .)"
for c in east west; do
  cl "$c" < "$dir/status.json" | jq -e '.kubernetes.status == "ok" and .digitalocean.status == "ok"' \
    >/dev/null || fail "$c is not reported up: $(cl "$c" < "$dir/status.json" | jq -c .)"
done
# one token, three pollers: each paces itself to a third of 5,000/h
jq -e '.do_budget | .token_per_hour == 5000 and .pollers == 3
    and .per_poller_per_hour * 3 <= 5000 and .per_poller_per_hour * 3 > 4990' \
  "$dir/status.json" >/dev/null || fail "budget: $(jq -c .do_budget "$dir/status.json")"
curl -sf "$base/metrics" > "$dir/metrics" || fail "no /metrics"
for want in 'spotledger_cluster_up{cluster="east",source="k8s"} 1' \
    'spotledger_cluster_up{cluster="east",source="do"} 1' \
    'spotledger_cluster_up{cluster="west",source="k8s"} 1' \
    'spotledger_cluster_up{cluster="west",source="do"} 1' \
    'spotledger_cluster_up{cluster="south",source="k8s"} 0' \
    'spotledger_cluster_up{cluster="south",source="do"} 1'; do
  grep -qxF "$want" "$dir/metrics" || fail "/metrics lacks: $want ($(grep cluster_up "$dir/metrics"))"
done

# --- the account's one invoice bills every cluster's nodes -------------------------
# (spotsim's DigitalOcean API: the invoice preview of the month and its items
# against the three truths' nodes: droplet id and billed amount, in whole cents
# rounded half away from zero as an invoice shows each item)
dget() { curl -sf -H "Authorization: Bearer $(cat "$dir/dtok")" "http://$http$1"; }
dget /v2/customers/my/invoices > "$dir/invoices.json" || fail "no invoice list from spotsim"
uuid=$(jq -r .invoice_preview.invoice_uuid "$dir/invoices.json")
dget "/v2/customers/my/invoices/$uuid?per_page=200" > "$dir/items.json" || fail "no invoice items"
jq -n --slurpfile a "$dir/east.truth" --slurpfile b "$dir/west.truth" --slurpfile c "$dir/south.truth" \
  '[$a[0], $b[0], $c[0]] | map(.nodes[] | {droplet_id, cents: ((.billed * 1000000 | round) as $m
      | (($m + 5000) / 10000 | floor))} | select(.cents > 0)) | sort_by(.droplet_id)' > "$dir/want.items"
jq '[.invoice_items[] | {droplet_id: .resource_id, cents: (.amount | tonumber * 100 | round)}]
    | sort_by(.droplet_id)' "$dir/items.json" > "$dir/got.items"
[ "$(jq 'map(.droplet_id) | unique | length' "$dir/want.items")" -ge 9 ] ||
  fail "the truths bill fewer nodes than expected: $(cat "$dir/want.items")"
cmp -s "$dir/want.items" "$dir/got.items" ||
  fail "the invoice's items are not the three clusters' billed nodes: $(diff "$dir/want.items" "$dir/got.items" | head -20)"
want=$(jq 'map(.cents) | add' "$dir/want.items")
got=$(jq '.invoice_preview.amount | tonumber * 100 | round' "$dir/invoices.json")
[ "$want" = "$got" ] || fail "invoice preview $got cents != the three clusters' $want"

# --- the live clusters are exact, the fleet is the sum ----------------------------
w="window=$start,$until"
for c in east west; do
  oracle_check "$base" "$w&cluster=$c" "$dir/$c.truth" "$dir/$c" ||
    fail "cluster=$c differs from its oracle truth"
done
# each live cluster's reconciliation against the one invoice: the estimate is
# that cluster's truth billed_total exactly, the rest is rounding (under half a
# cent per item), nothing unexplained
for c in east west; do
  jq -e --slurpfile t "$dir/$c.truth" '.reconciliation[0].lines[-1]
      | (.estimated * 1000000 | round) == ($t[0].billed_total * 1000000 | round)
        and .unexplained == 0 and .items > 0
        and ((.rounding * 1000000 | round | fabs) <= .items * 5000)' "$dir/$c.summary" >/dev/null ||
    fail "cluster=$c: reconciliation $(jq -c '.reconciliation[0].lines[-1]' "$dir/$c.summary"), truth billed $(jq .billed_total "$dir/$c.truth")"
done
curl -sf "$base/api/v1/summary?$w&cluster=south" > "$dir/south.summary" || fail "cluster=south"
jq -e '.nodes_total_cost > 0' "$dir/south.summary" >/dev/null || fail "south has no node cost"
curl -sf "$base/api/v1/summary?$w" > "$dir/fleet.summary"
# the fleet's reconciliation (every cluster, south's nodes known from
# DigitalOcean through its outage): the estimate is the three truths' billed
jq -e --slurpfile a "$dir/east.truth" --slurpfile b "$dir/west.truth" --slurpfile c "$dir/south.truth" \
  '.reconciliation[0].lines[-1] | (.estimated * 1000000 | round)
      == ([$a[0], $b[0], $c[0]] | map(.billed_total * 1000000 | round) | add)
    and .unexplained == 0' "$dir/fleet.summary" >/dev/null ||
  fail "the fleet's reconciliation $(jq -c '.reconciliation[0].lines[-1]' "$dir/fleet.summary"), truths $(jq -s 'map(.billed_total)' "$dir/east.truth" "$dir/west.truth" "$dir/south.truth" | tr -d ' \n')"
for k in nodes_total_cost allocated_cost idle_cost; do
  sum=$(jq -n --slurpfile a "$dir/east.summary" --slurpfile b "$dir/west.summary" \
    --slurpfile c "$dir/south.summary" \
    "(\$a[0].$k * 1000000 | round) + (\$b[0].$k * 1000000 | round) + (\$c[0].$k * 1000000 | round)")
  got=$(jq ".$k * 1000000 | round" "$dir/fleet.summary")
  [ "$sum" = "$got" ] || fail "fleet $k $got != east + west + south $sum"
done
curl -sf "$base/api/v1/summary?$w&aggregate=cluster" > "$dir/agg.json" || fail "aggregate=cluster"
jq -e '[.clusters[].cluster] == ["east", "south", "west"]' "$dir/agg.json" >/dev/null ||
  fail "aggregate=cluster lists $(jq -c '[.clusters[].cluster]' "$dir/agg.json")"
for c in east west south; do
  jq -e --arg c "$c" --slurpfile one "$dir/$c.summary" '.clusters[] | select(.cluster == $c)
      | .summary.nodes_total_cost == $one[0].nodes_total_cost
        and .summary.allocated_cost == $one[0].allocated_cost
        and .summary.idle_cost == $one[0].idle_cost' "$dir/agg.json" >/dev/null ||
    fail "aggregate=cluster's $c differs from cluster=$c"
done
echo "e2e_fleet_outage: south down at 6 h (reported in status and /metrics); east $(jq .nodes_total_cost "$dir/east.summary") and west $(jq .nodes_total_cost "$dir/west.summary") exact against their oracles; fleet = east + west + south"
