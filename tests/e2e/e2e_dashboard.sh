#!/bin/sh
# End-to-end: the web dashboard in real headless Chromium against a running spotledger.
#
#   1. the page loads with no console message at all (app.js logs nothing, so any
#      message is an error, a CSP violation or an uncaught exception);
#   2. every figure on the overview cards ([data-card][data-field]) shows exactly
#      what /api/v1/summary returns, formatted by the rules of web/format.js
#      (re-implemented below in awk on decimal strings, never through floats),
#      and its data-value is the exact API value;
#   3. opening #task=<uid> shows that task's attempts table, one row per attempt;
#   4. a screenshot is written to build/test-output/dashboard-1280.png;
#   5. the time to first meaningful paint (cards filled; app.js writes it into
#      <body data-first-paint-ms>) is printed, with the wall-clock time of the
#      whole headless load beside it;
#   6. the "What if" panel (web/whatif.js, GET /api/v1/whatif): its three bars,
#      break-even rate and best checkpoint interval equal the API's answer to the
#      query the panel sent; moving the reclaims slider sends one debounced query
#      with reclaims_per_day and shows that answer; no horizontal overflow on a
#      390 px phone; hidden (and tested hidden) where the route answers 404.
#
# Stack: start_stack() runs `make run`'s demo (deploy/demo/run.sh) on a free port.
# E2E_DASHBOARD_URL=http://127.0.0.1:PORT skips start_stack and tests that
# server instead (e.g. a mock API during development). E2E_WINDOW picks the
# window (default: the dashboard's default, "week").
#
# Needs: sh, curl, jq, chromium (Debian package "chromium"). Loopback only.
# Bounded: every step has a timeout; cleans up its processes and temp files.
set -eu

root=${SPOTLEDGER_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
out_dir="$root/build/test-output"
. "$(dirname "$0")/lib.sh"
e2e_begin_named e2e_dashboard ledger_pid sim_pid run_pid
. "$(dirname "$0")/demo_up.sh"

need curl jq
find_chromium

# wait_listen FILE: the port from a "listening on 127.0.0.1:PORT" line, within 10 s
wait_listen() {
  i=0
  while ! grep -q 'listening on' "$1" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 100 ] || return 1
    sleep 0.1
  done
  sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$1" | head -n 1
}

# sim_runs: true when $SPOTSIM_BIN is a working simulator (not the placeholder)
sim_runs() {
  [ -n "${SPOTSIM_BIN:-}" ] && [ -x "$SPOTSIM_BIN" ] && "$SPOTSIM_BIN" --help >/dev/null 2>&1
}

# start_stack: sets $base (http://127.0.0.1:PORT) and $with_sim (1 when demo data flows).
# With the simulator: `make run`'s own script (deploy/demo/run.sh) on a free port,
# in a private run folder, at its default speed (the demo week in 60 s), with the binaries
# under test; the tests begin once it says the simulated week is complete.
# Without it: spotledger alone with --no-kube.
start_stack() {
  with_sim=0
  if sim_runs && [ -f "$root/deploy/demo/scenario.json" ]; then
    demo_start "$dir"
    with_sim=1
    demo_week_done 120
    settle "$base" "do k8s" 30 || fail "no second poll of the final state"
  else
    "${SPOTLEDGER_BIN:?}" --no-kube --listen 127.0.0.1:0 --db "$dir/ledger.db" --web-dir "$root/web" \
      >"$dir/ledger.out" 2>"$dir/ledger.err" &
    ledger_pid=$!
    port=$(wait_listen "$dir/ledger.out") || fail "spotledger did not start: $(cat "$dir/ledger.err")"
    base="http://127.0.0.1:$port"
  fi
}

if [ -n "${E2E_DASHBOARD_URL:-}" ]; then
  base=${E2E_DASHBOARD_URL%/}
  with_sim=1
else
  start_stack
fi
if [ "$with_sim" = 1 ] && [ -z "${E2E_DASHBOARD_URL:-}" ]; then
  window=${E2E_WINDOW:-2026-W46}
else
  window=${E2E_WINDOW:-week}
fi
hash=
[ "$window" = week ] || hash="window=$window"

code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$base/api/v1/summary?window=$window" || true)
[ "$code" = 200 ] || fail "/api/v1/summary answered $code"

api() { curl -sf --max-time 10 "$base/api/v1/$1" || fail "GET /api/v1/$1 failed"; }

# With the demo, wait (≤ 60 s) until the poller has stored some finished tasks.
if [ "$with_sim" = 1 ]; then
  i=0
  while :; do
    n=$(api "summary?window=$window" | jq '[.configurations[]? | .tasks_succeeded // 0] | add // 0')
    [ "$n" -gt 0 ] && break
    i=$((i + 1)); [ $i -le 120 ] || fail "no succeeded task in the summary after 60 s"
    sleep 0.5
  done
