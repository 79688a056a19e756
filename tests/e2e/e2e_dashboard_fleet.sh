#!/bin/sh
# e2e_dashboard_fleet — the dashboard's cluster picker and by-cluster table
# (web/clusters.js, issue 22, docs/fleet.md) in real headless Chromium, driven
# over the DevTools protocol (cdp_page.py), against spotledger watching two
# simulated clusters, east and west (fleet_stack.sh: spotsim --also-cluster,
# each cluster with its own independent oracle truth). Expected figures come
# from the truth files, never from the page:
#
#   1. 1280 px: the picker lists both clusters; the table has one group per
#      cluster whose rows (cost per successful task, successful tasks, spend,
#      idle, per configuration) equal that cluster's truth to the micro-dollar,
#      and a fleet total whose successful tasks, spend and idle are the sums of
#      the two truths (its cost per task: the API's fleet summary); the cards
#      show the fleet (tasks and cost = the sums);
#   1b. the setup advice of the fleet: every finding of /advice names east or
#      west, and the panel lists each finding with that cluster beside it;
#   2. choosing "east" in the picker: the URL gets cluster=east, every card
#      figure is east's truth, the table holds east and its total only; on a
#      link with cluster=east the two downloads (the view's summary, the
#      table) are the export with cluster=east, every row east's; the
#      experiment picker lists both clusters' experiments, then east's only
#      (the scenarios' labels: tests/fixtures/sim/small.json, TMP/west.json);
#   3. a shared link with cluster=west on a 390 px phone: the picker shows west,
#      the cards are west's truth, the experiment picker west's labels, the
#      page has no horizontal overflow and the
#      table fits its panel (no sideways scrolling); screenshot;
#   4. a link with cluster=east,west: "Several…" with both boxes ticked, the
#      cards are the fleet; unticking west and pressing Apply narrows to east;
#   5. a service with a single cluster: no picker, no table, and a linked
#      cluster= is dropped from the URL.
# Every page must log nothing on the console. Screenshots:
# build/test-output/dashboard-fleet-1280.png, dashboard-fleet-390.png.
# POSIX sh, loopback only, bounded waits; kills only the processes it started.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_dashboard_fleet svc.err
out_dir="$root/build/test-output"
sim_pid=; svc_pid=; one=
on_exit_stop one svc_pid sim_pid
. "$(dirname "$0")/fleet_stack.sh"

command -v jq >/dev/null || fail "jq is not installed"
command -v python3 >/dev/null || fail "python3 is not installed (make deps installs it)"
find_chromium
mkdir -p "$out_dir"

fleet_stack_start "$dir" --web-dir "$root/web"
w="$start,$until"
# the experiment labels of each cluster's scenario, as the picker should list them
labels() { jq -c '["", ([.workloads[].experiment // empty] | unique)[]]' "$@"; }
east_exps=$(labels "$root/tests/fixtures/sim/small.json")
west_exps=$(labels "$dir/west.json")
fleet_exps=$(jq -cs '["", ([.[].workloads[].experiment // empty] | unique)[]]' \
  "$root/tests/fixtures/sim/small.json" "$dir/west.json")
[ "$east_exps" != "$west_exps" ] || fail "east and west share their experiment labels: $east_exps"
curl -sf --max-time 30 "$base/api/v1/summary?window=$w" > "$dir/fleet.summary" || fail "fleet summary"

# cdp URL SIZE EVAL_JS PNG OUT: one page, read once the view is loaded; the
# console must stay silent
ready='document.body.dataset.panels === "ready" && document.getElementById("experiment-select").dataset.cluster !== undefined && ["ready", "single"].includes(document.getElementById("clusters-panel").dataset.state) && document.getElementById("status-text").textContent !== "Sources…"'
cdp() {
  timeout -k 5 150 python3 "$root/tests/e2e/cdp_page.py" "$chromium" "$1" "$2" "$ready" "$3" "$4" 120 \
    > "$5" || fail "the DevTools driver failed on $1 at $2"
  if jq -e '.console | length > 0' "$5" >/dev/null; then
    jq -r '.console[]' "$5" >&2
    fail "console messages on $1 at $2 (above)"
  fi
}

