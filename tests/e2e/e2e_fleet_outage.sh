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
fail() { [ -f "$tmp/svc.err" ] && tail -20 "$tmp/svc.err" >&2; echo "e2e_fleet_outage: $*" >&2; exit 1; }
. "$(dirname "$0")/oracle_check.sh"
. "$(dirname "$0")/settle.sh"

west_id=7b3d9c1a-2e4f-4a6b-8c0d-1e2f3a4b5c6e
south_id=9e5f1d3b-4a6c-4b8d-9f0e-2a3b4c5d6e7f
printf 'outage-kube-token-52aa\n' > "$tmp/ktok"
printf 'outage-do-token-e81f\n' > "$tmp/dtok"
jq --arg id "$west_id" '.cluster = {"id": $id, "name": "sim-west", "region": "ams3"}
    | .pools |= map(.name = "west-" + .name
                    | if .id then .id = "8c4e0d2b-3f5a-4b7c-9d1e-2f3a4b5c6d7f" else . end)
    | .reclaims = [{"pool": "west-gpu-spot", "after": "5h"}]' \
  "$root/tests/fixtures/sim/small.json" > "$tmp/west.json"
jq --arg id "$south_id" '.cluster = {"id": $id, "name": "sim-south", "region": "sgp1"}
    | .pools |= map(.name = "south-" + .name
                    | if .id then .id = "0a6b2e4c-5d7f-4c9e-8a1b-3c4d5e6f7a8b" else . end)
    | .reclaims = [{"pool": "south-gpu-spot", "after": "3h"}]' \
  "$root/tests/fixtures/sim/small.json" > "$tmp/south.json"
"$SPOTSIM_BIN" --scenario "$root/tests/fixtures/sim/small.json" --seed 11 --speed 1440 --hold \
  --listen 127.0.0.1:0 --kube-deletion-timestamps --tls-cert-out "$tmp/ca.pem" \
  --truth "$tmp/east.truth" --also-cluster "$tmp/west.json:$tmp/west.truth" \
  --also-cluster "$tmp/south.json:$tmp/south.truth" --cluster-down "$south_id@6h" \
  --rate-limit 0 --kube-token-file "$tmp/ktok" --do-token-file "$tmp/dtok" \
  > "$tmp/sim.out" 2> "$tmp/sim.err" &
sim=$!
i=0
while [ "$(grep -c '^spotsim: cluster http ' "$tmp/sim.out" 2>/dev/null)" != 2 ]; do
  i=$((i + 1)); [ $i -lt 200 ] || fail "spotsim did not start: $(cat "$tmp/sim.err")"; sleep 0.05
done
http=$(awk '/^spotsim: http /{print $3}' "$tmp/sim.out")
east_https=$(awk '/^spotsim: http /{print $5}' "$tmp/sim.out")
east_id=$(awk '/^spotsim: http /{print $7}' "$tmp/sim.out")
west_https=$(awk -v id="$west_id" '/^spotsim: cluster http / && $8 == id {print $6}' "$tmp/sim.out")
south_https=$(awk -v id="$south_id" '/^spotsim: cluster http / && $8 == id {print $6}' "$tmp/sim.out")
[ -n "$west_https" ] && [ -n "$south_https" ] || fail "the cluster lines: $(cat "$tmp/sim.out")"

{
  echo "apiVersion: v1"
  echo "kind: Config"
  echo "clusters:"
  for c in "east $east_https" "west $west_https" "south $south_https"; do
    set -- $c
    echo "- name: $1"
    echo "  cluster: {server: \"https://$2\", certificate-authority: \"$tmp/ca.pem\"}"
  done
  echo "users:"
  echo "- name: sim"
  echo "  user: {token: $(cat "$tmp/ktok")}"
  echo "contexts:"
  for c in east west south; do
    echo "- name: $c"
    echo "  context: {cluster: $c, user: sim}"
  done
  echo "current-context: east"
} > "$tmp/kubeconfig"
"$SPOTLEDGER_BIN" --listen 127.0.0.1:0 --db "$tmp/ledger.db" --kubeconfig "$tmp/kubeconfig" \
  --cluster "east=east@$east_id" --cluster "west=west@$west_id" \
  --cluster "south=south@$south_id" \
  --do-api-url "http://$http" --do-token-file "$tmp/dtok" --poll-interval 1 \
  --billing-interval 2 > "$tmp/svc.out" 2> "$tmp/svc.err" &
svc=$!
i=0
while ! grep -q '^spotledger: listening on ' "$tmp/svc.out" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "spotledger did not start"; sleep 0.05
done
base="http://$(awk '/^spotledger: listening on /{print $4}' "$tmp/svc.out")"

