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
#     evidence says when it was deleted and that it was reclaimed once).
# Loopback only, bounded waits; kills only the processes it started.
set -eu
sim=${SPOTSIM_BIN:?}
ledger=${SPOTLEDGER_BIN:?}
root=${SPOTLEDGER_ROOT:?}
dir=$(mktemp -d)
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "e2e_advice_history: $*" >&2; exit 1; }
. "$(dirname "$0")/settle.sh"
. "$(dirname "$0")/stack.sh"
printf 'adv-do-token\n' >"$dir/do-token"
printf 'adv-kube-token\n' >"$dir/kube-token"

"$sim" --scenario "$root/tests/fixtures/sim/pdb_reclaim.json" --seed 7 --speed 1440 --hold \
  --listen 127.0.0.1:0 --tls-cert-out "$dir/ca.pem" --truth "$dir/truth.json" --rate-limit 0 \
  --do-token-file "$dir/do-token" --kube-token-file "$dir/kube-token" >"$dir/sim.out" 2>"$dir/sim.err" &
pids="$pids $!"
wait_sim "$dir/sim.out" "$dir/sim.err"
"$ledger" --listen 127.0.0.1:0 --db "$dir/ledger.db" --do-api-url "http://$http" \
  --do-token-file "$dir/do-token" --cluster-id "$cluster" --kube-api-url "https://$https" \
  --kube-token-file "$dir/kube-token" --kube-ca-file "$dir/ca.pem" --poll-interval 1 \
  --billing-interval 2 >"$dir/ledger.out" 2>"$dir/ledger.err" &
pids="$pids $!"
wait_ledger "$dir/ledger.out" "$dir/ledger.err"
i=0
while [ ! -s "$dir/truth.json" ]; do
  i=$((i + 1)); [ $i -le 1200 ] || fail "spotsim did not finish in 120 s"
  sleep 0.1
done
until=$(jq -r .until "$dir/truth.json")
start=$(jq -r .start "$dir/truth.json")
i=0
until curl -sf --max-time 5 "$base/api/v1/status" | jq -e --arg u "$until" '.now == $u' >/dev/null; do
  i=$((i + 1)); [ $i -le 600 ] || fail "spotledger did not reach the scenario's end in 60 s"
  sleep 0.1
done
settle "$base" "do k8s" 30 || fail "no second poll of the final state"

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
echo "e2e_advice_history: ok (pdb-blocks-drain: $want_spot pods on Spot; spot-autoscale on gpu-spot, gone at $gone)"