fi

# chrome OUTFILE URL [extra flags...]: one headless run, stderr (console) to OUTFILE.log
chrome() {
  cout=$1; url=$2; shift 2
  prof=$(mktemp -d "$dir/profile.XXXXXX")
  timeout -k 5 90 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-default-apps --disable-extensions --mute-audio \
    --user-data-dir="$prof" --enable-logging=stderr --v=0 --window-size=1280,900 \
    --virtual-time-budget=15000 "$@" "$url" >"$cout" 2>"$cout.log" || true
}

# Is there a what-if planner (GET /api/v1/whatif, issue 21)? Without it (404) the
# panel's one refused request is the only console line a page may show.
wcode=$(curl -s -o /dev/null -w '%{http_code}' --max-time 60 "$base/api/v1/whatif?window=$window" || true)

# console_clean LOG: no console message of the page
console_clean() {
  if grep ':CONSOLE' "$1" | { if [ "$wcode" = 404 ]; then grep -v -e '404.*whatif' -e 'whatif.*404'; else cat; fi; } | grep -q .; then
    grep ':CONSOLE' "$1" | sed 's/^[^]]*] /  /' >&2
    fail "console messages while loading the dashboard (above)"
  fi
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# 0. the setup advisor finds the mistakes the demo scenario plants (src/sim/README.md)
if [ "$with_sim" = 1 ] && [ -z "${E2E_DASHBOARD_URL:-}" ]; then
  api "advice?window=$window" >"$dir/advice.json"
  for rule in spot-autoscale fallback-min-nodes pod-failure-policy spot-taint; do
    jq -e --arg r "$rule" '[.findings[] | select(.rule == $r)] | length > 0' "$dir/advice.json" \
      >/dev/null || fail "the advisor missed the planted mistake '$rule'"
  done
  note "advice: the 4 planted mistakes found ($(jq -c .counts "$dir/advice.json"))"
fi

# 1. overview: dump the DOM between two summary fetches (the demo may still be polling)
api "summary?window=$window" >"$dir/summary1.json"
api "summary?window=$window&uncertainty=true" >"$dir/unc1.json"
t0=$(now_ms)
chrome "$dir/dom.html" "$base/#$hash" --dump-dom
t1=$(now_ms)
api "summary?window=$window" >"$dir/summary2.json"
api "summary?window=$window&uncertainty=true" >"$dir/unc2.json"
[ -s "$dir/dom.html" ] || fail "chromium produced no DOM: $(tail -n 5 "$dir/dom.html.log")"
console_clean "$dir/dom.html.log"
grep -q '<body[^>]*data-state="ready"' "$dir/dom.html" ||
  fail "the dashboard did not reach data-state=ready: $(grep -o '<body[^>]*>' "$dir/dom.html")"

# Figures as lines "card<TAB>field<TAB>data-value<TAB>text" (text never holds '<').
grep -o 'data-card="[^"]*" data-field="[^"]*" data-value="[^"]*"[^>]*>[^<]*<' "$dir/dom.html" |
  sed 's/^data-card="\([^"]*\)" data-field="\([^"]*\)" data-value="\([^"]*\)"[^>]*>\([^<]*\)<$/\1	\2	\3	\4/' \
    >"$dir/figures.tsv"
[ -s "$dir/figures.tsv" ] || fail "no [data-card][data-field] figure in the DOM"

# expected SUMMARY.json: the same lines computed from the API with the format.js rules
expected() {
  while IFS='	' read -r card field _v _t; do
    conf=${card%%:*}; basis=${card#*:}
    if [ "$conf" = all ]; then
      raw=$(jq -r --arg f "$field" 'getpath($f | split(".")) | if . == null then "null" else tostring end' "$1")
    else
      raw=$(jq -r --arg c "$conf" --arg b "$basis" --arg f "$field" \
        '[.configurations[] | select(.configuration == $c and ((.basis // "measured") == $b))][0]
         | if . == null then "null" else (getpath($f | split(".")) | if . == null then "null" else tostring end) end' "$1")
    fi
    case "$field" in
      *_percent) kind=percent ;;
      restore_seconds.* | *_seconds) kind=duration ;;
      cost | cost_per_successful_task | *_cost) kind=money ;;
      *) kind=count ;;
    esac
    printf '%s\t%s\t%s\t%s\n' "$card" "$field" "$kind" "$raw"
  done <"$dir/figures.tsv" | awk -F '\t' -v OFS='\t' '
    function zeros(n,   s) { s = ""; while (n-- > 0) s = s "0"; return s }
    # exact plain decimal of a jq number ("1e-06" -> "0.000001")
    function expand(s,   sign, n, e, ip, fp, digits, point) {
      sign = ""; if (substr(s, 1, 1) == "-") { sign = "-"; s = substr(s, 2) }
      e = 0; n = index(s, "e"); if (n == 0) n = index(s, "E")
      if (n > 0) { e = substr(s, n + 1) + 0; s = substr(s, 1, n - 1) }
      n = index(s, ".")
      if (n > 0) { ip = substr(s, 1, n - 1); fp = substr(s, n + 1) } else { ip = s; fp = "" }
      digits = ip fp; point = length(ip) + e
      if (point <= 0) { digits = zeros(1 - point) digits; point = 1 }
      else if (point > length(digits)) digits = digits zeros(point - length(digits))
      ip = substr(digits, 1, point); fp = substr(digits, point + 1)
      sub(/^0+/, "", ip); if (ip == "") ip = "0"
      sub(/0+$/, "", fp)
      return sign ip (fp != "" ? "." fp : "")
    }
    # round a plain decimal to exactly p places, half away from zero, on the digits
    function rnd(s, p,   sign, n, ip, fp, all, res, i, c, carry) {
      sign = ""; if (substr(s, 1, 1) == "-") { sign = "-"; s = substr(s, 2) }
      n = index(s, ".")
      if (n > 0) { ip = substr(s, 1, n - 1); fp = substr(s, n + 1) } else { ip = s; fp = "" }
      if (length(fp) <= p) fp = fp zeros(p - length(fp))
      else {
        up = (substr(fp, p + 1, 1) >= "5"); fp = substr(fp, 1, p)
        if (up) {
          all = ip fp; res = ""; carry = 1
          for (i = length(all); i >= 1; i--) {
            c = substr(all, i, 1) + carry
            if (c == 10) { c = 0; carry = 1 } else carry = 0
            res = c res
          }
          if (carry) res = "1" res
          ip = substr(res, 1, length(res) - p); fp = substr(res, length(res) - p + 1)
        }
      }
      sub(/^0+/, "", ip); if (ip == "") ip = "0"
      if ((ip fp) ~ /^0*$/) sign = ""
      return sign ip (p > 0 ? "." fp : "")
    }
    function group(ip,   out) {
      out = ""
      while (length(ip) > 3) { out = "," substr(ip, length(ip) - 2) out; ip = substr(ip, 1, length(ip) - 3) }
      return ip out
    }
    function fixed(s, p,   r, neg, n) {
      r = rnd(s, p); neg = (substr(r, 1, 1) == "-"); if (neg) r = substr(r, 2)
      n = index(r, ".")
      FIX_NEG = neg
      return n > 0 ? group(substr(r, 1, n - 1)) substr(r, n) : group(r)
    }
    function fmt(kind, d,   t, n) {
      if (d == "null") return "\342\200\224"   # em dash
      if (kind == "money") { t = fixed(d, 2); return (FIX_NEG ? "-" : "") "$" t }
      if (kind == "percent") { t = fixed(d, 1); return (FIX_NEG ? "-" : "") t "%" }
      if (kind == "count") {
        if (d !~ /^-?[0-9]+$/) return d
        return substr(d, 1, 1) == "-" ? "-" group(substr(d, 2)) : group(d)
      }
      if (d !~ /^[0-9]+$/) return d " s"
      n = d + 0
      if (n < 60) return n " s"
      if (n < 3600) return int(n / 60) " min " sprintf("%02d", n % 60) " s"
      return group(int(n / 3600) "") " h " sprintf("%02d", int((n % 3600) / 60)) " min"
    }
    { d = ($4 == "null") ? "null" : expand($4); print $1, $2, d, fmt($3, d) }'
}

