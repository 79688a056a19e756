#!/bin/sh
# End-to-end: the weekly CSV exports (issue "Weekly CSV exports"), read back by the
# programs finance uses.
#
#   "Python's csv module and LibreOffice (soffice --headless --convert-to) read the
#    files back with the same values the API returns; a task named
#    =HYPERLINK("x") appears as text."
#
# 1. spotsim plays tests/fixtures/sim/week_close.json (Sunday 2027-01-31 12:00 to
#    Monday 2027-02-01 06:00 UTC, one Spot reclaim), spotledger polls it with
#    --export-dir and writes the files of 2027-W04 when the source clock passes
#    Monday 00:00 (bounded wait).
# 2. Kubernetes names cannot hold '=' or '"', so a task named =HYPERLINK("x"),
#    completed inside the week, is inserted straight into spotledger's database
#    (sqlite3), and the week is re-exported (POST /api/v1/exports, admin token).
#    The files must then equal GET /api/v1/export.csv?week=...&kind=... byte for byte.
# 3. python3's csv module reads both files; every cell is compared with
#    /api/v1/summary?window=2027-W04 and /api/v1/tasks?window=2027-W04 (all pages
#    of 500): numbers as decimal strings normalised (Decimal, never floats; the
#    CSV has 6 decimals, the API the shortest form), empty cells = null, text
#    cells equal (a text the API starts with = + - @ TAB CR reads back with a
#    leading apostrophe: '=HYPERLINK("x")).
# 4. LibreOffice Calc (soffice --headless) imports the CSV files (UTF-8, comma,
#    with "evaluate formulas" both off and on) and converts them to .ods; the
#    spreadsheet XML must show the hostile cell as a plain string (no
#    table:formula, no hyperlink) and every money/count cell as a number with the
#    CSV's value. A negative control without the apostrophe proves that the check
#    would see a formula. Without soffice this part is skipped with a note.
#
# 5. the .xlsx twin of each file (libxlsxwriter): its XML has a frozen header row,
#    currency and date-time formats and a Notes sheet; LibreOffice reads every cell
#    back typed (date, currency, number, text) with the CSV's value; the CSV's own
#    timestamps ("2027-01-25 00:00:00") import as date cells (part 4).
#
# Needs: curl, jq, sqlite3, python3 (Debian python3), soffice (Debian
# libreoffice-calc-nogui) for part 4. Loopback only; every wait is bounded.
set -eu
sim=${SPOTSIM_BIN:?}
ledger=${SPOTLEDGER_BIN:?}
root=${SPOTLEDGER_ROOT:?}
. "$(dirname "$0")/lib.sh"
e2e_begin_named e2e_csv ledger_pid sim_pid
need curl jq sqlite3 python3
t_start=$(date +%s)

week=2027-W04
week_from=2027-01-25T00:00:00Z
week_to=2027-02-01T00:00:00Z
printf 'csv-do-token\n' >"$dir/do-token"
printf 'csv-kube-token\n' >"$dir/kube-token"
printf 'csv-admin-token-0123456789\n' >"$dir/admin-token"
admin=$(cat "$dir/admin-token")

# --- 1. spotsim + spotledger with --export-dir --------------------------------
stack_sim "$dir" --scenario "$root/tests/fixtures/sim/week_close.json" --speed 4320 \
  --truth "$dir/truth.json"
mkdir -p "$dir/exports"
stack_ledger "$dir" "$dir/ledger.db" --export-dir "$dir/exports" \
  --admin-token-file "$dir/admin-token"
B="$base/api/v1"

# the scenario is over when spotsim wrote its truth (bounded: 120 s), then every
# source must have seen the final state
wait_final "$dir" "$base" 120 "do k8s do_billing"

# The exporter looks for closed weeks every minute and whenever it is woken; "poll
# now" (admin) wakes it, so the test need not wait for its next round.
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -X POST \
  -H "Authorization: Bearer $admin" "$B/poll")
