#!/bin/sh
# End-to-end against the simulator's ground truth: spotsim plays a scenario,
# spotledger polls it (DigitalOcean over HTTP, Kubernetes over HTTPS with
# spotsim's CA, as in production), and once the scenario is over spotledger's
# figures must equal the truth spotsim computed from its own event log, to the
# micro-dollar: every figure of /api/v1/summary, nodes, pools and reclaims against
# the independent oracle's (tests/oracle/compare.jq, strict: a field the oracle does
# not compute must be listed with its reason in docs/oracle.md "Not compared"), and
# the invoice total stored from DigitalOcean's billing API.
#
# Cases: the 12 h scenario with one reclaim; the same with no reclaim; many
# reclaims with checkpointing; a 60 s TTL with fast pod GC through dropped
# watches, 410s and duplicate events; a label-only Spot pool with CPU pods on GPU
# nodes; a node crossing 672 h in a month; a Spot-only replacement never scheduled; N-completion
# Jobs; a list-price change mid-week; NotReady blips; a partition whose original finishes first;
# a pod end never seen (issue 16's named scenarios, docs/oracle.md); and the first again through every fault spotsim
# injects (20 % 5xx, 10 % 429, 5 % truncated bodies, dropped watches, 410s on
# watches, duplicate events) — the fault suite of the proof issue.
# TRUTH_CASES="name ..." runs only those cases.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/oracle_check.sh"
e2e_begin e2e_truth
printf 'truth-do-token\n' >"$dir/do-token"
printf 'truth-kube-token\n' >"$dir/kube-token"