# The cards must be complete: one per configuration the API returned, plus the four fixed ones.
for k in spot:measured fallback:measured on-demand:measured on-demand:counterfactual \
  $(jq -r '.configurations[] | .configuration + ":" + (.basis // "measured")' "$dir/summary1.json"); do
  c=${k%%:*}; b=${k#*:}
  grep -q "data-configuration=\"$c\" data-basis=\"$b\"" "$dir/dom.html" || fail "no card for $c ($b)"
  grep -q "^$k	cost_per_successful_task	" "$dir/figures.tsv" || fail "card $c ($b) shows no cost_per_successful_task"
done

match=
for s in 1 2; do
  expected "$dir/summary$s.json" >"$dir/expected$s.tsv"
  if cmp -s "$dir/figures.tsv" "$dir/expected$s.tsv"; then match=$s; break; fi
done
if [ -z "$match" ]; then
  echo "card figures (card, field, data-value, text) differ from /api/v1/summary:" >&2
  diff "$dir/expected1.tsv" "$dir/figures.tsv" | sed 's/^/  /' >&2 || true
  fail "the cards do not show the summary's figures"
fi
nfig=$(wc -l <"$dir/figures.tsv" | tr -d ' ')
note "cards: $nfig figures match /api/v1/summary exactly"
# the cards marked cheapest are exactly those with the lowest cost per successful task
want_cheap=$(jq -r '[.configurations[] | select(.cost_per_successful_task != null)] as $c
  | ($c | map(.cost_per_successful_task) | min) as $m
  | $c[] | select(.cost_per_successful_task == $m) | .configuration + ":" + (.basis // "measured")' \
  "$dir/summary$match.json" | sort | tr '\n' ' ')
got_cheap=$(grep -o 'data-configuration="[^"]*" data-basis="[^"]*" data-cheapest="true"' "$dir/dom.html" |
  sed 's/data-configuration="\([^"]*\)" data-basis="\([^"]*\)".*/\1:\2/' | sort | tr '\n' ' ')
[ "$got_cheap" = "$want_cheap" ] ||
  fail "cards marked cheapest: '$got_cheap'; the summary's lowest cost per successful task: '$want_cheap'"
note "cheapest: $got_cheap"

# "How sure?": the verdicts are the API's sentences, word for word, and each
# measured card's interval is the API's (docs/uncertainty.md). The bootstrap is
# deterministic, so the same rows give the same intervals.
unc_check() { # unc_check FILE: the DOM against one answer; prints why not, returns 1
  ncmp=0
  while IFS='	' read -r name text; do
    dom=$(grep -o "data-comparison=\"$name\" data-verdict=\"[^\"]*\">[^<]*<" "$dir/dom.html" | sed 's/.*">//; s/<$//' |
      sed 's/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g')
    [ "$dom" = "$text" ] || { echo "'How sure?' line $name: DOM '$dom', API '$text'"; return 1; }
    ncmp=$((ncmp + 1))
  done <<EOF_UNC
$(jq -r '.uncertainty.comparisons[] | [.name, .text] | @tsv' "$1")
EOF_UNC
  [ "$ncmp" -eq 4 ] || { echo "expected 4 comparisons in the API's uncertainty, got $ncmp"; return 1; }
  for c in spot fallback on-demand; do
    want=$(jq -r --arg c "$c" '.uncertainty.cost_per_successful_task[$c] | if .lo == null then "none" else "\(.lo) \(.hi)" end' "$1")
    got=$(grep -o "<p class=\"interval[^\"]*\" data-interval=\"$c:measured\"[^>]*>" "$dir/dom.html" | head -n 1)
    [ -n "$got" ] || { echo "card $c has no interval line"; return 1; }
    if [ "$want" = none ]; then
      echo "$got" | grep -q 'class="interval none"' || { echo "card $c shows an interval where the API has none"; return 1; }
    else
      lo=$(echo "$got" | sed -n 's/.*data-lo="\([^"]*\)".*/\1/p'); hi=$(echo "$got" | sed -n 's/.*data-hi="\([^"]*\)".*/\1/p')
      [ "$(jq -n "$lo == ${want% *} and $hi == ${want#* }")" = true ] ||
        { echo "card $c interval $lo..$hi, API ${want% *}..${want#* }"; return 1; }
    fi
  done
}
why1=$(unc_check "$dir/unc1.json") || why2=$(unc_check "$dir/unc2.json") ||
  fail "the dashboard's intervals differ from /api/v1/summary?uncertainty=true: $why1 / $why2"
note "how sure: 4 verdicts and 3 card intervals equal /api/v1/summary?uncertainty=true"

paint=$(sed -n 's/.*<body[^>]*data-first-paint-ms="\([0-9]*\)".*/\1/p' "$dir/dom.html" | head -n 1)
[ -n "$paint" ] || fail "<body> has no data-first-paint-ms"

# 1b. the default URL (no hash), driven over the DevTools protocol at 1280x900 and
# on a phone (390x844): the four cost-per-successful-task figures of the API's
# DEFAULT summary (no parameter: the last 7 days ending at the source clock) are
# in the DOM with their exact values, above the fold on the desktop; the window
# named on screen is the one the API resolved; the status pill covers nothing.
command -v python3 >/dev/null || fail "python3 is not installed (make deps installs it)"
cdp() { # cdp URL SIZE WAIT_JS EVAL_JS PNG -> JSON on stdout; console must stay silent
  timeout -k 5 120 python3 "$root/tests/e2e/cdp_page.py" "$chromium" "$1" "$2" "$3" "$4" "$5" 90 >"$dir/cdp.out" ||
    fail "the DevTools driver failed on $1 at $2"
  if [ "$wcode" = 404 ]; then # the refused what-if request of a spotledger without it
    jq '.console |= map(select((test("whatif") and test("404")) | not))' "$dir/cdp.out"
  else
    cat "$dir/cdp.out"
  fi
}
probe='(() => {
  const r = (e) => e ? e.getBoundingClientRect() : null;
  const figs = [...document.querySelectorAll("[data-field=cost_per_successful_task]")].map((e) => {
    const b = r(e); return { card: e.dataset.card, value: e.dataset.value, text: e.textContent, top: b.top, bottom: b.bottom };
  });
  const st = document.getElementById("status");
  const blocks = [...document.querySelectorAll("main .card, main .panel, #window-label")].map(r);
  const sb = r(st);
  const covered = blocks.filter((b) => b.width > 0 && sb.left < b.right && sb.right > b.left && sb.top < b.bottom && sb.bottom > b.top).length;
  return { figs, h: innerHeight, w: innerWidth, from: document.getElementById("window-from")?.dataset.value,
    to: document.getElementById("window-to")?.dataset.value, picker: document.getElementById("window-select").value,
    empty: !document.getElementById("empty-window").hidden, statusPosition: getComputedStyle(st).position, covered,
    hash: location.hash, downloads: document.querySelectorAll("button.download[data-kind]").length };
})()'
mkdir -p "$out_dir"
api summary >"$dir/default-summary.json"
for size in 1280x900 390x844m; do
  shot="$out_dir/dashboard-default-${size%m}.png"
  cdp "$base/" "$size" 'document.body.dataset.panels === "ready"' "$probe" "$shot" >"$dir/default-$size.json"
  jq -e '.console == []' "$dir/default-$size.json" >/dev/null ||
    fail "console messages at $size: $(jq -c .console "$dir/default-$size.json")"
  python3 - "$dir/default-summary.json" "$dir/default-$size.json" "$size" <<'PY' || fail "the default view at $size (above)"
import json, sys
from decimal import Decimal
api = json.load(open(sys.argv[1]), parse_float=Decimal)
got = json.load(open(sys.argv[2]))["value"]
size = sys.argv[3]
bad = []
if got["picker"] != "7d":
    bad.append("the picker shows %r, not Last 7 days" % got["picker"])
if (got["from"], got["to"]) != (api["window"]["from"], api["window"]["to"]):
    bad.append("window on screen %s..%s, the API's default is %s..%s" % (
        got["from"], got["to"], api["window"]["from"], api["window"]["to"]))
figs = {f["card"]: f for f in got["figs"]}
for c in api["configurations"]:
    key = c["configuration"] + ":" + c.get("basis", "measured")
    f = figs.get(key)
    want = c["cost_per_successful_task"]
    if f is None:
        bad.append("%s: no cost_per_successful_task in the DOM" % key)
        continue
    if want is None or f["value"] == "null" or Decimal(f["value"]) != want:
        bad.append("%s: DOM %s, API %s" % (key, f["value"], want))
    if not size.endswith("m") and not (0 <= f["top"] and f["bottom"] <= got["h"]):
        bad.append("%s: below the fold (%.0f..%.0f of %d px)" % (key, f["top"], f["bottom"], got["h"]))
if len(api["configurations"]) < 4 or len(figs) < 4:
    bad.append("want four figures, API %d, DOM %d" % (len(api["configurations"]), len(figs)))
if got["empty"]:
    bad.append("the default window says it is empty")
if got["statusPosition"] == "fixed" or got["covered"]:
    bad.append("the status pill is %s and covers %d blocks" % (got["statusPosition"], got["covered"]))
for line in bad:
    print("  " + line, file=sys.stderr)
print("e2e_dashboard: default URL at %s: %d figures = /api/v1/summary, window %s..%s%s" % (
    size, len(figs), got["from"], got["to"], "" if size.endswith("m") else ", all above the fold"))
sys.exit(1 if bad else 0)
PY
  [ -s "$shot" ] || fail "no screenshot $shot"
done

# 1c. an empty window says so and links to the latest window with data; the link
# lands on a window with tasks (after the demo week, "This week" has just begun)
if [ "$with_sim" = 1 ] && [ -z "${E2E_DASHBOARD_URL:-}" ]; then
  eprobe='(() => { const a = document.getElementById("jump-latest");
    return { empty: !document.getElementById("empty-window").hidden, text: document.getElementById("empty-window").textContent,
      href: a ? a.getAttribute("href") : null }; })()'
  cdp "$base/#window=week" 1280x900 'document.body.dataset.panels === "ready" && !document.getElementById("empty-window").hidden' \
    "$eprobe" "$out_dir/dashboard-empty-1280.png" >"$dir/empty.json"
  jq -e '.value.empty and .value.href == "#window=custom&from=2026-11-09&to=2026-11-16" and .console == []' "$dir/empty.json" >/dev/null ||
    fail "empty window: $(jq -c . "$dir/empty.json")"
  # following the link (a click, on a phone): a window with tasks, the notice gone
  jprobe='new Promise((resolve) => {
    document.getElementById("jump-latest").click();
    const t0 = Date.now();
    (function poll() {
      const f = document.getElementById("window-from");
      if (document.body.dataset.panels === "ready" && f && f.dataset.value === "2026-11-09T00:00:00Z") {
        resolve({ empty: !document.getElementById("empty-window").hidden, from: f.dataset.value,
          to: document.getElementById("window-to").dataset.value, picker: document.getElementById("window-select").value,
          hash: location.hash, ok: [...document.querySelectorAll("[data-field=tasks_succeeded]")].some((e) => Number(e.dataset.value) > 0) });
      } else if (Date.now() - t0 > 30000) resolve({ timeout: true, hash: location.hash });
      else setTimeout(poll, 50);
    })();
  })'
  cdp "$base/#window=week" 390x844m 'document.body.dataset.panels === "ready" && document.getElementById("jump-latest")' "$jprobe" \
    "$out_dir/dashboard-jumped-390.png" >"$dir/jumped.json"
  jq -e '.value.empty == false and .value.ok and .value.picker == "custom" and .value.from == "2026-11-09T00:00:00Z"
    and .value.to == "2026-11-16T00:00:00Z" and .console == []' "$dir/jumped.json" >/dev/null ||
    fail "the jump target: $(jq -c . "$dir/jumped.json")"
  note "empty window (This week): says so and links to 2026-11-09..2026-11-16, which shows tasks"
