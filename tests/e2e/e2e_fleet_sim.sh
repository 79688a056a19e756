#!/bin/sh
# e2e_fleet_sim — two simulated clusters of one account (issue 22, docs/fleet.md):
# spotsim plays "east" (tests/fixtures/sim/small.json, tor1, reclaim after 2 h)
# and, with --also-cluster, "west" (the same workloads in ams3 with its own ids,
# pool names and a reclaim after 5 h, its own seed), each with its own
# Kubernetes API port and its own ground truth; the first port's DigitalOcean
# API serves both. spotledger watches both through one kubeconfig. Then
# every figure of cluster=east and cluster=west equals that cluster's
# independent oracle truth to the micro-dollar, and the fleet's node cost and
# allocated cost are the sums. (A cluster that is down is e2e_fleet.sh's case:
# spotsim cannot yet stop one cluster's port alone.)
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
fail() { [ -f "$tmp/svc.err" ] && tail -20 "$tmp/svc.err" >&2; echo "e2e_fleet_sim: $*" >&2; exit 1; }
. "$(dirname "$0")/settle.sh"
. "$(dirname "$0")/oracle_check.sh"

printf 'fleet-kube-token-71d0\n' > "$tmp/ktok"
printf 'fleet-do-token-c3e9\n' > "$tmp/dtok"
jq '.cluster = {"id": "7b3d9c1a-2e4f-4a6b-8c0d-1e2f3a4b5c6e", "name": "sim-west", "region": "ams3"}
    | .pools |= map(.name = "west-" + .name
                    | if .id then .id = "8c4e0d2b-3f5a-4b7c-9d1e-2f3a4b5c6d7f" else . end)
    | .reclaims = [{"pool": "west-gpu-spot", "after": "5h"}]' \
  "$root/tests/fixtures/sim/small.json" > "$tmp/west.json"
"$SPOTSIM_BIN" --scenario "$root/tests/fixtures/sim/small.json" --seed 7 --speed 1440 --hold \
  --listen 127.0.0.1:0 --kube-deletion-timestamps --tls-cert-out "$tmp/ca.pem" \
  --truth "$tmp/east.truth" --also-cluster "$tmp/west.json:$tmp/west.truth" --rate-limit 0 \
  --kube-token-file "$tmp/ktok" --do-token-file "$tmp/dtok" > "$tmp/sim.out" 2> "$tmp/sim.err" &
sim=$!
i=0
while ! grep -q '^spotsim: cluster http ' "$tmp/sim.out" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 200 ] || fail "spotsim did not start: $(cat "$tmp/sim.err")"; sleep 0.05
done
http=$(awk '/^spotsim: http /{print $3}' "$tmp/sim.out")
east_https=$(awk '/^spotsim: http /{print $5}' "$tmp/sim.out")
east_id=$(awk '/^spotsim: http /{print $7}' "$tmp/sim.out")
west_https=$(awk '/^spotsim: cluster http /{print $6}' "$tmp/sim.out")
west_id=$(awk '/^spotsim: cluster http /{print $8}' "$tmp/sim.out")
[ "$west_id" = 7b3d9c1a-2e4f-4a6b-8c0d-1e2f3a4b5c6e ] || fail "west's line: $(cat "$tmp/sim.out")"

cat > "$tmp/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: east
  cluster: {server: "https://$east_https", certificate-authority: "$tmp/ca.pem"}
- name: west
  cluster: {server: "https://$west_https", certificate-authority: "$tmp/ca.pem"}
users:
- name: sim
  user: {token: $(cat "$tmp/ktok")}
contexts:
- name: east
  context: {cluster: east, user: sim}
- name: west
  context: {cluster: west, user: sim}
current-context: east
KC
"$SPOTLEDGER_BIN" --listen 127.0.0.1:0 --db "$tmp/ledger.db" --kubeconfig "$tmp/kubeconfig" \
  --cluster "east=east@$east_id" --cluster "west=west@$west_id" \
  --do-api-url "http://$http" --do-token-file "$tmp/dtok" --poll-interval 1 \
  --billing-interval 2 > "$tmp/svc.out" 2> "$tmp/svc.err" &
svc=$!
i=0
while ! grep -q '^spotledger: listening on ' "$tmp/svc.out" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "spotledger did not start"; sleep 0.05
done
base="http://$(awk '/^spotledger: listening on /{print $4}' "$tmp/svc.out")"

i=0
while [ ! -s "$tmp/east.truth" ] || [ ! -s "$tmp/west.truth" ]; do
  i=$((i + 1)); [ $i -le 1200 ] || fail "spotsim did not finish in 120 s"; sleep 0.1
done
until=$(jq -r .until "$tmp/east.truth")
start=$(jq -r .start "$tmp/east.truth")
i=0
while :; do
  st=$(curl -sf --max-time 5 "$base/api/v1/status" || echo '{}')
  if echo "$st" | jq -e --arg u "$until" '[.clusters[]
      | (.kubernetes.source_time == $u) and (.digitalocean.source_time == $u)]
      | length == 2 and all' >/dev/null; then
    break
  fi
  i=$((i + 1)); [ $i -le 600 ] || fail "the clusters did not catch up in 60 s: $st"; sleep 0.1
done
settle "$base" "do k8s do_billing" 30 || fail "no second poll of the final state"
# settle's sources are any cluster's: wait for each cluster's own next success too
for c in east west; do
  for side in kubernetes digitalocean; do
    b=$(curl -sf "$base/api/v1/status" | jq -r --arg c "$c" --arg s "$side" \
      '.clusters[] | select(.name == $c) | .[$s].last_success')
    i=0
    until curl -sf "$base/api/v1/status" | jq -e --arg c "$c" --arg s "$side" --arg b "$b" \
        '.clusters[] | select(.name == $c) | .[$s].last_success > $b' >/dev/null; do
      i=$((i + 1)); [ $i -le 300 ] || fail "$c/$side: no new successful poll"; sleep 0.1
    done
  done
done

w="window=$start,$until"
for c in east west; do
  oracle_check "$base" "$w&cluster=$c" "$tmp/$c.truth" "$tmp/$c" ||
    fail "cluster=$c differs from its oracle truth"
done
# the two clusters are not the same figures (own seeds, reclaim timings)
[ "$(jq .nodes_total_cost "$tmp/east.summary")" != "$(jq .nodes_total_cost "$tmp/west.summary")" ] ||
  fail "east and west have the same node cost: not two clusters?"
# the fleet: node and allocated cost are the sums (micro-dollars)
curl -sf "$base/api/v1/summary?$w" > "$tmp/fleet.summary"
for k in nodes_total_cost allocated_cost idle_cost; do
  sum=$(jq -n --slurpfile a "$tmp/east.summary" --slurpfile b "$tmp/west.summary" \
    "(\$a[0].$k * 1000000 | round) + (\$b[0].$k * 1000000 | round)")
  got=$(jq ".$k * 1000000 | round" "$tmp/fleet.summary")
  [ "$sum" = "$got" ] || fail "fleet $k $got != east + west $sum"
done
curl -sf "$base/api/v1/summary?$w&aggregate=cluster" |
  jq -e '[.clusters[].cluster] == ["east", "west"]' >/dev/null || fail "aggregate=cluster"
echo "e2e_fleet_sim: east $(jq .nodes_total_cost "$tmp/east.summary") and west $(jq .nodes_total_cost "$tmp/west.summary") exact against their oracles; fleet = sums"
