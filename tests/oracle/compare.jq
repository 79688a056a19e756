# Compares spotledger's answers with the oracle (docs/oracle.md), figure by figure.
# Input: {"got": {"summary": S, "pools": [...], "nodes": [...], "reclaims": [...]},
#         "want": ORACLE, "strict": BOOL}  (ORACLE = spotsim truth's "oracle" object).
# Every key the oracle gives is compared (the oracle is keyed like the REST API), so a
# figure the oracle learns is compared from then on. With "strict": true, a field of
# spotledger's answers that the oracle does not compute is a difference too, unless it
# is one of the fields docs/oracle.md "Not compared" lists with its reason ($skip below).
# Output: one line per difference, "figure: oracle X, spotledger Y"; nothing when equal.
def cmp(path; w; g): if w == g then empty else "\(path): oracle \(w | tojson), spotledger \(g | tojson)" end;
# every key of the oracle's object w, against spotledger's object g
def all_keys(prefix; w; g): (w | keys[]) as $k | cmp(prefix + "." + $k; w[$k]; (g // {})[$k]);
def unlisted(prefix; w; g; skip):
  (g // {} | keys[]) as $k | select((w | has($k)) or (skip | index([$k])) | not) |
  "\(prefix).\($k): not computed by the oracle nor listed in docs/oracle.md \"Not compared\"";
{ summary: ["now", "cost_basis_description", "checkpoint_advice", "reconciliation"],
  configuration: ["useful_cost_at_on_demand", "break_even_overhead_percent",
                  "checkpoint_advice"],
  counterfactual: ["basis_description"],
  pool: ["on_demand_price_hourly"], node: [], reclaim: [] } as $skip |
(.strict // false) as $strict |
.got as $g | .want as $w |
def reclaims(prefix; got):
  cmp(prefix; [$w.reclaims[].pool_id]; [got[].pool_id]),
  ( $w.reclaims[] | . as $wr | ([got[] | select(.pool_id == $wr.pool_id)][0]) as $gr |
    all_keys(prefix + " " + $wr.pool_id; $wr; $gr),
    if $strict then unlisted(prefix + " " + $wr.pool_id; $wr; $gr; $skip.reclaim) else empty end );
# the summary's own figures
all_keys("summary"; $w | del(.configurations, .pools, .nodes, .reclaims, .now); $g.summary),
( if $strict then unlisted("summary"; $w; $g.summary; $skip.summary) else empty end ),
# each configuration, measured and counterfactual
( $w.configurations[] | . as $wc |
  ([$g.summary.configurations[] | select(.basis == $wc.basis and .configuration == $wc.configuration)][0]) as $gc |
  (if $wc.basis == "measured" then $wc.configuration else "counterfactual" end) as $name |
  if $gc == null then "configuration \($name): missing in spotledger's summary"
  else all_keys($name; $wc; $gc),
       if $strict then unlisted($name; $wc; $gc;
         if $wc.basis == "measured" then $skip.configuration else $skip.counterfactual end)
       else empty end
  end ),
( $g.summary.configurations | length as $n | ($w.configurations | length) as $m |
  if $n == $m then empty else "summary.configurations: oracle \($m), spotledger \($n)" end ),
# pools, nodes, reclaims (the summary's list and /reclaims)
( $w.pools[] | . as $wp | ([$g.pools[] | select(.pool_id == $wp.pool_id)][0]) as $gp |
  all_keys("pool " + $wp.pool; $wp; $gp),
  if $strict then unlisted("pool " + $wp.pool; $wp; $gp; $skip.pool) else empty end ),
( $w.nodes[] | . as $wn | ([$g.nodes[] | select(.name == $wn.name)][0]) as $gn |
  all_keys("node " + $wn.name; $wn; $gn),
  if $strict then unlisted("node " + $wn.name; $wn; $gn; $skip.node) else empty end ),
( $g.nodes[] | . as $gn | select([$w.nodes[] | select(.name == $gn.name)] | length == 0) |
  select(.billable_seconds > 0 or .cost > 0) | "node \($gn.name): billed by spotledger, not by the oracle" ),
reclaims("reclaims"; $g.reclaims),
( if $g.summary | has("reclaims") then reclaims("summary.reclaims"; $g.summary.reclaims) else empty end )