fi

# 1d. the cost-basis toggle: #basis=completion shows the completion figures when the
# API offers basis= (answers 200), and otherwise says so and shows the accrual
# figures (an API without it refuses the parameter with 400); labelled either way
bcode=$(curl -s -o "$dir/basis-summary.json" -w '%{http_code}' --max-time 30 "$base/api/v1/summary?window=7d&basis=completion" || true)
if [ "$bcode" = 200 ]; then want_basis=completion; else want_basis=accrual; api "summary?window=7d" >"$dir/basis-summary.json"; fi
bprobe='({ note: document.getElementById("basis-note").textContent, basis: document.getElementById("basis-note").dataset.basis,
  partial: document.getElementById("basis-note").dataset.partial || null,
  select: document.getElementById("basis-select").value, label: document.querySelector("label[for=basis-select]").textContent,
  figs: [...document.querySelectorAll("[data-field=cost_per_successful_task]")].map((e) => [e.dataset.card, e.dataset.value]) })'
cdp "$base/#basis=completion" 1280x900 'document.body.dataset.panels === "ready"' "$bprobe" - >"$dir/basis.json"
python3 - "$dir/basis-summary.json" "$dir/basis.json" "$want_basis" <<'PY' || fail "the cost-basis toggle (above)"
import json, sys
from decimal import Decimal
api = json.load(open(sys.argv[1]), parse_float=Decimal)
got = json.load(open(sys.argv[2]))
want = sys.argv[3]
v = got["value"]
bad = []
if v["select"] != "completion" or v["label"] != "Cost basis":
    bad.append("the toggle shows %r labelled %r" % (v["select"], v["label"]))
