#!/bin/sh
# End-to-end: GET /api/v1/whatif over windows spotsim played, each with the three
# configurations (Spot, Spot with fallback, pure On-Demand): the 12 h scenario with
# six reclaims, checkpointing and a fallback pool (tests/fixtures/sim/
# many_reclaims.json), then the 12 h scenario with one reclaim (small.json). With
# no parameter the planner runs on the values measured on the window, each
# configuration on its own task mix (docs/whatif.md "Each configuration its own
# tasks") on the window's Spot pool (docs/whatif.md "The pool"), and must
# reproduce the window's measured cost per successful task of each configuration
# (/api/v1/summary) within its own 95 % interval (issue 21). With no samples= a
# window this small gets 2,000 replications (API_WHATIF_MAX_WORK 2,000,000 over
# 16 tasks a replication is far above the 2,000 cap; a 10,000-task window keeps
# 200): 200 would place the edges a few percent off, and on many_reclaims Spot's
# upper edge is 2.307028 at 200, 2.419476 at 2,000, the measured 2.345961 between
# them (docs/whatif.md "Validation").
# Supplied values are marked supplied; hostile values are 400s naming the
# parameter.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_whatif
printf 'whatif-do-token\n' >"$dir/do-token"
printf 'whatif-kube-token\n' >"$dir/kube-token"

# play SCENARIO: starts spotsim on it and spotledger against it (their pids in
# sim_pid, ledger_pid) and waits until the ledger has the final state.
play() {
  stack_sim "$dir" --scenario "$root/tests/fixtures/sim/$1" --truth "$dir/truth.json"
  stack_ledger "$dir" "$dir/ledger-$1.db"
  wait_final "$dir" "$base" 120
}

# stop: ends the pair play started (by pid) and clears their files for the next.
stop() {
  kill "$ledger_pid" "$sim_pid" 2>/dev/null || true
  wait "$ledger_pid" "$sim_pid" 2>/dev/null || true
  rm -f "$dir/truth.json" "$dir/sim.out" "$dir/ledger.out"
}

# inside CONFIG: the summary's measured cost per successful task of CONFIG lies in
# the planner's interval for it, no parameter supplied ($dir/summary.json,
# $dir/whatif.json).
inside() {
  jq -e --arg c "$1" --slurpfile s "$dir/summary.json" '
    ($s[0].configurations[] | select(.configuration == $c and .basis != "counterfactual")
      | .cost_per_successful_task) as $m
    | .configurations[] | select(.configuration == $c)
    | .interval != null and $m != null and .interval.low <= $m and $m <= .interval.high' \
    "$dir/whatif.json" >/dev/null ||
    fail "$scenario $1: the measured figure is outside the planner's interval"
}

# fetch: the window's summary and the planner's no-parameter answer, printed.
fetch() {
  w="from=$start&to=$until"
  curl -sf "$base/api/v1/summary?$w" >"$dir/summary.json"
  curl -sf "$base/api/v1/whatif?$w" >"$dir/whatif.json" ||
    fail "whatif: $(curl -s "$base/api/v1/whatif?$w")"
  # no samples=: a small window's default is the 2,000 cap (see the head)
  [ "$(jq -r .model.runs "$dir/whatif.json")" = 2000 ] ||
    fail "$scenario: default runs $(jq -r .model.runs "$dir/whatif.json"), expected 2000"
  echo "$scenario:"
  jq -c '{p: .parameters | map_values(.value), c: [.configurations[] |
    {configuration, cost_per_successful_task, interval, measured_cost_per_successful_task}],
    b: .break_even_reclaims_per_day, k: .best_checkpoint_interval}' "$dir/whatif.json"
}

scenario=many_reclaims
play many_reclaims.json
fetch

# measured on the window: the reclaim rate, the task lengths, the list prices
for k in reclaims_per_day task_hours spot_price on_demand_price checkpoint_seconds; do
  src=$(jq -r --arg k "$k" '.parameters[$k].source' "$dir/whatif.json")
  [ "$src" = measured ] || fail "$k: source $src, expected measured"
done
# 6 reclaims of the Spot pool in the window
jq -e '.parameters.reclaims_per_day.detail | startswith("6 reclaims")' "$dir/whatif.json" >/dev/null ||
  fail "reclaims_per_day: $(jq -c .parameters.reclaims_per_day "$dir/whatif.json")"
[ "$(jq -r .parameters.spot_price.value "$dir/whatif.json")" = 1.3536 ] || fail "spot_price"
[ "$(jq -r .parameters.on_demand_price.value "$dir/whatif.json")" = 3.384 ] || fail "on_demand_price"

# each configuration's measured figure within the planner's interval, and the
# Spot pool as measured: two nodes
[ "$(jq -r .parameters.spot_pool_nodes.value "$dir/whatif.json")" = 2 ] ||
  fail "spot_pool_nodes: $(jq -c .parameters.spot_pool_nodes "$dir/whatif.json")"
inside spot
inside fallback
inside on-demand
# supplied values are marked, and change the answer the way they must: without
# reclaims every task is one attempt, but where its configuration's measured
# application failures retry it
curl -sf "$base/api/v1/whatif?$w&reclaims_per_day=0&spot_price=1.00&fallback=on&samples=50" \
  >"$dir/sup.json"
jq -e '.parameters.reclaims_per_day.source == "supplied" and .parameters.spot_price.source ==
  "supplied" and .parameters.spot_price.value == 1 and .model.runs == 50 and
  (.parameters.task_mix.value as $mix | [.configurations[] | .failures == 0 and
    (.attempts == .successes) == ($mix[.configuration].failure_rate == 0)] | all)' \
  "$dir/sup.json" >/dev/null || fail "supplied: $(jq -c . "$dir/sup.json")"

# hostile values: 400 naming the parameter
for q in reclaims_per_day=nan reclaims_per_day=1e308 reclaims_per_day=-1 replacement_delay=-5 \
  checkpoint_interval=1.5 spot_price=abc on_demand_price=-1 task_hours=0 task_hours=inf \
  fallback=maybe samples=1 samples=99999; do
  name=${q%%=*}
  code=$(curl -s -o "$dir/err.json" -w '%{http_code}' "$base/api/v1/whatif?$w&$q")
  [ "$code" = 400 ] || fail "$q: HTTP $code"
  jq -e --arg n "$name" '.error.message | startswith($n + ":")' "$dir/err.json" >/dev/null ||
    fail "$q: $(cat "$dir/err.json")"
done
stop

# the 12 h scenario with one reclaim: all three configurations
scenario=small
play small.json
fetch
inside spot
inside fallback
inside on-demand
echo "e2e_whatif: ok"
