# Compares spotledger's answers with the oracle (docs/oracle.md), figure by figure.
# Input: {"got": {"summary": S, "pools": [...], "nodes": [...], "reclaims": [...]},
#         "want": ORACLE}  (ORACLE = spotsim truth's "oracle" object).
# Output: one line per difference, "figure: oracle X, spotledger Y"; nothing when equal.
def cmp(path; w; g): if w == g then empty else "\(path): oracle \(w | tojson), spotledger \(g | tojson)" end;
def keys_of(o; ks; prefix; w):
  ks[] as $k | cmp(prefix + "." + $k; w[$k]; o[$k]);
.got as $g | .want as $w |
( ["tasks_succeeded","tasks_failed","attempts","retries","interruptions","duplicates",
   "duplicate_seconds","cost","cost_per_successful_task","allocated_cost","useful_cost",
   "restore_cost","wasted_cost","running_cost","idle_cost"] ) as $ck |
( $w.configurations[] | select(.basis == "measured") | . as $wc |
  ([$g.summary.configurations[] | select(.basis == "measured" and .configuration == $wc.configuration)][0]) as $gc |
  if $gc == null then "configuration \($wc.configuration): missing in spotledger's summary"
  else (keys_of($gc; $ck; $wc.configuration; $wc),
        cmp($wc.configuration + ".restore_seconds.samples"; $wc.restore_seconds.samples; $gc.restore_seconds.samples),
        cmp($wc.configuration + ".restore_seconds.total"; $wc.restore_seconds.total; $gc.restore_seconds.total))
  end ),
( ($w.configurations[] | select(.basis == "counterfactual")) as $wc |
  ([$g.summary.configurations[] | select(.basis == "counterfactual")][0] // {}) as $gc |
  keys_of($gc; ["tasks_succeeded","tasks_priced","tasks_unpriced","work_seconds","cost",
                "cost_per_successful_task"]; "counterfactual"; $wc) ),
keys_of($g.summary; ["nodes_total_cost","allocated_cost","idle_cost","unattributed_idle_cost"]; "summary"; $w),
( $w.pools[] | . as $wp | ([$g.pools[] | select(.pool_id == $wp.pool_id)][0] // {}) as $gp |
  keys_of($gp; ["capacity_type","nodes","node_seconds","cost","allocated_cost","idle_cost",
                "unattributed_idle_cost"]; "pool " + $wp.pool; $wp) ),
( $w.nodes[] | . as $wn | ([$g.nodes[] | select(.name == $wn.name)][0] // {}) as $gn |
  keys_of($gn; ["price_hourly","billable_seconds","cost","allocated_cost","idle_cost"];
          "node " + $wn.name; $wn) ),
( $g.nodes[] | . as $gn | select([$w.nodes[] | select(.name == $gn.name)] | length == 0) |
  select(.billable_seconds > 0 or .cost > 0) | "node \($gn.name): billed by spotledger, not by the oracle" ),
cmp("reclaims"; [$w.reclaims[].pool_id]; [$g.reclaims[].pool_id]),
( $w.reclaims[] | . as $wr | ([$g.reclaims[] | select(.pool_id == $wr.pool_id)][0] // {}) as $gr |
  keys_of($gr; ["first_signal_at","gone_at","fallback_ready_at","first_resumed_at",
                "replacement_delay_seconds","return_to_useful_work_seconds"];
          "reclaim " + $wr.pool_id; $wr) )