if v["basis"] != want or (want == "accrual" and "does not offer" not in v["note"]):
    bad.append("basis note %r (%s), want %s" % (v["note"], v["basis"], want))
# the partial flag the API gave (a window that cuts tasks in two) is shown
if "partial" in api and v["partial"] != str(api["partial"]).lower():
    bad.append("partial: DOM %r, API %r" % (v["partial"], api["partial"]))
figs = dict(v["figs"])
for c in api["configurations"]:
    key = c["configuration"] + ":" + c.get("basis", "measured")
    if key not in figs or figs[key] == "null" or Decimal(figs[key]) != c["cost_per_successful_task"]:
        bad.append("%s: DOM %s, API (%s basis) %s" % (key, figs.get(key), want, c["cost_per_successful_task"]))
# the only console line allowed: the refused basis= request of an API without it
extra = [m for m in got["console"] if not (want == "accrual" and "400" in m and "basis=completion" in m)]
if extra:
    bad.append("console: %r" % extra)
for b in bad:
    print("  " + b, file=sys.stderr)
print("e2e_dashboard: cost basis toggle: #basis=completion shows the %s figures, labelled (%s)" % (want, v["note"]))
sys.exit(1 if bad else 0)
PY

# 1e. the "What if" panel (GET /api/v1/whatif, issue 21). It is fetched after the
# cards; a spotledger without the route (404) keeps it hidden. With the route: the
# three bars show exactly the API's numbers for the query the panel sent; moving
# the reclaims slider (three moves within the 300 ms debounce) sends ONE new query
# carrying reclaims_per_day, marks the slider "supplied" and shows the new answer;
# on a phone (390 px) the page has no horizontal overflow and every slider has a label.
wi_ready='["ready","absent","error"].includes(document.getElementById("whatif-panel").dataset.state) && document.body.dataset.panels === "ready"'
wi_probe='(() => { const p = document.getElementById("whatif-panel");
  return { state: p.dataset.state, hidden: p.hidden, query: p.dataset.query || null,
    error: document.getElementById("wi-error").textContent,
    bars: [...p.querySelectorAll(".wi-bar")].map((b) => [b.dataset.configuration, b.dataset.value, b.dataset.low, b.dataset.high]),
    breakEven: document.getElementById("wi-break-even").dataset.value || null,
    youngDaly: document.getElementById("wi-best").dataset.youngDaly || null,
    simulated: document.getElementById("wi-best").dataset.simulated || null,
    sources: Object.fromEntries([...p.querySelectorAll("[data-source-for]")].map((m) => [m.dataset.sourceFor, m.dataset.source || ""])),
    unlabelled: [...p.querySelectorAll("input")].filter((i) => !i.labels || i.labels.length === 0).map((i) => i.id),
    sliders: p.querySelectorAll("input[type=range]").length,
    scrollW: document.documentElement.scrollWidth, w: innerWidth,
    right: Math.max(0, ...[...p.querySelectorAll("*")].map((e) => e.getBoundingClientRect().right)) }; })()'