[ "$code" = 200 ] || [ "$code" = 202 ] || fail "POST /api/v1/poll answered $code"
sum_file="$dir/exports/spotledger-$week-summary.csv"
task_file="$dir/exports/spotledger-$week-tasks.csv"
i=0
while [ ! -s "$sum_file" ] || [ ! -s "$task_file" ]; do
  i=$((i + 1)); [ $i -le 900 ] || fail "the files of $week were not written within 90 s: $(ls "$dir/exports")"
  sleep 0.1
done
note "weekly files written by the exporter $(($(date +%s) - t_start)) s after start: $(cd "$dir/exports" && ls | tr '\n' ' ')"

# --- 2. a hostile task name, then the week re-exported -------------------------
completed=$(date -u -d 2027-01-31T23:45:00Z +%s)
created=$((completed - 3600))
sqlite3 "$dir/ledger.db" <<EOF || fail "cannot insert the hostile task"
.timeout 10000
INSERT INTO tasks(uid, job_uid, namespace, name, configuration, experiment, created_at,
                  started_at, completed_at, outcome, first_seen, last_seen)
VALUES ('e2e-csv-hostile-0001', 'e2e-csv-hostile-0001', 'batch', '=HYPERLINK("x")',
        'fallback', '@sum(1+1)', $created, $created, $completed, 'succeeded', $created, $completed);
EOF
code=$(curl -s -o "$dir/post.json" -w '%{http_code}' --max-time 30 -X POST \
  -H "Authorization: Bearer wrong-token" "$B/exports?week=$week")
[ "$code" = 401 ] || [ "$code" = 403 ] || fail "POST /exports with a wrong token answered $code"
code=$(curl -s -o "$dir/post.json" -w '%{http_code}' --max-time 30 -X POST \
  -H "Authorization: Bearer $admin" "$B/exports?week=$week")
[ "$code" = 200 ] || fail "POST /exports?week=$week answered $code: $(cat "$dir/post.json")"
grep -q '"HYPERLINK' "$task_file" && fail "the hostile name is in the file unescaped"
grep -q "\"'=HYPERLINK(\"\"x\"\")\"" "$task_file" ||
  fail "the re-exported tasks file has no inert '=HYPERLINK cell: $(grep -i hyperlink "$task_file")"
for k in summary tasks; do
  f="$dir/exports/spotledger-$week-$k.csv"
  curl -sf --max-time 30 "$B/export.csv?week=$week&kind=$k" -o "$dir/get-$k.csv" ||
    fail "GET /export.csv?week=$week&kind=$k failed"
  cmp -s "$f" "$dir/get-$k.csv" || { diff "$f" "$dir/get-$k.csv" | head -20 >&2;
    fail "GET /export.csv?kind=$k differs from the file $(basename "$f")"; }
done
note "re-exported $week with the task '=HYPERLINK(\"x\")': files equal GET /export.csv (summary $(wc -c <"$sum_file") B, tasks $(wc -c <"$task_file") B)"

# deterministic: the intervals come from a seeded bootstrap, so a second export is
# byte-identical (the files above were written by two runs: the exporter's and the
# POST's; GET twice more)
for n in 1 2; do
  curl -sf --max-time 30 "$B/export.csv?week=$week&kind=summary" -o "$dir/again-$n.csv" ||
    fail "GET /export.csv?week=$week&kind=summary failed"
done
cmp -s "$dir/again-1.csv" "$dir/again-2.csv" && cmp -s "$dir/again-1.csv" "$sum_file" ||
  fail "two exports of $week differ"
curl -sf --max-time 30 "$B/export.csv?week=$week&kind=summary&basis=completion" \
  -o "$dir/completion.csv" || fail "GET /export.csv?...&basis=completion failed"

# --- 3. python3 csv vs the API ---------------------------------------------------
curl -sf --max-time 30 "$B/summary?window=$week&uncertainty=true" >"$dir/summary.json" ||
  fail "GET /summary failed"
curl -sf --max-time 30 "$B/summary?window=$week&basis=completion" >"$dir/summary-c.json" ||
  fail "GET /summary?basis=completion failed"