# What a page shows: the picker, the table's rows, the cards' figures, widths.
collect='const collect = () => ({
  hash: decodeURIComponent(location.hash),
  fieldHidden: document.getElementById("cluster-field").hidden,
  options: [...document.querySelectorAll("#cluster-select option")].map((o) => o.value),
  selected: document.getElementById("cluster-select").value,
  experiments: [...document.querySelectorAll("#experiment-select option")].map((o) => o.value),
  checks: [...document.querySelectorAll("#cluster-checks input")].map((c) => c.value + (c.checked ? "+" : "-")),
  severalHidden: document.getElementById("cluster-several").hidden,
  panel: document.getElementById("clusters-panel").dataset.state,
  panelHidden: document.getElementById("clusters-panel").hidden,
  headers: [...document.querySelectorAll("#clusters-table thead th[scope=col]")].map((th) => th.textContent),
  groups: [...document.querySelectorAll("#clusters-table tbody")].map((b) => b.dataset.total ? "*total" : b.dataset.cluster),
  groupHeads: [...document.querySelectorAll("#clusters-table tbody th[scope=rowgroup]")].length,
  table: [...document.querySelectorAll("#clusters-table tbody tr[data-configuration]")].map((r) => ({
    group: r.parentNode.dataset.total ? "*total" : r.parentNode.dataset.cluster,
    configuration: r.dataset.configuration, basis: r.dataset.basis,
    rowHeader: r.querySelector("th[scope=row]") !== null,
    values: Object.fromEntries([...r.querySelectorAll("td[data-field]")].map((td) => [td.dataset.field, td.dataset.value])) })),
  cards: Object.fromEntries([...document.querySelectorAll("[data-card][data-field]")].map((e) => [e.dataset.card + "." + e.dataset.field, e.dataset.value])),
  scrollW: document.documentElement.scrollWidth, innerW: window.innerWidth,
  wrapOver: ((x) => x.scrollWidth - x.clientWidth)(document.querySelector("#clusters-panel .table-wrap")) });
const settle = async (cond) => { const t0 = performance.now();
  while (!cond()) { if (performance.now() - t0 > 30000) throw new Error("no reload within 30 s"); await new Promise((r) => setTimeout(r, 50)); } };
const loaded = () => '"$ready"';'

# --- the checks, in jq (micro-dollars: every money figure times 1e6, rounded) ---
# m: a figure as an integer count of micro-units, or null
jqdefs='def m: if . == null or . == "null" then null else (tonumber * 1000000 | round) end;
def fields: ["cost_per_successful_task", "tasks_succeeded", "cost", "idle_cost"];
def cardfields($b): ["cost_per_successful_task", "tasks_succeeded", "cost"]
  + (if $b == "measured" then ["tasks_failed", "attempts", "retries", "interruptions"] else [] end);'