# wi_check ANSWER.json PROBE.json WHAT: the bars, break-even and best interval equal the API's answer
wi_check() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
from decimal import Decimal
api = json.load(open(sys.argv[1]), parse_float=Decimal)
v = json.load(open(sys.argv[2]))["value"]
what = sys.argv[3]
def d(x):
    return "null" if x is None else str(Decimal(x).normalize())
def num(s):
    return "null" if s in (None, "null") else str(Decimal(s).normalize())
bad = []
want = [[c["configuration"], d(c["cost_per_successful_task"]),
         d((c.get("interval") or {}).get("low")), d((c.get("interval") or {}).get("high"))]
        for c in api["configurations"]]
got = [[b[0]] + [num(x) for x in b[1:]] for b in v["bars"]]
if sorted(want) != sorted(got) or len(got) != 3:
    bad.append("bars %s, API %s" % (got, want))
if num(v["breakEven"]) != d(api.get("break_even_reclaims_per_day")):
    bad.append("break-even %s, API %s" % (v["breakEven"], api.get("break_even_reclaims_per_day")))
best = api.get("best_checkpoint_interval") or {}
if (num(v["youngDaly"]), num(v["simulated"])) != (d(best.get("young_daly_seconds")), d(best.get("simulated_seconds"))):
    bad.append("best interval %s/%s, API %s" % (v["youngDaly"], v["simulated"], best))