# every page of /tasks (limit 500), bounded
: >"$dir/tasks.jsonl"
cursor=
pages=0
while :; do
  url="$B/tasks?window=$week&limit=500"
  [ -z "$cursor" ] || url="$url&cursor=$(printf %s "$cursor" | jq -sRr @uri)"
  curl -sf --max-time 30 "$url" >"$dir/tasks-page.json" || fail "GET /tasks failed"
  jq -c '.tasks[]' "$dir/tasks-page.json" >>"$dir/tasks.jsonl"
  cursor=$(jq -r '.next_cursor // empty' "$dir/tasks-page.json")
  pages=$((pages + 1))
  [ -n "$cursor" ] || break
  [ $pages -lt 50 ] || fail "/tasks paging did not end after 50 pages"
done
total=$(jq '.total' "$dir/tasks-page.json")

python3 - "$sum_file" "$task_file" "$dir/summary.json" "$dir/tasks.jsonl" "$week" \
  "$week_from" "$week_to" "$total" "$dir/completion.csv" "$dir/summary-c.json" <<'PY' || fail "the CSV files do not read back as the API's values (above)"
import csv, json, sys
from decimal import Decimal

(sum_file, task_file, summary_json, tasks_jsonl, week, wfrom, wto, total, comp_file,
 comp_json) = sys.argv[1:]
errors = []
compared = 0

def read(path):
    raw = open(path, "rb").read()
    assert raw.endswith(b"\r\n"), path + ": last line does not end with CRLF"
    assert b"\n" not in raw.replace(b"\r\n", b""), path + ": a bare LF"
    with open(path, newline="", encoding="utf-8", errors="strict") as f:
        return list(csv.reader(f, strict=True))

def num(v):
    return Decimal(v).normalize()

def expect(where, col, csv_v, api_v, kind):
    global compared
    compared += 1
    if api_v is None:
        ok = csv_v == ""
    elif kind == "time":
        # the CSV writes the API's RFC 3339 UTC instant as "YYYY-MM-DD HH:MM:SS"
        # (spreadsheets read that as a date; README "CSV exports")
        ok = isinstance(api_v, str) and api_v.endswith("Z") and csv_v == api_v[:-1].replace("T", " ")
    elif kind == "num":
        ok = csv_v != "" and isinstance(api_v, (int, Decimal)) and not isinstance(api_v, bool) \
            and num(csv_v) == num(api_v)
    else:
        want = str(api_v)
        if want[:1] in ("=", "+", "-", "@", "\t", "\r"):
            want = "'" + want
        ok = csv_v == want
    if not ok:
        errors.append("%s %s: CSV %r, API %r" % (where, col, csv_v, api_v))

# the API's numbers exactly as printed: Decimal, never float
def load(text):
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)

want_head = ["period", "from", "to", "configuration", "basis", "tasks_succeeded", "tasks_failed",
    "tasks_running", "attempts", "retries", "interruptions", "duplicates", "cost_usd",
    "cost_per_successful_task_usd", "useful_cost_usd", "restore_cost_usd", "wasted_cost_usd",
    "running_cost_usd", "idle_cost_usd", "restore_seconds_total", "restore_seconds_p50",
    "restore_seconds_p95", "savings_vs_on_demand_percent", "break_even_overhead_percent",
    "measured_overhead_percent", "cost_basis", "cost_per_successful_task_low_usd",
    "cost_per_successful_task_high_usd", "interval_reason",
    "difference_vs_counterfactual_low_usd", "difference_vs_counterfactual_high_usd",
    "verdict_vs_counterfactual", "difference_vs_on_demand_low_usd",
    "difference_vs_on_demand_high_usd", "verdict_vs_on_demand", "cluster"]