i=0
while [ ! -s "$tmp/east.truth" ] || [ ! -s "$tmp/west.truth" ] || [ ! -s "$tmp/south.truth" ]; do
  i=$((i + 1)); [ $i -le 1200 ] || fail "spotsim did not finish in 120 s"; sleep 0.1
done
grep -q "^spotsim: cluster $south_id down at 2026-11-09T06:" "$tmp/sim.out" ||
  fail "south did not go down at 6 h: $(cat "$tmp/sim.out")"
until=$(jq -r .until "$tmp/east.truth")
start=$(jq -r .start "$tmp/east.truth")
st() { curl -sf --max-time 5 "$base/api/v1/status" || echo '{"clusters":[]}'; }
cl() { jq --arg c "$1" '.clusters[] | select(.name == $c)'; }
# east and west read the final state; south's watcher has failed since the outage
i=0
while :; do
  st > "$tmp/status.json"
  if jq -e --arg u "$until" '[.clusters[] | select(.name != "south")
      | (.kubernetes.source_time == $u) and (.digitalocean.source_time == $u)]
      | length == 2 and all' "$tmp/status.json" >/dev/null &&
    cl south < "$tmp/status.json" | jq -e '.kubernetes.status == "error"' >/dev/null; then
    break
  fi
  i=$((i + 1)); [ $i -le 600 ] || fail "the clusters did not settle in 60 s: $(cat "$tmp/status.json")"
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
st > "$tmp/status.json"
cl south < "$tmp/status.json" | jq -e --arg u "$until" '.kubernetes.watching
    and .kubernetes.status == "error" and (.kubernetes.error | length > 0)
    and .kubernetes.last_success != null and .kubernetes.source_time < $u
    and .digitalocean.status == "ok"' >/dev/null ||
  fail "south is not reported down: $(cl south < "$tmp/status.json" | jq -c .)"
for c in east west; do
  cl "$c" < "$tmp/status.json" | jq -e '.kubernetes.status == "ok" and .digitalocean.status == "ok"' \
    >/dev/null || fail "$c is not reported up: $(cl "$c" < "$tmp/status.json" | jq -c .)"
done
# one token, three pollers: each paces itself to a third of 5,000/h
jq -e '.do_budget | .token_per_hour == 5000 and .pollers == 3
    and .per_poller_per_hour * 3 <= 5000 and .per_poller_per_hour * 3 > 4990' \
  "$tmp/status.json" >/dev/null || fail "budget: $(jq -c .do_budget "$tmp/status.json")"
curl -sf "$base/metrics" > "$tmp/metrics" || fail "no /metrics"
for want in 'spotledger_cluster_up{cluster="east",source="k8s"} 1' \
    'spotledger_cluster_up{cluster="east",source="do"} 1' \
    'spotledger_cluster_up{cluster="west",source="k8s"} 1' \
    'spotledger_cluster_up{cluster="west",source="do"} 1' \
    'spotledger_cluster_up{cluster="south",source="k8s"} 0' \
    'spotledger_cluster_up{cluster="south",source="do"} 1'; do
  grep -qxF "$want" "$tmp/metrics" || fail "/metrics lacks: $want ($(grep cluster_up "$tmp/metrics"))"
done

# --- the account's one invoice bills every cluster's nodes -------------------------
# (spotsim's DigitalOcean API: the invoice preview of the month and its items
# against the three truths' nodes: droplet id and billed amount, in whole cents
# rounded half away from zero as an invoice shows each item)
dget() { curl -sf -H "Authorization: Bearer $(cat "$tmp/dtok")" "http://$http$1"; }
dget /v2/customers/my/invoices > "$tmp/invoices.json" || fail "no invoice list from spotsim"
uuid=$(jq -r .invoice_preview.invoice_uuid "$tmp/invoices.json")
dget "/v2/customers/my/invoices/$uuid?per_page=200" > "$tmp/items.json" || fail "no invoice items"
jq -n --slurpfile a "$tmp/east.truth" --slurpfile b "$tmp/west.truth" --slurpfile c "$tmp/south.truth" \
  '[$a[0], $b[0], $c[0]] | map(.nodes[] | {droplet_id, cents: ((.billed * 1000000 | round) as $m
      | (($m + 5000) / 10000 | floor))} | select(.cents > 0)) | sort_by(.droplet_id)' > "$tmp/want.items"
jq '[.invoice_items[] | {droplet_id: .resource_id, cents: (.amount | tonumber * 100 | round)}]
    | sort_by(.droplet_id)' "$tmp/items.json" > "$tmp/got.items"