for k, p in api["parameters"].items():
    if k in v["sources"] and v["sources"][k] != p.get("source"):
        bad.append("mark of %s: %r, API %r" % (k, v["sources"][k], p.get("source")))
for b in bad:
    print("  " + b, file=sys.stderr)
print("e2e_dashboard: what if (%s): %s" % (what, "; ".join("%s %s [%s, %s]" % tuple(b) for b in got)))
sys.exit(1 if bad else 0)
PY
}
cdp "$base/#$hash" 1280x900 "$wi_ready" "$wi_probe" "$out_dir/dashboard-whatif-1280.png" >"$dir/wi.json"
if [ "$wcode" = 404 ]; then
  jq -e '.value.state == "absent" and .value.hidden and .console == []' "$dir/wi.json" >/dev/null ||
    fail "what if, route absent: the panel should be hidden: $(jq -c . "$dir/wi.json")"
  note "what if: /api/v1/whatif answers 404 (no planner on this spotledger): the panel stays hidden"
else
  [ "$wcode" = 200 ] || fail "/api/v1/whatif?window=$window answered $wcode"
  jq -e '.value.state == "ready" and (.value.hidden | not) and .console == [] and .value.sliders == 6 and .value.unlabelled == []' "$dir/wi.json" >/dev/null ||
    fail "what if: $(jq -c . "$dir/wi.json")"
  q=$(jq -r .value.query "$dir/wi.json")
  case "$q" in *reclaims_per_day*) fail "the first what-if query supplies values: $q" ;; esac
  api "whatif?$q" >"$dir/wi-api.json"
  wi_check "$dir/wi-api.json" "$dir/wi.json" "measured values" || fail "the what-if panel differs from /api/v1/whatif?$q (above)"
  # three moves of the reclaims slider within the debounce: one request, the last value
  move='new Promise((resolve) => {
    const p = document.getElementById("whatif-panel");
    const s = document.getElementById("wi-reclaims_per_day");
    const before = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/v1/whatif")).length;
    const top = Number(s.max);
    const vals = [top * 0.5, top * 0.75, top * 0.9].map((x) => (Math.round(x * 10) / 10).toFixed(1));
    vals.forEach((x, i) => setTimeout(() => { s.value = x; s.dispatchEvent(new Event("input", { bubbles: true })); }, i * 50));
    const want = "reclaims_per_day=" + vals[2];
    const t0 = Date.now();
    (function poll() {
      if (p.dataset.state === "ready" && (p.dataset.query || "").includes(want)) {
        const after = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/v1/whatif")).length;
        resolve(Object.assign('"$wi_probe"', { requests: after - before, sent: vals[2] }));
      } else if (Date.now() - t0 > 60000) resolve({ timeout: true, state: p.dataset.state, query: p.dataset.query });
      else setTimeout(poll, 50);
    })();
  })'
  cdp "$base/#$hash" 1280x900 "$wi_ready" "$move" - >"$dir/wi-move.json"
  jq -e '.value.state == "ready" and .value.requests == 1 and .value.sources.reclaims_per_day == "supplied" and .console == []' "$dir/wi-move.json" >/dev/null ||
    fail "what if, moving the reclaims slider: $(jq -c . "$dir/wi-move.json")"
  q2=$(jq -r .value.query "$dir/wi-move.json")
  api "whatif?$q2" >"$dir/wi-api2.json"
  jq -e '.parameters.reclaims_per_day.source == "supplied"' "$dir/wi-api2.json" >/dev/null ||
    fail "the API did not take reclaims_per_day from $q2 as supplied"
  wi_check "$dir/wi-api2.json" "$dir/wi-move.json" "reclaims_per_day=$(jq -r .value.sent "$dir/wi-move.json"), one request" ||
    fail "after moving the slider the panel differs from /api/v1/whatif?$q2 (above)"
  # a phone: nothing wider than the screen
  cdp "$base/#$hash" 390x844m "$wi_ready" "$wi_probe" "$out_dir/dashboard-whatif-390.png" >"$dir/wi-phone.json"
  jq -e '.value.state == "ready" and .value.scrollW <= .value.w and .value.right <= .value.w and .console == []' "$dir/wi-phone.json" >/dev/null ||
    fail "what if on a phone (390 px): $(jq -c '.value | {scrollW, w, right, state}' "$dir/wi-phone.json")"
  note "what if on a phone: page $(jq -r .value.scrollW "$dir/wi-phone.json") px wide in a $(jq -r .value.w "$dir/wi-phone.json") px screen, no horizontal overflow"