# the interval columns against the summary's "uncertainty" object (docs/uncertainty.md)
unc_cols = want_head[want_head.index("cost_basis") + 1:want_head.index("cluster")]
diff_of = {("spot", "counterfactual"): "spot_vs_counterfactual",
           ("fallback", "counterfactual"): "fallback_vs_counterfactual",
           ("spot", "on_demand"): "spot_vs_on_demand",
           ("fallback", "on_demand"): "fallback_vs_on_demand"}

def unc_expect(where, rec, unc):
    conf = rec["configuration"]
    if rec["basis"] == "counterfactual" or unc is None:
        for col in unc_cols:
            if col != "interval_reason" or rec["basis"] == "counterfactual":
                expect(where, col, rec[col], None, "text")
        return
    pt = unc["cost_per_successful_task"][conf]
    expect(where, "cost_per_successful_task_low_usd", rec["cost_per_successful_task_low_usd"], pt["lo"], "num")
    expect(where, "cost_per_successful_task_high_usd", rec["cost_per_successful_task_high_usd"], pt["hi"], "num")
    expect(where, "interval_reason", rec["interval_reason"], pt["reason"], "text")
    comps = {c["name"]: c for c in unc["comparisons"]}
    for vs in ("counterfactual", "on_demand"):
        c = comps.get(diff_of.get((conf, vs)))
        d = c["difference"] if c else {"lo": None, "hi": None}
        expect(where, "difference_vs_%s_low_usd" % vs, rec["difference_vs_%s_low_usd" % vs], d["lo"], "num")
        expect(where, "difference_vs_%s_high_usd" % vs, rec["difference_vs_%s_high_usd" % vs], d["hi"], "num")
        expect(where, "verdict_vs_" + vs, rec["verdict_vs_" + vs], c["text"] if c else None, "text")

def check_summary(path, summary, unc, label):
    rows = read(path)
    head = rows[0]
    if head != want_head:
        errors.append("%s header %r" % (label, head))
    confs = {(c["configuration"], c.get("basis", "measured")): c for c in summary["configurations"]}
    data = rows[1:]
    if [(r[3], r[4]) for r in data] != [("spot", "measured"), ("fallback", "measured"),
                                       ("on-demand", "measured"), ("on-demand", "counterfactual")]:
        errors.append("%s rows %r" % (label, [(r[3], r[4]) for r in data]))
    for r in data:
        rec = dict(zip(head, r))
        c = confs.get((rec["configuration"], rec["basis"]))
        where = "%s %s/%s" % (label, rec["configuration"], rec["basis"])
        if c is None:
            errors.append(where + ": not in /api/v1/summary")
            continue
        expect(where, "period", rec["period"], week, "text")
        expect(where, "from", rec["from"], summary.get("window", {}).get("from", wfrom), "time")
        expect(where, "to", rec["to"], summary.get("window", {}).get("to", wto), "time")
        expect(where, "cost_basis", rec["cost_basis"], summary["cost_basis"], "text")
        # the weekly files are the whole fleet: an empty cluster cell (docs/fleet.md)
        expect(where, "cluster", rec["cluster"], None, "text")
        for col in head[5:head.index("cost_basis")]:
            path_ = api_map.get(col, col).split(".")
            v, present = c, True
            for p in path_:
                if isinstance(v, dict) and p in v:
                    v = v[p]
                else:
                    v, present = None, False
            if not present and rec["basis"] == "counterfactual":
                v = None  # the counterfactual row leaves what it does not price empty
            elif not present:
                errors.append("%s %s: not in the API" % (where, col))
                continue
            expect(where, col, rec[col], v, "num")
        unc_expect(where, rec, unc)
    return data

summary = load(open(summary_json).read())
summary_c = load(open(comp_json).read())
api_map = {"cost_usd": "cost", "cost_per_successful_task_usd": "cost_per_successful_task",
           "useful_cost_usd": "useful_cost", "restore_cost_usd": "restore_cost",
           "wasted_cost_usd": "wasted_cost", "running_cost_usd": "running_cost",
           "idle_cost_usd": "idle_cost", "restore_seconds_total": "restore_seconds.total",
           "restore_seconds_p50": "restore_seconds.p50", "restore_seconds_p95": "restore_seconds.p95"}
