#!/bin/sh
# End-to-end: the advisor on what the watcher and the poller stored (issue 19).
# spotsim plays tests/fixtures/sim/pdb_reclaim.json: a fixed-size Spot pool
# (gpu-spot, 4 nodes, no auto-scale) reclaimed at 02:00 and never recreated, a
# spot workload 'shard' with a PodDisruptionBudget that allows no disruption
# (maxUnavailable 0) whose 3 pods ran on gpu-spot before the reclaim, and
# 'train-fb' with a PDB that allows one (maxUnavailable 1). After the scenario:
#   - pdb-blocks-drain:batch/shard is reported with the pods it selected on Spot
#     (3, counted from spotsim's truth), and nothing for train-fb;
#   - spot-autoscale:gpu-spot is still reported although the pool is gone (its
#     evidence says when it was deleted and that it was reclaimed once);
#   - GET /api/v1/reconciliation sums DigitalOcean's daily billing insights per
#     pool exactly as spotsim serves them; a second run whose token lacks
#     billing:read (spotsim --deny-scope) keeps polling, with do_insights' 403 in
#     GET /api/v1/status and no insight in the reconciliation.
# Loopback only, bounded waits; kills only the processes it started.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_advice_history
printf 'adv-do-token\n' >"$dir/do-token"
printf 'adv-kube-token\n' >"$dir/kube-token"

# run_pair N [spotsim flags...]: spotsim playing the scenario (files suffixed N) and
# a spotledger polling it; sets http, https, cluster and base
run_pair() {
  n=$1; shift
  mkdir "$dir/$n"
  stack_sim "$dir/$n" --scenario "$root/tests/fixtures/sim/pdb_reclaim.json" "$@"
  stack_ledger "$dir/$n" "$dir/$n/ledger.db"
}

run_pair 1 --truth "$dir/truth.json"
wait_final "$dir" "$base" 120 "do k8s do_billing"

curl -sf "$base/api/v1/advice?window=$start,$until" >"$dir/advice.json" || fail "GET /api/v1/advice"
# spotsim's truth: the shard pods that ran on the Spot pool
want_spot=$(jq '[.attempts[] | select((.job | startswith("shard-")) and .pool == "gpu-spot")] | length' \
  "$dir/truth.json")
[ "$want_spot" -gt 0 ] || fail "the scenario ran no shard pod on Spot (truth): the test proves nothing"
jq -e --argjson n "$want_spot" '[.findings[] | select(.id == "pdb-blocks-drain:batch/shard")] |
  length == 1 and .[0].severity == "warning" and .[0].evidence.pods_on_spot == $n and
  .[0].evidence.max_unavailable == 0 and .[0].evidence.pool == "gpu-spot"' "$dir/advice.json" >/dev/null ||
  fail "no pdb-blocks-drain finding for batch/shard with $want_spot Spot pods: $(jq -c '[.findings[] | select(.rule == "pdb-blocks-drain")]' "$dir/advice.json")"
jq -e '[.findings[] | select(.id == "pdb-blocks-drain:batch/train-fb")] | length == 0' "$dir/advice.json" \
  >/dev/null || fail "train-fb's PDB allows a disruption but was reported"
# the pool is gone: spotsim says so, and the finding is still there
gone=$(jq -r '.pools[] | select(.name == "gpu-spot") | .gone_at' "$dir/truth.json")
[ "$gone" != null ] || fail "gpu-spot is not gone in spotsim's truth"
jq -e '[.findings[] | select(.id == "spot-autoscale:gpu-spot")] | length == 1 and
  .[0].severity == "warning" and .[0].evidence.auto_scale == false and .[0].evidence.reclaims == 1 and
  (.[0].evidence.deleted_at | type == "string") and (.[0].title | test("is gone"))' "$dir/advice.json" \
  >/dev/null || fail "no spot-autoscale finding for the gone pool gpu-spot: $(jq -c '[.findings[] | select(.rule == "spot-autoscale")]' "$dir/advice.json")"

# Billing insights in the reconciliation: per pool, the sum of the daily points
# spotsim serves for November (read here straight from spotsim, all on one page)
curl -sf --max-time 5 -H 'Authorization: Bearer adv-do-token' \
  "http://$http/v2/billing/do:team:$cluster/insights/2026-11-01/2026-11-30?per_page=200" >"$dir/insights.json" ||
  fail "no insights from spotsim"
curl -sf "$base/api/v1/reconciliation?period=2026-11" >"$dir/rec.json" || fail "GET /api/v1/reconciliation"
curl -sf "$base/api/v1/status" | jq -e '.sources[] | select(.source == "do_insights") |
  .status == "ok" and .error == null and .items > 0' >/dev/null || fail "do_insights is not ok in /api/v1/status"
npools=0
for pool in $(jq -r '.pools[].name' "$dir/truth.json"); do
  want=$(jq --arg p "$pool" '[.data_points[] | select(.description | startswith($p + " nodes")) |
    .total_amount | tonumber] | add // 0 | . * 100 | round' "$dir/insights.json")
  got=$(jq --arg p "$pool" '[.lines[] | select(.pool == $p) | .insights] | add // 0 | . * 100 | round' \
    "$dir/rec.json")
  [ "$want" = "$got" ] || fail "pool $pool: insights $got cents in the reconciliation, spotsim served $want"
  [ "$want" -gt 0 ] && npools=$((npools + 1))
done
[ "$npools" -ge 2 ] || fail "fewer than 2 pools with billing insights: the check proves little"

# Without billing:read the insights degrade quietly: DigitalOcean and Kubernetes
# polls stay ok, do_insights records the 403 naming the scope, no insight in the
# reconciliation.
run_pair 2 --deny-scope billing:read
i=0
until curl -sf --max-time 5 "$base/api/v1/status" | jq -e '[.sources[] | select(.source == "do_insights" or
    .source == "do") | .last_poll != null] | all' >/dev/null; do
  i=$((i + 1)); [ $i -le 300 ] || fail "no insights poll without billing:read in 30 s"
  sleep 0.1
done
curl -sf "$base/api/v1/status" >"$dir/status2.json"
jq -e '(.sources[] | select(.source == "do_insights") | .status == "error" and (.error | test("403")) and
  (.error | test("billing:read"))) and (.sources[] | select(.source == "do") | .status == "ok")' \
  "$dir/status2.json" >/dev/null || fail "without billing:read: $(jq -c .sources "$dir/status2.json")"
curl -sf "$base/api/v1/reconciliation?period=2026-11" | jq -e '.lines[-1].insight_points == 0' >/dev/null ||
  fail "insights in the reconciliation without billing:read"
echo "e2e_advice_history: ok (pdb-blocks-drain: $want_spot pods on Spot; spot-autoscale on gpu-spot, gone at $gone; insights equal spotsim's on $npools pools; without billing:read do_insights says 403)"
