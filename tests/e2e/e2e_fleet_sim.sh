#!/bin/sh
# e2e_fleet_sim — two simulated clusters of one account (issue 22, docs/fleet.md):
# spotsim plays "east" (tests/fixtures/sim/small.json, tor1, reclaim after 2 h)
# and, with --also-cluster, "west" (the same workloads in ams3 with its own ids,
# pool names and a reclaim after 5 h, its own seed), each with its own
# Kubernetes API port and its own ground truth; the first port's DigitalOcean
# API serves both. spotledger watches both through one kubeconfig (the stack:
# fleet_stack.sh). Then every figure of cluster=east and cluster=west equals
# that cluster's independent oracle truth to the micro-dollar, and the fleet's
# node cost and allocated cost are the sums. (A cluster that is down is
# e2e_fleet.sh's case: spotsim cannot yet stop one cluster's port alone.)
# POSIX sh, loopback only, bounded polls; kills only the processes it started.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_fleet_sim svc.err
sim_pid=; svc_pid=
on_exit_stop svc_pid sim_pid
. "$(dirname "$0")/oracle_check.sh"
. "$(dirname "$0")/fleet_stack.sh"

fleet_stack_start "$dir"

w="window=$start,$until"
for c in east west; do
  oracle_check "$base" "$w&cluster=$c" "$dir/$c.truth" "$dir/$c" ||
    fail "cluster=$c differs from its oracle truth"
done
# the two clusters are not the same figures (own seeds, reclaim timings)
[ "$(jq .nodes_total_cost "$dir/east.summary")" != "$(jq .nodes_total_cost "$dir/west.summary")" ] ||
  fail "east and west have the same node cost: not two clusters?"
# the fleet: node and allocated cost are the sums (micro-dollars)
curl -sf "$base/api/v1/summary?$w" > "$dir/fleet.summary"
for k in nodes_total_cost allocated_cost idle_cost; do
  sum=$(jq -n --slurpfile a "$dir/east.summary" --slurpfile b "$dir/west.summary" \
    "(\$a[0].$k * 1000000 | round) + (\$b[0].$k * 1000000 | round)")
  got=$(jq ".$k * 1000000 | round" "$dir/fleet.summary")
  [ "$sum" = "$got" ] || fail "fleet $k $got != east + west $sum"
done
curl -sf "$base/api/v1/summary?$w&aggregate=cluster" |
  jq -e '[.clusters[].cluster] == ["east", "west"]' >/dev/null || fail "aggregate=cluster"
echo "e2e_fleet_sim: east $(jq .nodes_total_cost "$dir/east.summary") and west $(jq .nodes_total_cost "$dir/west.summary") exact against their oracles; fleet = sums"