data = check_summary(sum_file, summary, summary["uncertainty"], "summary")
if summary["cost_basis"] != "accrual":
    errors.append("the weekly file's summary is on the %r basis" % summary["cost_basis"])
# the completion basis: its money and tasks from summary?basis=completion; no intervals
# (they are drawn on the accrual basis only: the reason cell says so)
check_summary(comp_file, summary_c, None, "completion")
for r in read(comp_file)[1:4]:
    if r[want_head.index("interval_reason")] != "95% intervals are drawn on the accrual basis only":
        errors.append("completion row %s: interval_reason %r" % (r[3], r[want_head.index("interval_reason")]))

api_tasks = [load(l) for l in open(tasks_jsonl)]
rows = read(task_file)
head = rows[0]
want_head = ["task_uid", "namespace", "name", "configuration", "experiment", "outcome", "attempts",
    "retries", "interruptions", "restore_seconds", "cost_usd", "wasted_cost_usd", "completed_at",
    "cluster"]
if head != want_head:
    errors.append("tasks header %r" % head)
by_uid = {t["uid"]: t for t in api_tasks}
if len(by_uid) != len(api_tasks) or len(api_tasks) != int(total):
    errors.append("/tasks: %d tasks, %d distinct, total %s" % (len(api_tasks), len(by_uid), total))
if sorted(r[0] for r in rows[1:]) != sorted(by_uid):
    errors.append("task uids differ: CSV-only %r, API-only %r" % (
        sorted(set(r[0] for r in rows[1:]) - set(by_uid)),
        sorted(set(by_uid) - set(r[0] for r in rows[1:]))))
tmap = {"task_uid": ("uid", "text"), "cost_usd": ("cost", "num"),
        "wasted_cost_usd": ("wasted_cost", "num"), "attempts": ("attempts", "num"),
        "retries": ("retries", "num"), "interruptions": ("interruptions", "num"),
        "restore_seconds": ("restore_seconds", "num"), "completed_at": ("completed_at", "time")}
hostile = None
for r in rows[1:]:
    rec = dict(zip(head, r))
    t = by_uid.get(rec["task_uid"])
    if t is None:
        continue
    for col in head:
        key, kind = tmap.get(col, (col, "text"))
        # one cluster watched by the single-cluster flags: "default" (docs/fleet.md)
        want = "default" if col == "cluster" else t.get(key)
        expect("task " + rec["task_uid"], col, rec[col], want, kind)
    if t["name"] == '=HYPERLINK("x")':
        hostile = rec
if hostile is None:
    errors.append("the task =HYPERLINK(\"x\") is not in /api/v1/tasks or the CSV")
elif hostile["name"] != "'=HYPERLINK(\"x\")" or hostile["experiment"] != "'@sum(1+1)":
    errors.append("hostile cells read back as %r / %r" % (hostile["name"], hostile["experiment"]))

for e in errors[:40]:
    print("  " + e, file=sys.stderr)
if errors:
    sys.exit(1)
print("e2e_csv: python csv: %d values compared with /api/v1/summary and /api/v1/tasks "
      "(%d summary rows, %d task rows); the name reads back as %s" % (
          compared, len(data), len(rows) - 1, hostile["name"]))
PY

# --- 4. LibreOffice Calc -------------------------------------------------------
soffice=
for c in soffice libreoffice; do
  if command -v "$c" >/dev/null 2>&1; then soffice=$c; break; fi
done
if [ -z "$soffice" ]; then
  note "LibreOffice (soffice) is not installed: spreadsheet part skipped (Debian: libreoffice-calc-nogui)"