# table_diff PAGE_VIEW GROUP TRUTH: the rows of GROUP against TRUTH (.oracle)
table_diff() {
  jq -rn --argjson v "$1" --arg g "$2" --slurpfile t "$3" "$jqdefs"'
    ($t[0].oracle.configurations) as $want
    | ([$v.table[] | select(.group == $g)] | length) as $n
    | if $n != ($want | length) then "\($g): \($n) rows, truth has \($want | length)" else empty end,
      ($want[] as $c
       | ([$v.table[] | select(.group == $g and .configuration == $c.configuration and .basis == $c.basis)][0]) as $r
       | if $r == null then "\($g) \($c.configuration)/\($c.basis): no row"
         else fields[] as $f | select(($r.values[$f] | m) != ($c[$f] | m))
           | "\($g) \($c.configuration)/\($c.basis) \($f): page \($r.values[$f]), truth \($c[$f])" end)'
}
# total_diff PAGE_VIEW: the total rows against east + west and the API fleet summary
total_diff() {
  jq -rn --argjson v "$1" --slurpfile e "$dir/east.truth" --slurpfile w "$dir/west.truth" \
    --slurpfile f "$dir/fleet.summary" "$jqdefs"'
    $e[0].oracle.configurations[] as $a
    | ([$w[0].oracle.configurations[] | select(.configuration == $a.configuration and .basis == $a.basis)][0]) as $b
    | ([$f[0].configurations[] | select(.configuration == $a.configuration and (.basis // "measured") == $a.basis)][0]) as $fl
    | ([$v.table[] | select(.group == "*total" and .configuration == $a.configuration and .basis == $a.basis)][0]) as $r
    | if $r == null then "total \($a.configuration)/\($a.basis): no row"
      else (["tasks_succeeded", "cost", "idle_cost"][] as $k
            | (if ($a[$k] | m) == null and ($b[$k] | m) == null then null else (($a[$k] | m) // 0) + (($b[$k] | m) // 0) end) as $sum
            | select(($r.values[$k] | m) != $sum)
            | "total \($a.configuration)/\($a.basis) \($k): page \($r.values[$k]), east + west \($sum) micro"),
           (select(($r.values.cost_per_successful_task | m) != ($fl.cost_per_successful_task | m))
            | "total \($a.configuration)/\($a.basis) cost per task: page \($r.values.cost_per_successful_task), API fleet \($fl.cost_per_successful_task)")
      end'
}
# cards_diff PAGE_VIEW TRUTH: every card figure of TRUTH's configurations
cards_diff() {
  jq -rn --argjson v "$1" --slurpfile t "$2" "$jqdefs"'
    $t[0].oracle.configurations[] as $c | cardfields($c.basis)[] as $f
    | ($v.cards[$c.configuration + ":" + $c.basis + "." + $f]) as $got
    | select(($got | m) != ($c[$f] | m))
    | "card \($c.configuration)/\($c.basis) \($f): page \($got), truth \($c[$f])"'
}
# fleet_cards_diff PAGE_VIEW: the cards of the fleet: tasks and cost = east + west
fleet_cards_diff() {
  jq -rn --argjson v "$1" --slurpfile e "$dir/east.truth" --slurpfile w "$dir/west.truth" "$jqdefs"'
    $e[0].oracle.configurations[] as $a
    | ([$w[0].oracle.configurations[] | select(.configuration == $a.configuration and .basis == $a.basis)][0]) as $b
    | ["tasks_succeeded", "cost"][] as $k
    | ($v.cards[$a.configuration + ":" + $a.basis + "." + $k]) as $got
    | select(($got | m) != (($a[$k] | m) + ($b[$k] | m)))
    | "fleet card \($a.configuration)/\($a.basis) \($k): page \($got), east + west \(($a[$k] | m) + ($b[$k] | m)) micro"'
}
must_be_empty() { # LABEL DIFF_OUTPUT
  if [ -n "$2" ]; then echo "$2" | head -20 >&2; fail "$1 (above)"; fi
}

# to_east URL ACTION_JS OUT: at 1280 px, what the page shows ($before), then
# after ACTION_JS narrowed the view to east and it reloaded ($after)
to_east() {
  cdp "$1" 1280x900 "(async () => { $collect
  const before = collect();
  $2
  await settle(() => loaded() && location.hash.includes(\"cluster=east\") && document.getElementById(\"experiment-select\").dataset.cluster === \"east\");
  return { before, after: collect() }; })()" - "$3"
  before=$(jq -c .value.before "$3")
  after=$(jq -c .value.after "$3")
}

# 1 + 2. desktop: both clusters listed, the table, then choose east
to_east "$base/#window=$w" 'const sel = document.getElementById("cluster-select");
  sel.value = "east";
  sel.dispatchEvent(new Event("change"));' "$dir/desk.json"
echo "$before" | jq -e '.fieldHidden == false and .options == ["", "east", "west", "*several"] and .selected == ""' >/dev/null ||
  fail "the picker does not list both clusters: $(echo "$before" | jq -c '{fieldHidden, options, selected}')"
echo "$before" | jq -e '.groups == ["east", "west", "*total"] and .groupHeads == 3 and (.table | all(.rowHeader))
    and .headers == ["Configuration", "Cost per successful task", "Successful tasks", "Spend", "Idle"]' >/dev/null ||
  fail "the table's structure: $(echo "$before" | jq -c '{groups, groupHeads, headers}')"
must_be_empty "east's rows differ from its truth" "$(table_diff "$before" east "$dir/east.truth")"
must_be_empty "west's rows differ from its truth" "$(table_diff "$before" west "$dir/west.truth")"
must_be_empty "the fleet total is not the sum" "$(total_diff "$before")"
must_be_empty "the fleet cards are not the sums" "$(fleet_cards_diff "$before")"
note "1280 px: picker lists east and west; $(echo "$before" | jq '.table | length') table rows equal the truths, the total their sums"
echo "$after" | jq -e '.selected == "east" and (.hash | test("cluster=east(&|$)")) and .groups == ["east", "*total"]' >/dev/null ||
  fail "choosing east: $(echo "$after" | jq -c '{selected, hash, groups}')"
must_be_empty "the cards after choosing east are not east's truth" "$(cards_diff "$after" "$dir/east.truth")"
must_be_empty "east's rows after choosing east" "$(table_diff "$after" east "$dir/east.truth")"
[ "$(echo "$before" | jq -c .cards)" != "$(echo "$after" | jq -c .cards)" ] || fail "choosing east did not change the cards"
note "choosing east: URL $(echo "$after" | jq -r .hash), $(echo "$after" | jq '.cards | length') card figures = east's truth"
[ "$(echo "$before" | jq -c .experiments)" = "$fleet_exps" ] ||
  fail "the fleet's experiment picker: $(echo "$before" | jq -c .experiments), want $fleet_exps"
exps_after=$(echo "$after" | jq -c .experiments)
[ "$exps_after" = "$east_exps" ] ||
  fail "the experiment picker after choosing east: $exps_after, want $east_exps"
note "experiment picker: $fleet_exps for the fleet, $east_exps for east"

# 1b. the advisor's findings on the fleet (docs/fleet.md): the API runs it per cluster, each
# finding names east or west; the panel lists every finding with its cluster beside the title
curl -sf --max-time 30 "$base/api/v1/advice?window=$w" > "$dir/advice.json" || fail "fleet advice"
jq -e '(.findings | length) > 0 and (.findings | all(.cluster == "east" or .cluster == "west"))' \
  "$dir/advice.json" >/dev/null || fail "the fleet's advice does not name a cluster per finding: $(jq -c '[.findings[] | {id, cluster}]' "$dir/advice.json")"
n_advice=$(jq '.findings | length' "$dir/advice.json")
cdp "$base/#window=$w" 1280x900 "(async () => { $collect
  await settle(() => document.querySelectorAll(\"#advice-list li\").length >= $n_advice);
  return [...document.querySelectorAll(\"#advice-list li\")].map((li) => ({ rule: li.dataset.rule,
    cluster: (li.querySelector(\".finding-cluster\") || {}).textContent || null })); })()" - "$dir/advice.page.json"
jq -e --slurpfile a "$dir/advice.json" \
  '(.value | map([.rule, .cluster]) | sort) == ($a[0].findings | map([.rule, .cluster]) | sort)' \
  "$dir/advice.page.json" >/dev/null ||
  fail "the advice panel: $(jq -c .value "$dir/advice.page.json"), the API: $(jq -c '[.findings[] | [.rule, .cluster]]' "$dir/advice.json")"
note "advice: $n_advice findings, each with its cluster on the page ($(jq -c '[.findings[] | .cluster] | group_by(.) | map({(.[0]): length}) | add' "$dir/advice.json"))"

# 2b. the downloads of a cluster view: "This view: summary" and "This table"
# fetch the export with the view's cluster= (the files are captured in the page)
downloads="(async () => { $collect
  const blobs = [];
  URL.createObjectURL = (b) => { blobs.push(b); return \"blob:captured-\" + blobs.length; };
  HTMLAnchorElement.prototype.click = function () {};
  const out = {};
  for (const [id, sel] of [[\"view\", \"button.download[data-kind=summary]:not([data-aggregate])\"], [\"table\", \"#clusters-download\"]]) {
    const n = blobs.length;
    document.querySelector(sel).click();
    await settle(() => blobs.length > n || !document.getElementById(\"global-error\").hidden);
    out[id] = blobs.length > n ? await blobs[n].text() : \"ERROR \" + document.getElementById(\"global-error\").textContent;
  }
  return out; })()"
cdp "$base/#window=$w&cluster=east" 1280x900 "$downloads" - "$dir/dl.json"
q="from=$start&to=$until&kind=summary&cluster=east"
for f in view table; do
  extra=; [ $f = table ] && extra="&aggregate=cluster"
  curl -sf --max-time 30 "$base/api/v1/export.csv?$q$extra" > "$dir/want.$f.csv" || fail "export.csv?$q$extra"
  jq -j --arg f $f '.value[$f]' "$dir/dl.json" > "$dir/got.$f.csv"
  cmp -s "$dir/want.$f.csv" "$dir/got.$f.csv" ||
    fail "download '$f' of the east view differs from export.csv?$q$extra: $(head -c 300 "$dir/got.$f.csv")"
  # every row is east's (the cluster column: the last one, docs/fleet.md)
  rows=$(tail -n +2 "$dir/got.$f.csv" | tr -d '\r' | grep -c .) || true
  east=$(tail -n +2 "$dir/got.$f.csv" | tr -d '\r' | grep -c ',east$') || true
  [ "$rows" -gt 0 ] && [ "$rows" = "$east" ] || fail "download '$f': $east of $rows rows in cluster east"
done
note "downloads of the east view: the summary and the by-cluster table equal export.csv with cluster=east, every row east's"

# 3. a shared link on a phone: cluster=west
phone="(() => { $collect
  document.getElementById(\"clusters-panel\").scrollIntoView();
  return collect(); })()"
cdp "$base/#window=$w&cluster=west" 390x844m "$phone" "$out_dir/dashboard-fleet-390.png" "$dir/phone.json"
pv=$(jq -c .value "$dir/phone.json")
echo "$pv" | jq -e '.selected == "west" and .groups == ["west", "*total"]' >/dev/null ||
  fail "the link cluster=west: $(echo "$pv" | jq -c '{selected, hash, groups}')"
must_be_empty "the cards of the link cluster=west are not west's truth" "$(cards_diff "$pv" "$dir/west.truth")"
must_be_empty "west's rows on the phone" "$(table_diff "$pv" west "$dir/west.truth")"
[ "$(echo "$pv" | jq -c .experiments)" = "$west_exps" ] ||
  fail "the experiment picker of the link cluster=west: $(echo "$pv" | jq -c .experiments), want $west_exps"
echo "$pv" | jq -e '.scrollW <= .innerW and .wrapOver <= 0' >/dev/null ||
  fail "390 px: page $(echo "$pv" | jq .scrollW) px wide in $(echo "$pv" | jq .innerW), table overflows its panel by $(echo "$pv" | jq .wrapOver) px"
note "390 px: link cluster=west keeps west, cards = west's truth, page $(echo "$pv" | jq .scrollW) px in $(echo "$pv" | jq .innerW), table fits; screenshot $out_dir/dashboard-fleet-390.png"

# 4. several: both ticked from the link, then untick west and Apply
to_east "$base/#window=$w&cluster=east,west" 'document.getElementById("cluster-check-west").checked = false;
  document.getElementById("apply-button").click();' "$dir/several.json"
sb=$before
sa=$after
echo "$sb" | jq -e '.selected == "*several" and .severalHidden == false and .checks == ["east+", "west+"] and .groups == ["east", "west", "*total"]' >/dev/null ||
  fail "the link cluster=east,west: $(echo "$sb" | jq -c '{selected, severalHidden, checks, groups}')"
must_be_empty "the cards of east,west are not the sums" "$(fleet_cards_diff "$sb")"
must_be_empty "the total of east,west" "$(total_diff "$sb")"
echo "$sa" | jq -e '.selected == "east" and (.hash | test("cluster=east(&|$)")) and .groups == ["east", "*total"]' >/dev/null ||
  fail "unticking west: $(echo "$sa" | jq -c '{selected, hash, groups}')"
must_be_empty "the cards after unticking west" "$(cards_diff "$sa" "$dir/east.truth")"
note "several: link cluster=east,west ticks both (cards = sums); unticking west narrows to east"

# the desktop screenshot: the table of both clusters
shot="(() => { $collect
  document.getElementById(\"clusters-panel\").scrollIntoView();
  return collect(); })()"
cdp "$base/#window=$w" 1280x900 "$shot" "$out_dir/dashboard-fleet-1280.png" "$dir/shot.json"
note "screenshot: $out_dir/dashboard-fleet-1280.png"

# 5. a single-cluster service: no picker, no table, a linked cluster= dropped
"$ledger" --no-kube --listen 127.0.0.1:0 --db "$dir/one.db" --web-dir "$root/web" \
  > "$dir/one.out" 2> "$dir/one.err" &
one=$!
wait_start "$dir/one.out" "$dir/one.err" '^spotledger: listening on ' "the single-cluster spotledger"
one_base="http://$(awk '/^spotledger: listening on /{print $4}' "$dir/one.out")"
n=$(curl -sf --max-time 10 "$one_base/api/v1/status" | jq '.clusters // [] | length')
[ "$n" -le 1 ] || fail "the single-cluster service lists $n clusters"
single="(async () => { $collect
  await settle(() => !location.hash.includes(\"cluster=\") && loaded());
  return collect(); })()"
cdp "$one_base/#cluster=east" 1280x900 "$single" - "$dir/single.json"
sv=$(jq -c .value "$dir/single.json")
echo "$sv" | jq -e '.fieldHidden == true and .severalHidden == true and .panelHidden == true and .panel == "single" and (.hash | test("cluster") | not)' >/dev/null ||
  fail "single cluster: $(echo "$sv" | jq -c '{fieldHidden, severalHidden, panelHidden, panel, hash}')"
note "single cluster ($n in status): picker and table hidden, the linked cluster= dropped"
echo "e2e_dashboard_fleet: ok"
