#!/bin/sh
# End-to-end: deploy/'s operations kit (deploy/README.md "Alerts and dashboard").
#   1. `promtool check rules` on deploy/prometheus/spotledger-alerts.yml and
#      `promtool test rules` on its unit tests (alerts firing on synthetic series);
#   1b. every Grafana dashboard expression parses (promtool), and over two
#      clusters' synthetic series the cost panel sums over `cluster` while the
#      per-task cost and reclaim panels keep one series per cluster;
#   2. the demo (deploy/demo/run.sh, as `make run` starts it) plays its week; its
#      /metrics is scraped (and passes `promtool check metrics`);
#   3. tests/e2e/ops_check.py: the Grafana dashboard validates against
#      tests/e2e/grafana_dashboard.schema.json, and every metric name in the
#      dashboard's and the alert rules' expressions is in that scrape.
# Needs: promtool (prometheus), curl, jq, /usr/bin/python3 with python3-jsonschema and
# python3-yaml. Loopback only; every wait bounded.
set -eu
root=${SPOTLEDGER_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/demo_up.sh"
e2e_begin_named e2e_ops run_pid

need promtool curl jq
/usr/bin/python3 -c 'import jsonschema, yaml' || fail "python3-jsonschema and python3-yaml are needed"
[ -x "${SPOTSIM_BIN:-}" ] && [ -x "${SPOTLEDGER_BIN:-}" ] || fail "SPOTLEDGER_BIN and SPOTSIM_BIN must be built binaries"

# 1. the rules
promtool check rules "$root/deploy/prometheus/spotledger-alerts.yml" || fail "promtool check rules"
(cd "$root/deploy/prometheus" && promtool test rules spotledger-alerts.test.yml) || fail "promtool test rules"

# 1b. the dashboard's expressions: each parses (promtool check rules on them as
# recording rules, $job and $cluster as ".*") and, over the series of two
# clusters east and west (docs/fleet.md "/metrics: the cluster label"), the
# cost panel sums over cluster (spot: east 3 + west 2 = 5 USD) while the cost
# per successful task, reclaims and replacement delay keep one series per
# cluster (values by hand below, not from spotledger)
jq '{groups: [{name: "dashboard", rules: [.panels[] as $p | $p.targets[]
      | {record: "dashboard:p\($p.id)_\(.refId)",
         expr: (.expr | gsub("\\$job"; ".*") | gsub("\\$cluster"; ".*"))}]}]}' \
  "$root/deploy/grafana/spotledger-dashboard.json" > "$dir/dashboard_rules.json"
promtool check rules "$dir/dashboard_rules.json" || fail "promtool check rules on the dashboard's expressions"
l='job="spotledger",instance="i"'
cat > "$dir/dashboard_test.yml" <<YML
rule_files: [dashboard_rules.json]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - {series: 'spotledger_cost_usd{$l,cluster="east",configuration="spot"}', values: '3x5'}
      - {series: 'spotledger_cost_usd{$l,cluster="west",configuration="spot"}', values: '2x5'}
      - {series: 'spotledger_cost_per_successful_task_usd{$l,cluster="east",configuration="spot",basis="measured"}', values: '4.8x5'}
      - {series: 'spotledger_cost_per_successful_task_usd{$l,cluster="west",configuration="spot",basis="measured"}', values: '3.6x5'}
      - {series: 'spotledger_reclaims{$l,cluster="east"}', values: '1x5'}
      - {series: 'spotledger_reclaims{$l,cluster="west"}', values: '2x5'}
      - {series: 'spotledger_reclaim_replacement_delay_seconds{$l,cluster="west"}', values: '700x5'}
    promql_expr_test:
      - expr: dashboard:p2_A
        eval_time: 2m
        exp_samples: [{labels: 'dashboard:p2_A{configuration="spot"}', value: 5}]
      - expr: dashboard:p1_A
        eval_time: 2m
        exp_samples:
          - {labels: 'dashboard:p1_A{$l,cluster="east",configuration="spot",basis="measured"}', value: 4.8}
          - {labels: 'dashboard:p1_A{$l,cluster="west",configuration="spot",basis="measured"}', value: 3.6}
      - expr: dashboard:p6_A
        eval_time: 2m
        exp_samples:
          - {labels: 'dashboard:p6_A{cluster="east"}', value: 1}
          - {labels: 'dashboard:p6_A{cluster="west"}', value: 2}
      - expr: dashboard:p6_B
        eval_time: 2m
        exp_samples: [{labels: 'dashboard:p6_B{cluster="west"}', value: 700}]
YML
(cd "$dir" && promtool test rules dashboard_test.yml) || fail "promtool test rules on the dashboard's expressions"

# 2. the demo's /metrics at the end of its week
demo_start "$dir"
demo_week_done 150
settle "$base" "do k8s do_billing" 60 || fail "no second poll of the final state"
curl -sf --max-time 30 "$base/metrics" >"$dir/metrics" || fail "no /metrics from the demo"
promtool check metrics <"$dir/metrics" || fail "promtool rejected the demo's /metrics"
# the demo reclaims its Spot pool mid-week and DigitalOcean shows an invoice
# preview: the two families the alerts added must have samples, not only HELP lines
for m in spotledger_reclaim_replacement_delay_seconds spotledger_reconciliation_unexplained_ratio; do
  grep -q "^$m" "$dir/metrics" || fail "the demo's /metrics has no $m sample: $(grep "$m" "$dir/metrics")"
done
# the scenario's reclaims all fall in the last 7 days of its week
want=$(jq '.reclaims | length' "$root/deploy/demo/scenario.json")
# (one cluster, the single-cluster flags': cluster="default", docs/fleet.md)
grep -q "^spotledger_reclaims{cluster=\"default\"} $want\$" "$dir/metrics" ||
  fail "the demo reclaims $want times, /metrics says: $(grep '^spotledger_reclaims' "$dir/metrics")"

# 3. the dashboard and the rules against the scrape
/usr/bin/python3 "$root/tests/e2e/ops_check.py" "$root/tests/e2e/grafana_dashboard.schema.json" \
  "$root/deploy/grafana/spotledger-dashboard.json" "$root/deploy/prometheus/spotledger-alerts.yml" \
  "$dir/metrics" || fail "ops_check"
# ... and the check fails where it should: a metric the scrape lacks, a panel
# without targets
jq '.panels[0].targets[0].expr = "spotledger_no_such_metric_total"' \
  "$root/deploy/grafana/spotledger-dashboard.json" >"$dir/bad1.json"
jq 'del(.panels[1].targets)' "$root/deploy/grafana/spotledger-dashboard.json" >"$dir/bad2.json"
for b in bad1 bad2; do
  if /usr/bin/python3 "$root/tests/e2e/ops_check.py" "$root/tests/e2e/grafana_dashboard.schema.json" \
    "$dir/$b.json" "$root/deploy/prometheus/spotledger-alerts.yml" "$dir/metrics" >"$dir/$b.out"; then
    fail "ops_check accepted $b: $(cat "$dir/$b.out")"
  fi
done
grep -q 'metric spotledger_no_such_metric_total is not in the /metrics scrape' "$dir/bad1.out" ||
  fail "ops_check did not name the missing metric: $(cat "$dir/bad1.out")"
grep -q "schema: 'targets' is a required property" "$dir/bad2.out" ||
  fail "ops_check did not name the panel without targets: $(cat "$dir/bad2.out")"
echo "e2e_ops: ok"