else
  lo_profile="file://$dir/lo-profile"
  # lo_convert OUTDIR EVALUATE(true|false) FILE.csv...: CSV (comma, '"', UTF-8, from
  # line 1, en-US, quoted fields not forced to text, special numbers detected,
  # formulas evaluated or not) -> .ods, one soffice run
  lo_convert() {
    out=$1; ev=$2; shift 2
    mkdir -p "$out"
    timeout -k 5 120 "$soffice" --headless --norestore --nolockcheck \
      "-env:UserInstallation=$lo_profile" \
      "--infilter=CSV:44,34,76,1,,1033,false,true,false,false,false,-1,$ev" \
      --convert-to ods --outdir "$out" "$@" >"$out/log" 2>&1 ||
      fail "soffice could not convert $*: $(tail -n 5 "$out/log")"
    for f in "$@"; do
      [ -s "$out/$(basename "$f" .csv).ods" ] || fail "soffice wrote no .ods for $(basename "$f"): $(cat "$out/log")"
    done
  }
  # negative control: the same file without the apostrophe, so the check must see a formula
  sed "s/\"'=HYPERLINK(\"\"x\"\")\"/\"=HYPERLINK(\"\"x\"\")\"/" "$task_file" >"$dir/control-tasks.csv"
  lo_t0=$(date +%s)
  lo_convert "$dir/lo-false" false "$sum_file" "$task_file"
  lo_convert "$dir/lo-true" true "$sum_file" "$task_file"
  lo_convert "$dir/lo-control" true "$dir/control-tasks.csv"
  lo_t1=$(date +%s)
  PYTHONPATH="$root/tests/e2e" python3 - "$sum_file" "$task_file" "$dir" <<'PY' || fail "LibreOffice does not read the CSV files back as the same values (above)"
import csv, os, sys, zipfile
import xml.etree.ElementTree as ET
from decimal import Decimal

sum_file, task_file, d = sys.argv[1:]
from ods_read import cells, same_instant

errors = []
checked = 0
times = 0

def compare(csv_path, ods_path, num_cols, label):
    global checked, times
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    sheet = cells(ods_path)
    head = rows[0]
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            vt, val, text, formula, link = sheet[i][j] if j < len(sheet[i]) else (None, None, "", None, False)
            where = "%s row %d %s" % (label, i, head[j])
            checked += 1
            if formula is not None or link:
                errors.append("%s: a formula or link %r (CSV %r)" % (where, formula, v))
            elif v == "":
                if vt is not None or text != "":
                    errors.append("%s: CSV empty, sheet %r %r" % (where, vt, text))
            elif i > 0 and head[j] in num_cols:
                if vt not in ("float", "percentage", "currency") or Decimal(val) != Decimal(v):
                    errors.append("%s: CSV %r, sheet %r %r" % (where, v, vt, val))
            elif i > 0 and head[j] in ("from", "to", "completed_at"):
                # "2027-01-25 00:00:00" must import as a date-time cell of that instant
                times += 1
                if vt != "date" or not same_instant(val, v):
                    errors.append("%s: CSV %r, sheet %r %r (want a date)" % (where, v, vt, val))
            else:
                # a text cell: a string with the CSV's characters. Calc hides a leading
                # apostrophe only when it would be read as a number or formula; either
                # way the value must be the literal text, never evaluated.
                if vt not in (None, "string") or text not in (v, v[1:] if v.startswith("'") else v):
                    errors.append("%s: CSV %r, sheet %r %r" % (where, v, vt, text))

sum_num = {"tasks_succeeded", "tasks_failed", "tasks_running", "attempts", "retries",
    "interruptions", "duplicates", "cost_usd", "cost_per_successful_task_usd", "useful_cost_usd",
    "restore_cost_usd", "wasted_cost_usd", "running_cost_usd", "idle_cost_usd",
    "restore_seconds_total", "restore_seconds_p50", "restore_seconds_p95",
    "savings_vs_on_demand_percent", "break_even_overhead_percent", "measured_overhead_percent",
    "cost_per_successful_task_low_usd", "cost_per_successful_task_high_usd",
    "difference_vs_counterfactual_low_usd", "difference_vs_counterfactual_high_usd",
    "difference_vs_on_demand_low_usd", "difference_vs_on_demand_high_usd"}
task_num = {"attempts", "retries", "interruptions", "restore_seconds", "cost_usd",
    "wasted_cost_usd"}