fi

# 2. a task's attempts through #task=<uid>
uid=$(api "tasks?window=$window&limit=1" | jq -r '.tasks[0].uid // empty')
if [ -z "$uid" ]; then
  [ "$with_sim" = 0 ] || fail "/api/v1/tasks returned no task"
  note "no task in this window (no simulator): #task check not run"
else
  api "tasks/$(printf %s "$uid" | jq -sRr @uri)" >"$dir/task.json"
  want=$(jq '.task.attempts | length' "$dir/task.json")
  enc=$(printf %s "$uid" | jq -sRr @uri)
  chrome "$dir/task.html" "$base/#${hash:+$hash&}task=$enc" --dump-dom
  console_clean "$dir/task.html.log"
  sect=$(grep -o '<section[^>]*id="task-detail"[^>]*>' "$dir/task.html" || true)
  [ -n "$sect" ] || fail "no #task-detail section"
  case "$sect" in *" hidden"*) fail "#task=$uid left the attempts hidden: $sect" ;; esac
  case "$sect" in *"data-loaded=\"true\""*) ;; *) fail "attempts of $uid not loaded: $sect" ;; esac
  # the section's data-task-uid holds the uid HTML-escaped; compare the jq-escaped form
  esc=$(printf %s "$uid" | sed 's/&/\&amp;/g; s/"/\&quot;/g')
  case "$sect" in *"data-task-uid=\"$esc\""*) ;; *) fail "#task-detail is not task $uid: $sect" ;; esac
  got=$(sed -n '/id="attempts-body"/,/<\/tbody>/p' "$dir/task.html" | grep -o '<tr data-attempt-uid=' | wc -l | tr -d ' ')
  [ "$got" = "$want" ] || fail "task $uid: $got attempt rows, the API lists $want"
  for a in $(jq -r '.task.attempts[].uid' "$dir/task.json"); do
    grep -q "data-attempt-uid=\"$a\"" "$dir/task.html" || fail "attempt $a of task $uid not shown"
  done
  note "task $uid: $got attempts shown through #task="
fi

# 3. screenshot
mkdir -p "$out_dir"
rm -f "$out_dir/dashboard-1280.png"
chrome "$dir/shot.out" "$base/#$hash" --screenshot="$out_dir/dashboard-1280.png" --hide-scrollbars
console_clean "$dir/shot.out.log"
[ -s "$out_dir/dashboard-1280.png" ] || fail "no screenshot written: $(tail -n 3 "$dir/shot.out.log")"
note "screenshot: $out_dir/dashboard-1280.png"

# 4. load time
b0=$(now_ms)
chrome "$dir/blank.html" "about:blank" --dump-dom
b1=$(now_ms)
note "first meaningful paint (cards filled, page clock): ${paint} ms; headless load to DOM dump: $((t1 - t0)) ms wall (chromium start-up alone: $((b1 - b0)) ms)"
echo "e2e_dashboard: ok"