[ "$(jq 'map(.droplet_id) | unique | length' "$tmp/want.items")" -ge 9 ] ||
  fail "the truths bill fewer nodes than expected: $(cat "$tmp/want.items")"
cmp -s "$tmp/want.items" "$tmp/got.items" ||
  fail "the invoice's items are not the three clusters' billed nodes: $(diff "$tmp/want.items" "$tmp/got.items" | head -20)"
want=$(jq 'map(.cents) | add' "$tmp/want.items")
got=$(jq '.invoice_preview.amount | tonumber * 100 | round' "$tmp/invoices.json")
[ "$want" = "$got" ] || fail "invoice preview $got cents != the three clusters' $want"

# --- the live clusters are exact, the fleet is the sum ----------------------------
w="window=$start,$until"
for c in east west; do
  oracle_check "$base" "$w&cluster=$c" "$tmp/$c.truth" "$tmp/$c" ||
    fail "cluster=$c differs from its oracle truth"
done
# each live cluster's reconciliation against the one invoice: the estimate is
# that cluster's truth billed_total exactly, the rest is rounding (under half a
# cent per item), nothing unexplained
for c in east west; do
  jq -e --slurpfile t "$tmp/$c.truth" '.reconciliation[0].lines[-1]
      | (.estimated * 1000000 | round) == ($t[0].billed_total * 1000000 | round)
        and .unexplained == 0 and .items > 0
        and ((.rounding * 1000000 | round | fabs) <= .items * 5000)' "$tmp/$c.summary" >/dev/null ||
    fail "cluster=$c: reconciliation $(jq -c '.reconciliation[0].lines[-1]' "$tmp/$c.summary"), truth billed $(jq .billed_total "$tmp/$c.truth")"
done
curl -sf "$base/api/v1/summary?$w&cluster=south" > "$tmp/south.summary" || fail "cluster=south"
jq -e '.nodes_total_cost > 0' "$tmp/south.summary" >/dev/null || fail "south has no node cost"
curl -sf "$base/api/v1/summary?$w" > "$tmp/fleet.summary"
# the fleet's reconciliation (every cluster, south's nodes known from
# DigitalOcean through its outage): the estimate is the three truths' billed
jq -e --slurpfile a "$tmp/east.truth" --slurpfile b "$tmp/west.truth" --slurpfile c "$tmp/south.truth" \
  '.reconciliation[0].lines[-1] | (.estimated * 1000000 | round)
      == ([$a[0], $b[0], $c[0]] | map(.billed_total * 1000000 | round) | add)
    and .unexplained == 0' "$tmp/fleet.summary" >/dev/null ||
  fail "the fleet's reconciliation $(jq -c '.reconciliation[0].lines[-1]' "$tmp/fleet.summary"), truths $(jq -s 'map(.billed_total)' "$tmp/east.truth" "$tmp/west.truth" "$tmp/south.truth" | tr -d ' \n')"
for k in nodes_total_cost allocated_cost idle_cost; do
  sum=$(jq -n --slurpfile a "$tmp/east.summary" --slurpfile b "$tmp/west.summary" \
    --slurpfile c "$tmp/south.summary" \
    "(\$a[0].$k * 1000000 | round) + (\$b[0].$k * 1000000 | round) + (\$c[0].$k * 1000000 | round)")
  got=$(jq ".$k * 1000000 | round" "$tmp/fleet.summary")
  [ "$sum" = "$got" ] || fail "fleet $k $got != east + west + south $sum"
done
curl -sf "$base/api/v1/summary?$w&aggregate=cluster" > "$tmp/agg.json" || fail "aggregate=cluster"
jq -e '[.clusters[].cluster] == ["east", "south", "west"]' "$tmp/agg.json" >/dev/null ||
  fail "aggregate=cluster lists $(jq -c '[.clusters[].cluster]' "$tmp/agg.json")"
for c in east west south; do
  jq -e --arg c "$c" --slurpfile one "$tmp/$c.summary" '.clusters[] | select(.cluster == $c)
      | .summary.nodes_total_cost == $one[0].nodes_total_cost
        and .summary.allocated_cost == $one[0].allocated_cost
        and .summary.idle_cost == $one[0].idle_cost' "$tmp/agg.json" >/dev/null ||
    fail "aggregate=cluster's $c differs from cluster=$c"
done
echo "e2e_fleet_outage: south down at 6 h (reported in status and /metrics); east $(jq .nodes_total_cost "$tmp/east.summary") and west $(jq .nodes_total_cost "$tmp/west.summary") exact against their oracles; fleet = east + west + south"