hostile = {}
for ev in ("false", "true"):
    od = os.path.join(d, "lo-" + ev)
    compare(sum_file, os.path.join(od, os.path.basename(sum_file)[:-4] + ".ods"), sum_num,
            "summary (evaluate formulas %s)" % ev)
    ods = os.path.join(od, os.path.basename(task_file)[:-4] + ".ods")
    compare(task_file, ods, task_num, "tasks (evaluate formulas %s)" % ev)
    for r in cells(ods):
        if any("HYPERLINK" in c[2] for c in r):
            hostile[ev] = [c for c in r if "HYPERLINK" in c[2]][0]
# the negative control: without the apostrophe, evaluating formulas does make one
ctl = None
for r in cells(os.path.join(d, "lo-control", "control-tasks.ods")):
    for c in r:
        if c[3] is not None and "HYPERLINK" in c[3].upper():
            ctl = c
if ctl is None:
    errors.append("negative control: Calc did not evaluate =HYPERLINK(\"x\") without the "
                  "apostrophe, so this check could not see a formula")
for e in errors[:40]:
    print("  " + e, file=sys.stderr)
if errors or len(hostile) != 2:
    if len(hostile) != 2:
        print("  the hostile cell was not found in the sheets: %r" % hostile, file=sys.stderr)
    sys.exit(1)
print("e2e_csv: LibreOffice: %d cells compared, %d timestamps imported as date cells "
      "(2 imports each: evaluate formulas off/on); "
      "the hostile cell is a %s %r with no formula or link (control without the apostrophe: "
      "formula %r)" % (checked, times, hostile["true"][0], hostile["true"][2], ctl[3]))
PY
  note "LibreOffice $("$soffice" --version 2>/dev/null | awk '{print $2}' | head -n 1): 5 files converted to .ods in $((lo_t1 - lo_t0)) s"
fi
# --- 5. the .xlsx twins (libxlsxwriter) -------------------------------------------
# Beside each CSV: an .xlsx with the same cells, typed (dates, currency, numbers),
# a frozen header row and a Notes sheet; and spotledger-exports-about.txt. Read back
# from the file's own XML (python zipfile), then through LibreOffice (.xlsx -> .ods).
sum_x="${sum_file%.csv}.xlsx"
task_x="${task_file%.csv}.xlsx"
about="$dir/exports/spotledger-exports-about.txt"
[ -s "$about" ] && grep -q 'counterfactual' "$about" && grep -q 'cost_per_successful_task_usd' "$about" ||
  fail "no spotledger-exports-about.txt explaining the columns and the basis"
if ! [ -s "$sum_x" ] || ! [ -s "$task_x" ]; then
  if pkg-config --exists xlsxwriter 2>/dev/null; then
    fail "built with libxlsxwriter but no .xlsx beside the CSV files: $(ls "$dir/exports")"
  fi
  note "SKIP: .xlsx part: built without libxlsxwriter (Debian libxlsxwriter-dev)"
else
  python3 - "$sum_x" "$task_x" <<'PY' || fail "the .xlsx files' own XML (above)"
import re, sys, zipfile
errors = []
for path in sys.argv[1:]:
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        wb = z.read("xl/workbook.xml").decode()
        styles = z.read("xl/styles.xml").decode()
        sheet1 = z.read("xl/worksheets/sheet1.xml").decode()
    sheets = re.findall(r'<sheet name="([^"]+)"', wb)
    if len(sheets) != 2 or sheets[1] != "Notes":
        errors.append("%s: sheets %r, want [data, Notes]" % (path, sheets))
    if not re.search(r'<pane [^>]*ySplit="1"[^>]*state="frozen"', sheet1):
        errors.append("%s: the header row is not frozen" % path)
    fmts = re.findall(r'formatCode="([^"]*)"', styles)
    if not any("$" in f for f in fmts) or not any("yyyy-mm-dd hh:mm:ss" in f for f in fmts):
        errors.append("%s: number formats %r: no currency or date-time format" % (path, fmts))