# run_case NAME SCENARIO [spotsim fault flags...]
run_case() {
  name=$1; scenario=$2; shift 2
  # TRUTH_CASES="a b" runs only the named cases (all by default)
  case " ${TRUTH_CASES:-$name} " in *" $name "*) ;; *) return 0 ;; esac
  e2e_case=$name
  t0=$(date +%s)
  d="$dir/$name"
  mkdir -p "$d"
  # pods' deletionTimestamp as Kubernetes sets it (request + grace), as real clusters do;
  # the clock paced by the watches (docs/oracle.md "Simulated time"): while a kind spotledger
  # watched has no open watch (a reconnect, a relist after a 410, a backoff), simulated time
  # stands, up to 3 s a time, as it does at 1x; unpaced, a 60 ms relist under load is 86 s at
  # 1440x and a Job with a 60 s TTL can come and go unseen (CI, stop 29: short-ttl)
  stack_sim "$d" --scenario "$scenario" --kube-deletion-timestamps --pace-watches 3000 \
    --truth "$d/truth.json" "$@"
  stack_ledger "$d" "$d/ledger.db" ${ledger_args:-}

  # closed="FROM,TO,CHANGE": the window FROM..TO is read once spotledger's sources have
  # passed TO but not yet CHANGE (a list-price change), and must read the same at the end
  if [ -n "${closed:-}" ]; then
    cto=$(echo "$closed" | cut -d, -f2); cchange=$(echo "$closed" | cut -d, -f3)
    i=0
    while :; do
      st=$(curl -sf --max-time 5 "$base/api/v1/status" || echo '{}')
      if echo "$st" | jq -e --arg t "$cto" '[.sources[] | select(.source == "do" or .source == "k8s")
          | (.source_time // "") >= $t] | (length == 2 and all)' >/dev/null; then
        break
      fi
      i=$((i + 1)); [ $i -le 600 ] || fail "spotledger's sources did not reach $cto in 60 s"
      sleep 0.05
    done
    curl -sf "$base/api/v1/summary?window=$(echo "$closed" | cut -d, -f1,2)" |
      jq -S 'del(.now, .reconciliation)' >"$d/closed.before"
    seen=$(curl -sf --max-time 5 "$base/api/v1/status" | jq -r '[.sources[] | select(.source == "do") | .source_time] | .[0]')
    [ "$seen" \< "$cchange" ] ||
      fail "the closed window was read only at $seen, after the price change at $cchange (too slow to check)"
  fi

  # the scenario is over when spotsim has written its truth (bounded: 120 s); then
  # every source must have polled the final state successfully, twice
  wait_final "$d" "$base" 120 "do k8s do_billing"

  w="window=$start,$until"
  # the independent oracle (docs/oracle.md): every figure it computes, to the micro-dollar;
  # strict: a field of these answers the oracle does not compute fails the run unless
  # docs/oracle.md "Not compared" lists it with its reason
  oracle_diff "$base" "$w" "$d/truth.json" "$d/got" strict || fail "no summary, nodes, pools or reclaims"
  # the summary's reconciliation: billed = what spotsim invoiced
  rec_billed=$(jq -r '.reconciliation[0].lines[-1].billed' "$d/got.summary")
  rec_est=$(jq -r '.reconciliation[0].lines[-1].estimated' "$d/got.summary")
  rec_unexplained=$(jq -r '.reconciliation[0].lines[-1].unexplained' "$d/got.summary")
  # |rounding| <= half a cent per item, in micro-dollars (jq: 1e6 x a 6-decimal number)
  rec_round_ok=$(jq -r '.reconciliation[0].lines[-1] |
    ((.rounding * 1000000 | round | fabs) <= .items * 5000) and (.items > 0)' "$d/got.summary")
  ndiff=$(wc -l <"$d/got.diff")
  oracle_total=$((oracle_total + ndiff))
  if [ "$ndiff" -gt 0 ]; then
    echo "e2e_truth: $name: $ndiff differences from the oracle (< oracle, > spotledger):" >&2
    head -20 "$d/got.diff" >&2
    if [ "${ORACLE_GATE:-1}" = 1 ]; then fail "spotledger differs from the oracle"; fi
  fi
  # the invoice DigitalOcean billed, as stored: spotsim's per-second rule per node and
  # month, each item in whole cents; the reconciliation's estimate is the truth's exact
  # amount, and the difference is all rounding (under half a cent per item)
  want_billed=$(jq -r '.billed_total' "$d/truth.json")
  got_billed=$(sqlite3 "file:$d/ledger.db?mode=ro" \
    "SELECT printf('%d.%06d', sum(amount_micro) / 1000000, sum(amount_micro) % 1000000)
       FROM invoice_items" | sed 's/0*$//; s/\.$//')
  [ "$rec_billed" = "$got_billed" ] || fail "reconciliation billed $rec_billed != stored invoice $got_billed"
  [ "$rec_est" = "$want_billed" ] || fail "reconciliation estimate $rec_est != truth $want_billed"
  [ "$rec_unexplained" = 0 ] || fail "reconciliation: $rec_unexplained unexplained (not rounding)"
  [ "$rec_round_ok" = true ] || fail "reconciliation rounding over half a cent per item: $(jq -c '.reconciliation[0].lines[-1]' "$d/got.summary")"
  # every attempt of the truth is stored once, with its node
  want_att=$(jq '[.attempts[] | .uid] | length' "$d/truth.json")
  got_att=$(sqlite3 "file:$d/ledger.db?mode=ro" "SELECT count(*) FROM attempts")
  [ "$got_att" = "$want_att" ] || fail "$got_att attempts stored, truth has $want_att"
  jq -r '.attempts[] | [.uid, .node] | @tsv' "$d/truth.json" | sort >"$d/want.att"
  sqlite3 -separator '	' "file:$d/ledger.db?mode=ro" "SELECT uid, node_name FROM attempts" |
    sort >"$d/got.att"
  cmp -s "$d/want.att" "$d/got.att" || { diff "$d/want.att" "$d/got.att" | head >&2;
    fail "attempts or their nodes differ"; }

  if [ -n "${closed:-}" ]; then
    curl -sf "$base/api/v1/summary?window=$(echo "$closed" | cut -d, -f1,2)" |
      jq -S 'del(.now, .reconciliation)' >"$d/closed.after"
    cmp -s "$d/closed.before" "$d/closed.after" || { diff "$d/closed.before" "$d/closed.after" >&2;
      fail "the closed window $closed changed after the list-price change (< before, > after)"; }
  fi

  # windows are additive: two halves give the whole (counts exactly; money within
  # a micro-dollar per node and half, the documented rounding)
  mid=$(jq -rn --arg a "$start" --arg b "$until" '(($a|fromdateiso8601) + ($b|fromdateiso8601)) / 2 | floor | todate')
  curl -sf "$base/api/v1/summary?window=$start,$mid" >"$d/h1.json"
  curl -sf "$base/api/v1/summary?window=$mid,$until" >"$d/h2.json"
  nn=$(jq length "$d/got.nodes")
  jq -n --slurpfile w "$d/got.summary" --slurpfile a "$d/h1.json" --slurpfile b "$d/h2.json" \
    --argjson nn "$nn" '
    def m(x): [x.configurations[] | select(.basis == "measured") |
      [.tasks_succeeded, .tasks_failed, .attempts, .retries, .interruptions]];
    (m($a[0]) | transpose | map(add)) as $x | (m($b[0]) | transpose | map(add)) as $y |
    (m($w[0]) | transpose | map(add)) as $z |
    ([$x, $y] | transpose | map(add)) == $z
    and ((($a[0].nodes_total_cost + $b[0].nodes_total_cost) - $w[0].nodes_total_cost) | fabs)
        <= ($nn * 0.000002 + 0.0000001)' | grep -q true ||
    fail "the two halves do not add up to the whole window"

  # /metrics with data: valid exposition, and its counters are the truth's
  curl -sf "$base/metrics" >"$d/metrics.txt" || fail "/metrics failed"
  promtool check metrics <"$d/metrics.txt" || fail "promtool rejected /metrics"
  # the 95% interval gauges (docs/uncertainty.md): each lo sample has its hi, lo <= hi
  awk -F '[{}]' '/^spotledger_cost_per_successful_task_interval_usd\{/ {
      split($2, l, ","); v = $3 + 0; key = l[1] "," l[2]   # cluster, configuration
      if (l[3] ~ /"lo"/) lo[key] = v; else hi[key] = v }
    END { for (k in lo) if (!(k in hi) || lo[k] > hi[k]) { print k; bad = 1 }
          for (k in hi) if (!(k in lo)) { print k; bad = 1 }
          exit bad }' "$d/metrics.txt" >"$d/intervals.bad" ||
    fail "/metrics interval bounds unpaired or crossed: $(cat "$d/intervals.bad")"
  for c in spot fallback on-demand; do
    want=$(jq --arg c "$c" '[.configurations[] | select(.configuration == $c) | .succeeded] | add // 0' "$d/truth.json")
    got=$(sed -n "s/^spotledger_tasks_total{cluster=\"default\",configuration=\"$c\",outcome=\"succeeded\"} //p" "$d/metrics.txt")
    [ "$got" = "$want" ] || fail "/metrics says $got $c tasks succeeded, truth $want"
  done
  curl -sf "http://$http/sim/status" >"$d/sim.status" || echo '{}' >"$d/sim.status"
  cost=$(jq -r '[.configurations[] | select(.basis == "measured") | .cost_per_successful_task] | map(tostring) | join(" / ")' "$d/got.summary")
  pace=$(jq -r '.pacing // {} | "\(.stands // 0) stands, \(.stood_ms // 0) ms, longest \(.longest_ms // 0) ms, \(.capped // 0) capped, \(.over_budget // 0) over budget"' "$d/sim.status")
  echo "e2e_truth: $name: summary, nodes, pools, reclaims (the oracle's), invoice ($got_billed USD) and $got_att attempts equal the truth; cost per task spot / fallback / on-demand: $cost ($(($(date +%s) - t0)) s; clock paced: $pace)"
  kill "$ledger_pid" "$sim_pid" 2>/dev/null || true
  wait "$ledger_pid" 2>/dev/null || true
  wait "$sim_pid" 2>/dev/null || true
  e2e_case=
}

fx="$root/tests/fixtures/sim"
oracle_total=0
run_case one-reclaim "$fx/small.json"
run_case no-reclaim "$fx/no_reclaim.json"
run_case many-reclaims "$fx/many_reclaims.json"
# Jobs deleted 60 s after they finish and pods garbage-collected 10 s after their
# node: outcomes exist only in the watch stream (the Kubernetes issue's acceptance)
run_case short-ttl "$fx/short_ttl.json" --fault-watch-drop 0.05 --fault-watch-410 0.05 \
  --fault-watch-dup 0.1
# issue 16's scenarios, checked against the oracle: a Spot pool known only by its label (its
# size has no -spot twin: the counterfactual falls back to the 8-GPU fallback size, per GPU),
# CPU-only pods on GPU nodes (share 0); and a Spot node living all of March (744 h), whose
# last 72 h are free (the 672 h cap) while tasks run there
run_case oracle-cases "$fx/oracle_cases.json"
run_case month-cap "$fx/month_cap.json" --speed 30000
# a Spot-only replacement that is never scheduled (its pool is gone, not recreated) until the
# Job's activeDeadline kills it: no duplicate work, no held time (issue 16 item 1)
run_case pending-replacement "$fx/pending_replacement.json" --speed 4000
# N-completion Jobs: non-Indexed (completions 3, each success one task) across a reclaim with
# an On-Demand fallback, an Indexed Job whose pods wait for the recreated Spot pool, and
# non-Indexed On-Demand pairs
run_case n-completion "$fx/n_completion.json" --speed 4000
# a list-price change mid-week (On-Demand and Spot sizes, at 04:30): nodes keep the price of
# their creation, the counterfactual takes the price in force when each winner ran, and the
# closed window 00:00-03:00 reads the same before and after the change
ledger_args="--sizes-interval 1"
closed="2026-11-09T00:00:00Z,2026-11-09T03:00:00Z,2026-11-09T04:30:00Z"
run_case price-change "$fx/price_change.json"
ledger_args= closed=
# repeated NotReady blips (every spell counts; restore measured from the right one) and a
# 20 min partition with the taint manager's eviction: the partitioned original finishing first
# wins over its replacement (a duplicate), one still running is stopped at the heal
# (the first spell an hour in: spotledger must have listed the nodes Ready before it)
run_case notready-blips "$fx/notready_blips.json"
run_case partition "$fx/partition.json"
# a pod end never seen: its node stops posting status during a reclaim's drain, so the
# container's exit is never told; the attempt ends with the node's deletion, not at the pod's
# garbage collection 10 min later (slow enough that the removal is seen within minutes)
run_case unseen-end "$fx/unseen_end.json" --speed 120
run_case faults "$fx/small.json" --fault-5xx 0.2 --fault-429 0.1 --fault-truncate 0.05 \
  --fault-watch-drop 0.05 --fault-watch-410 0.05 --fault-watch-dup 0.1
echo "e2e_truth: $oracle_total differences from the oracle over every case (any fails the run; ORACLE_GATE=0 only reports them)"
if [ -f "$dir/faults/sim.status" ]; then
  faults=$(jq -c '.faults_injected' "$dir/faults/sim.status")
  total=$(jq '[.faults_injected[]] | add // 0' "$dir/faults/sim.status")
  [ "$total" -gt 0 ] || fail "faults: spotsim injected no fault"
  echo "e2e_truth: ok (fault case: $total faults injected: $faults)"
else
  echo "e2e_truth: ok (cases: ${TRUTH_CASES:-all})"
fi