for e in errors:
    print("  " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
  if [ -n "$soffice" ]; then
    mkdir -p "$dir/lo-xlsx"
    timeout -k 5 120 "$soffice" --headless --norestore --nolockcheck "-env:UserInstallation=$lo_profile" \
      --convert-to ods --outdir "$dir/lo-xlsx" "$sum_x" "$task_x" >"$dir/lo-xlsx/log" 2>&1 ||
      fail "soffice could not convert the .xlsx files: $(tail -n 5 "$dir/lo-xlsx/log")"
    PYTHONPATH="$root/tests/e2e" python3 - "$sum_file" "$task_file" "$dir/lo-xlsx" <<'PY' || fail "LibreOffice does not read the .xlsx files as the CSV's typed values (above)"
import csv, os, sys, zipfile
import xml.etree.ElementTree as ET
from decimal import Decimal
sum_file, task_file, d = sys.argv[1:]
from ods_read import sheets, same_instant

TIME = {"from", "to", "completed_at"}
NUM = {"tasks_succeeded", "tasks_failed", "tasks_running", "attempts", "retries", "interruptions",
       "duplicates", "restore_seconds_total", "restore_seconds_p50", "restore_seconds_p95",
       "restore_seconds", "savings_vs_on_demand_percent", "break_even_overhead_percent",
       "measured_overhead_percent"}
errors = []
counts = {"date": 0, "money": 0, "number": 0, "text": 0}
for path in (sum_file, task_file):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    got = sheets(os.path.join(d, os.path.basename(path)[:-4] + ".ods"))
    names = list(got)
    if len(names) != 2 or names[1] != "Notes" or not any(
            "counterfactual" in c[2] for r in got["Notes"] for c in r):
        errors.append("%s: sheets %r, or no Notes sheet explaining the basis" % (path, names))
        continue
    sheet = got[names[0]]
    head = rows[0]
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            vt, val, text, formula, _ = sheet[i][j] if i < len(sheet) and j < len(sheet[i]) else (None, None, "", None, False)
            where = "%s row %d %s" % (os.path.basename(path), i, head[j])
            if formula is not None:
                errors.append("%s: a formula %r" % (where, formula))
            elif v == "":
                if vt is not None:
                    errors.append("%s: CSV empty, sheet %r %r" % (where, vt, val))
            elif i == 0:
                if text != v:
                    errors.append("%s: header %r" % (where, text))
            elif head[j] in TIME:
                counts["date"] += 1
                if vt != "date" or not same_instant(val, v):
                    errors.append("%s: CSV %r, sheet %r %r (want a date)" % (where, v, vt, val))
            elif head[j].endswith("_usd"):
                counts["money"] += 1
                if vt != "currency" or Decimal(val).quantize(Decimal("0.000001")) != Decimal(v):
                    errors.append("%s: CSV %r, sheet %r %r (want currency)" % (where, v, vt, val))
            elif head[j] in NUM:
                counts["number"] += 1
                if vt not in ("float", "percentage") or Decimal(val) != Decimal(v):
                    errors.append("%s: CSV %r, sheet %r %r (want a number)" % (where, v, vt, val))
            else:
                counts["text"] += 1
                want = v[1:] if v[:2] in ("'=", "'+", "'-", "'@") else v
                if vt != "string" or text != want:
                    errors.append("%s: CSV %r, sheet %r %r (want text %r)" % (where, v, vt, text, want))
for e in errors[:40]:
    print("  " + e, file=sys.stderr)
if errors:
    sys.exit(1)
print("e2e_csv: .xlsx via LibreOffice: %d date cells, %d currency cells, %d numbers, %d texts equal "
      "the CSV; header frozen, Notes sheet present" % (counts["date"], counts["money"],
                                                       counts["number"], counts["text"]))
PY
  else
    note "SKIP: .xlsx read back through LibreOffice: soffice is not installed"
  fi
fi

note "ok ($(($(date +%s) - t_start)) s)"
