#!/bin/sh
# make bench — spotledger's figures beside the goals of issue 20 (see
# tests/bench/README.md). Not pass/fail: every figure is measured twice, the better
# of the two is compared with its goal and a verdict printed; the table goes to
# stdout and build/bench/results.txt. Generated data stays in build/bench/ (keyed
# by seed and size) so a second run skips generation.
#
#   BENCH_SEED (1)  BENCH_REPS (3: repetitions inside one in-process figure, median)
#   WRK_ARGS (-t2 -c64 -d10s)  BENCH_HISTORY ("100000 1000000": the
#   history-growth databases; the 1M one is also the main database)
#   BENCH_3M (0; 1 adds the 3M-task database to BENCH_HISTORY: about an hour to
#   generate on the shared 2-core machine, so it is a flag)
#   BENCH_PROFILE (1: perf record on the cached summary under wrk, top entries in
#   the notes)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
seed=${BENCH_SEED:-1}
reps=${BENCH_REPS:-3}
wrk_args=${WRK_ARGS:--t2 -c64 -d10s}
history=${BENCH_HISTORY:-100000 1000000}
[ "${BENCH_3M:-0}" = 1 ] && history="$history 3000000"
profile=${BENCH_PROFILE:-1}
out=build/bench
tool=$out/bench_tool
ledger=$root/build/spotledger
mkdir -p "$out"
res="$out/results.txt.tmp"
notes="$out/notes.txt.tmp"
: >"$res"
: >"$notes"
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
say() { echo "bench: $*" >&2; }
note() { echo "$*" | tee -a "$notes" >&2; }

T0=1766966400                      # 2026-W01 (bench_gen.h)
WK=604800
NORMAL_FROM=$((T0 + 19 * WK))      # 2026-W20: 18,000 tasks (gen-db WEEK)
HOT_FROM=$((T0 + 29 * WK))         # 2026-W30: a tenth of all tasks
YEAR_TO=$((T0 + 52 * WK))
WEEK_TASKS=18000
NODES=20000                        # the same nodes in every history database

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print 0}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
lo() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 <= b + 0) ? a : b }'; }
hi() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 >= b + 0) ? a : b }'; }
kv() { echo "$1" | sed -n "s/.*\\b$2=\\([0-9.]*\\).*/\\1/p"; } # line key -> value
# verdict value goal le|ge -> "met" or "NOT met (N.NNx the goal)"
verdict() {
  awk -v v="$1" -v g="$2" -v how="$3" 'BEGIN {
    if (v !~ /^[0-9.]+$/) { print "NO FIGURE (failed)"; exit }
    ok = how == "le" ? v + 0 <= g + 0 : v + 0 >= g + 0
    if (ok) print "met"; else if (g + 0 > 0) printf "NOT met (%.2fx the goal)\n", v / g
    else print "NOT met" }'
}
fmt='%-52s %11s %11s %11s  %-26s %-14s %s\n'
row() { # figure run1 run2 best baseline goal verdict
  printf "$fmt" "$1" "$2" "$3" "$4" "$5" "$6" "$7" | tee -a "$res"
}
if [ "${BENCH_ONLY:-}" = fleet ]; then # make bench-fleet: the fleet rows alone (bench_fleet.sh)
  echo "spotledger bench, fleet rows — $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), seed $seed, $(git rev-parse --short HEAD 2>/dev/null || echo ?)" | tee -a "$res"
  printf "$fmt" figure "run 1" "run 2" best baseline goal verdict | tee -a "$res"
  . "$root/tests/bench/bench_fleet.sh"
  { echo; cat "$notes"; } >>"$res"
  rm -f "$notes"
  mv "$res" "$out/results-fleet.txt"
  echo "bench: table saved to $out/results-fleet.txt" >&2
  exit 0
fi

# --- data -------------------------------------------------------------------
k8s="$out/k8s-s$seed-j20000-p60000"
if [ ! -f "$k8s/.done" ]; then
  say "generating 20,000 Jobs and 60,000 Pods (pages of 500) in $k8s"
  rm -rf "$k8s"; mkdir -p "$k8s"
  "$tool" gen-k8s "$k8s" 20000 60000 500 "$seed"
  touch "$k8s/.done"
fi
for n in $history; do
  db="$out/hist-s$seed-t$n.db"
  if [ ! -f "$db.done" ]; then
    say "generating the $n-task database $db ($WEEK_TASKS tasks in 2026-W20; about 1 min per 100k tasks on a busy 2-core machine)"
    rm -f "$db" "$db-wal" "$db-shm"
    a=$(ms)
    "$tool" gen-db "$db" "$n" $NODES "$seed" $WEEK_TASKS
    touch "$db.done"
    note "generated $db in $(( ($(ms) - a) / 1000 )) s"
  fi
done
for n in $history; do # migrations that landed after the data was generated
  "$tool" migrate "$out/hist-s$seed-t$n.db"
done
DB1M="$out/hist-s$seed-t1000000.db"
[ -f "$DB1M.done" ] || { say "the 1M-task database is the main one: keep 1000000 in BENCH_HISTORY"; exit 2; }

{
  echo "spotledger bench — $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), seed $seed, $(git rev-parse --short HEAD 2>/dev/null || echo ?)"
  echo "(times in ms unless noted; every figure measured twice, the better one compared with the goal of issue 20)"
  echo
} | tee -a "$res"
printf "$fmt" figure "run 1" "run 2" best baseline goal verdict | tee -a "$res"

# --- ingest -----------------------------------------------------------------
bytes=$(cat "$k8s"/*.json | wc -c)
say "ingest: $((bytes / 1048576)) MiB of List pages"
cat "$k8s"/*.json >/dev/null # page cache
jq_ms() { # jq extracting the same fields spotledger keeps from each Job and Pod
  a=$(ms)
  jq -c '.items[] | [.metadata.uid, .metadata.name, .metadata.namespace,
      .metadata.resourceVersion, .metadata.creationTimestamp, .metadata.deletionTimestamp,
      .metadata.labels["spotledger.io/configuration"], .metadata.labels["spotledger.io/experiment"],
      (.metadata.ownerReferences // [] | map(select(.controller)) | .[0].uid),
      .spec.nodeName, .spec.backoffLimit, .spec.ttlSecondsAfterFinished, .spec.completions,
      ([.spec.containers[]?.resources.requests["nvidia.com/gpu"]] | add),
      ([.spec.containers[]?.resources.requests.cpu] | add),
      .status.phase, .status.reason, .status.startTime, .status.completionTime,
      (.status.conditions // [] | map([.type, .status, .lastTransitionTime, .reason])),
      (.status.containerStatuses // [] | map(.state.terminated | [.exitCode, .startedAt,
        .finishedAt, .message]))]' "$k8s"/jobs-*.json "$k8s"/pods-*.json >/dev/null
  echo $(( $(ms) - a ))
}
for r in 1 2; do
  line=$("$tool" ingest "$k8s" "$out/ingest.db")
  rm -f "$out/ingest.db" "$out/ingest.db-wal" "$out/ingest.db-shm"
  eval "ing$r=$(kv "$line" ingest_ms) parse$r=$(kv "$line" parse_ms)"
  eval "grow$r=$(( ($(kv "$line" rss_end_kib) - $(kv "$line" rss_early_kib)) / 1024 ))"
  eval "bare$r=$(kv "$("$tool" bare "$k8s")" bare_ms)"
  eval "trim$r=$(kv "$("$tool" bare-trim "$k8s")" trim_ms)"
  eval "jq$r=$(jq_ms)"
  items=$(kv "$line" items)
done
ing=$(lo "$ing1" "$ing2"); jqb=$(lo "$jq1" "$jq2"); bare=$(lo "$bare1" "$bare2")
ij=$(lo "$(ratio "$ing1" "$jq1")" "$(ratio "$ing2" "$jq2")") # the better run's ratio
row "ingest 20k Jobs + 60k Pods ($items objects), ms" "$ing1" "$ing2" "$ing" "jq $jqb" \
  "<= 0.4x jq" "${ij}x: $(verdict "$ij" 0.4 le)"
ib=$(lo "$(ratio "$ing1" "$bare1")" "$(ratio "$ing2" "$bare2")") # the better run's ratio
row "  the same vs a bare json-c parse of the pages" "$(ratio "$ing1" "$bare1")x" \
  "$(ratio "$ing2" "$bare2")x" "${ib}x" "bare parse $bare" "<= 1.1x bare" "$(verdict "$ib" 1.1 le)"
row "  of which k8s_list_parse, ms" "$parse1" "$parse2" "$(lo "$parse1" "$parse2")" "" "" ""
trim=$(lo "$trim1" "$trim2")
row "  idea: json-c fed around managedFields (kept)" "$trim1" "$trim2" "$trim" "bare parse $bare" \
  "" "$(ratio "$trim" "$bare")x the bare parse"
grow=$(lo "$grow1" "$grow2")
row "  RSS growth over the last 90% of the pages, MiB" "$grow1" "$grow2" "$grow" "" \
  "flat (<= 8 MiB)" "$(verdict "$grow" 8 le)"

# --- uncached weeks and the CSV, in process ---------------------------------------
summary_ms() { # db from to -> median of $reps summary_ms
  kv "$("$tool" summary "$1" "$2" "$3" "$reps")" summary_ms
}
# the obvious aggregate: per configuration, attempt-seconds in the window x share x rate
agg_sql() { # from to
  cat <<EOF
SELECT t.configuration, count(DISTINCT a.task_uid), count(*),
  sum((min(coalesce(a.finished_at, a.deleted_at), $2)
       - max(coalesce(a.scheduled_at, a.created_at, a.started_at), $1))
      * n.price_hourly_micro * a.gpu_request / n.gpu_allocatable / 3600)
FROM attempts a JOIN tasks t ON t.uid = a.task_uid JOIN nodes n ON n.name = a.node_name
WHERE coalesce(a.scheduled_at, a.created_at, a.started_at) < $2
  AND coalesce(a.scheduled_at, a.created_at, a.started_at) >= $1 - (SELECT
      max(coalesce(finished_at, deleted_at) - coalesce(scheduled_at, created_at, started_at))
      FROM attempts)
  AND coalesce(a.finished_at, a.deleted_at) > $1
GROUP BY t.configuration;
EOF
}
shell_ms() { # db from to: median real time of the aggregate in one sqlite3 session
  { echo ".timer on"; i=0; while [ $i -lt "$reps" ]; do agg_sql "$2" "$3"; i=$((i + 1)); done; } |
    sqlite3 "file:$1?mode=ro" 2>&1 | sed -n 's/^Run Time: real \([0-9.]*\).*/\1/p' |
    awk '{printf "%.1f\n", $1 * 1000}' | median
}
cat "$DB1M" >/dev/null
week_tasks=$(kv "$("$tool" summary "$DB1M" $NORMAL_FROM $((NORMAL_FROM + WK)) 1)" tasks)
hot_tasks=$(kv "$("$tool" summary "$DB1M" $HOT_FROM $((HOT_FROM + WK)) 1)" tasks)
w1=$(summary_ms "$DB1M" $NORMAL_FROM $((NORMAL_FROM + WK)))
w2=$(summary_ms "$DB1M" $NORMAL_FROM $((NORMAL_FROM + WK)))
sh_week=$(shell_ms "$DB1M" $NORMAL_FROM $((NORMAL_FROM + WK)))
w=$(lo "$w1" "$w2")
row "closed week 2026-W20 ($week_tasks tasks), uncached, in process" "$w1" "$w2" "$w" \
  "sqlite3 shell $sh_week" "<= 25 ms" "$(verdict "$w" 25 le)"
h1=$(summary_ms "$DB1M" $HOT_FROM $((HOT_FROM + WK)))
h2=$(summary_ms "$DB1M" $HOT_FROM $((HOT_FROM + WK)))
h=$(lo "$h1" "$h2")
row "busy week 2026-W30 ($hot_tasks tasks), uncached, in process" "$h1" "$h2" "$h" "" \
  "<= 150 ms" "$(verdict "$h" 150 le)"
e1=$(kv "$("$tool" export "$DB1M" $HOT_FROM $((HOT_FROM + WK)))" export_ms)
e2=$(kv "$("$tool" export "$DB1M" $HOT_FROM $((HOT_FROM + WK)))" export_ms)
e=$(lo "$e1" "$e2")
row "weekly tasks CSV 2026-W30, export_build in process" "$e1" "$e2" "$e" "" "<= 500 ms" \
  "$(verdict "$e" 500 le)"

# --- the service over HTTP, and nginx serving the same bytes ------------------------
start_ledger() { # [extra flags] -> sets lpid, base; serves a copy of $serve_src
  cp "$serve_src" "$out/serve.db" # the service migrates and writes; keep the source pristine
  rm -f "$out/serve.db-wal" "$out/serve.db-shm"
  : >"$out/ledger.out"
  "$ledger" --listen 127.0.0.1:0 --db "$out/serve.db" --log-level warn --no-kube \
    --web-dir "$root/web" "$@" >"$out/ledger.out" 2>"$out/ledger.err" &
  lpid=$!
  pids="$pids $lpid"
  i=0
  while ! grep -q 'listening on' "$out/ledger.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 600 ] || { cat "$out/ledger.err" >&2; exit 1; }
    sleep 0.1
  done
  base="http://127.0.0.1:$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$out/ledger.out")"
}
stop_ledger() {
  kill "$lpid" 2>/dev/null || true
  wait "$lpid" 2>/dev/null || true
  rm -f "$out/serve.db" "$out/serve.db-wal" "$out/serve.db-shm"
}
curl_ms() { # url -> time_total in ms of one request
  curl -s -o /dev/null -w '%{time_total}\n' "$1" | awk '{printf "%.1f\n", $1 * 1000}'
}
hwm_mib() { echo $(( $(awk '/VmHWM/ {print $2}' "/proc/$1/status") / 1024 )); }

# --- closed days kept by the background pass (service/daykeeper.h) ----------------------
# The service keeps each closed day's partial sums off the request path; a service that
# has run for a while has them all. Measured once on a fresh copy of the 1M database:
# the time until the pass has nothing left (some rows kept, and unchanged for 20 s: a
# day's version must hold 10 s before it is computed, an idle pass waits 5 s) and the
# service's peak RSS meanwhile; the copy with its kept days is
# then what every later service here starts from (serve_src).
serve_src=$DB1M
KEPT="$out/kept-s$seed-t1000000.db"
say "the background pass keeps the closed days of a fresh copy of the 1M-task database"
ka=$(ms)
start_ledger
prev=-1; same=0; i=0
while { [ $same -lt 20 ] || [ "$prev" = 0 ]; } && [ $i -lt 3600 ]; do
  sleep 1; i=$((i + 1))
  kn=$(sqlite3 "file:$out/serve.db?mode=ro" "SELECT count(*) FROM cost_partials" 2>/dev/null || echo 0)
  if [ "$kn" = "$prev" ]; then same=$((same + 1)); else same=0; prev=$kn; fi
done
keep_s=$(( ($(ms) - ka) / 1000 - same ))
keep_rss=$(hwm_mib "$lpid")
kill "$lpid" 2>/dev/null || true
wait "$lpid" 2>/dev/null || true
sqlite3 "$out/serve.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
mv "$out/serve.db" "$KEPT"
rm -f "$out/serve.db-wal" "$out/serve.db-shm"
serve_src=$KEPT
# the weeks as the service answers them (7 whole days: composed from the kept days,
# compose_stored in process), beside the direct rows above
stored_ms() { # db from to -> median of $reps compose_ms
  "$tool" stored "$1" "$2" "$3" "$reps" | sed -n 's/.*compose_ms=\([0-9.]*\).*/\1/p' | median
}
cw1=$(stored_ms "$KEPT" $NORMAL_FROM $((NORMAL_FROM + WK)))
cw2=$(stored_ms "$KEPT" $NORMAL_FROM $((NORMAL_FROM + WK)))
cw=$(lo "$cw1" "$cw2")
row "closed week 2026-W20, composed from kept days, in process" "$cw1" "$cw2" "$cw" "direct $w" \
  "<= 25 ms" "$(verdict "$cw" 25 le)"
ch1=$(stored_ms "$KEPT" $HOT_FROM $((HOT_FROM + WK)))
ch2=$(stored_ms "$KEPT" $HOT_FROM $((HOT_FROM + WK)))
ch=$(lo "$ch1" "$ch2")
row "busy week 2026-W30, composed from kept days, in process" "$ch1" "$ch2" "$ch" "direct $h" \
  "<= 150 ms" "$(verdict "$ch" 150 le)"
wrk_run() { # url -> "req/s p99_ms"
  wrk $wrk_args --latency "$1" 2>&1 | awk '
    /Requests\/sec:/ {rps = $2}
    /^ +99%/ {p = $2; if (p ~ /us$/) {sub(/us$/, "", p); p /= 1000} else if (p ~ /ms$/) sub(/ms$/, "", p);
              else if (p ~ /s$/) {sub(/s$/, "", p); p *= 1000}; p99 = p}
    END {printf "%s %s\n", rps + 0, p99 + 0}'
}
utc() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
wk="window=2026-W20"
year_q="window=$(utc $T0),$(utc $YEAR_TO)"
year2_q="window=$(utc $((T0 + 86400))),$(utc $YEAR_TO)" # another year-long window

ng="$out/nginx"
start_nginx() { # serves summary.json and healthz as static files
  rm -rf "$ng"; mkdir -p "$ng/www/api/v1" "$ng/tmp"
  cp "$out/summary.json" "$ng/www/api/v1/summary"
  cp "$out/healthz.txt" "$ng/www/healthz"
  port=18480
  while ss -ltn 2>/dev/null | grep -q ":$port "; do port=$((port + 1)); done
  cat >"$ng/nginx.conf" <<EOF
worker_processes $(nproc);
daemon off;
pid $root/$ng/nginx.pid;
error_log $root/$ng/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $root/$ng/tmp; proxy_temp_path $root/$ng/tmp;
  fastcgi_temp_path $root/$ng/tmp; uwsgi_temp_path $root/$ng/tmp; scgi_temp_path $root/$ng/tmp;
  default_type application/json;
  server { listen 127.0.0.1:$port; root $root/$ng/www; }
}
EOF
  nginx -c "$root/$ng/nginx.conf" -e "$root/$ng/error.log" &
  npid=$!
  pids="$pids $npid"
  i=0
  until curl -sf -o /dev/null "http://127.0.0.1:$port/healthz"; do
    i=$((i + 1)); [ $i -le 100 ] || { cat "$ng/error.log" >&2; exit 1; }
    sleep 0.1
  done
}

for r in 1 2; do
  say "HTTP, run $r: starting spotledger on a copy of the 1M-task database"
  start_ledger
  curl -sf "$base/api/v1/summary?$wk" >"$out/summary.json" # computes, then cached
  curl -sf "$base/healthz" >"$out/healthz.txt"
  eval "csv$r=$(curl_ms "$base/api/v1/export.csv?week=2026-W30&kind=tasks")"
  start_nginx
  # wrk: nginx, then spotledger, on the same bytes
  set -- $(wrk_run "http://127.0.0.1:$port/healthz"); eval "nh_rps$r=$1 nh_p99$r=$2"
  set -- $(wrk_run "$base/healthz"); eval "lh_rps$r=$1 lh_p99$r=$2"
  set -- $(wrk_run "http://127.0.0.1:$port/api/v1/summary"); eval "ns_rps$r=$1 ns_p99$r=$2"
  if [ "$r" = 1 ] && [ "$profile" = 1 ] && command -v perf >/dev/null 2>&1; then
    perf record -F 999 -g -o "$out/perf.data" -p "$lpid" -- sleep 5 >/dev/null 2>&1 &
    perfpid=$!
  fi
  set -- $(wrk_run "$base/api/v1/summary?$wk"); eval "ls_rps$r=$1 ls_p99$r=$2"
  kill "$npid" 2>/dev/null || true
  wait "$npid" 2>/dev/null || true
  eval "rss_week$r=$(hwm_mib "$lpid")"
  say "HTTP, run $r: the year window composed from the kept days (the default)"
  eval "cyear_first$r=$(curl_ms "$base/api/v1/summary?$year_q")"
  eval "cyear_again$r=$(curl_ms "$base/api/v1/summary?$year2_q")"
  eval "crss_year$r=$(hwm_mib "$lpid")"
  stop_ledger
  say "HTTP, run $r: the year window computed directly (--no-compose-days, a fresh copy)"
  start_ledger --no-compose-days
  eval "year_first$r=$(curl_ms "$base/api/v1/summary?$year_q")"
  eval "year_again$r=$(curl_ms "$base/api/v1/summary?$year2_q")"
  eval "rss_year$r=$(hwm_mib "$lpid")"
  stop_ledger
done

yf=$(lo "$year_first1" "$year_first2")
ya=$(lo "$year_again1" "$year_again2")
cyf=$(lo "$cyear_first1" "$cyear_first2")
row "year window over 1M tasks, GET /api/v1/summary (days kept)" "$cyear_first1" \
  "$cyear_first2" "$cyf" "direct $yf" "<= 50 ms" "$(verdict "$cyf" 50 le)"
cya=$(lo "$cyear_again1" "$cyear_again2")
row "  then another year-long window (not response-cached)" "$cyear_again1" "$cyear_again2" \
  "$cya" "direct $ya" "<= 50 ms" "$(verdict "$cya" 50 le)"
cry=$(lo "$crss_year1" "$crss_year2")
row "  peak RSS of the service after the year windows, MiB" "$crss_year1" "$crss_year2" "$cry" \
  "" "<= 64 MiB" "$(verdict "$cry" 64 le)"
row "  the background pass: every closed day kept, s" "$keep_s" "" "$keep_s" "" "" \
  "peak RSS $keep_rss MiB"
row "year window, direct (--no-compose-days), first" "$year_first1" "$year_first2" "$yf" "" \
  "<= 2000 ms" "$(verdict "$yf" 2000 le)"
row "  then another year-long window (not response-cached)" "$year_again1" "$year_again2" "$ya" \
  "" "<= 50 ms" "$(verdict "$ya" 50 le)"
ry=$(lo "$rss_year1" "$rss_year2")
row "  peak RSS of the direct service after the year windows, MiB" "$rss_year1" "$rss_year2" \
  "$ry" "" "<= 64 MiB" "$(verdict "$ry" 64 le)"
q1=$(ratio "$ls_rps1" "$ns_rps1"); q2=$(ratio "$ls_rps2" "$ns_rps2"); q=$(hi "$q1" "$q2")
row "cached summary, wrk req/s, spotledger / nginx" "${q1}x" "${q2}x" "${q}x" \
  "nginx $(hi "$ns_rps1" "$ns_rps2")/s" ">= 1.0x" "$(verdict "$q" 1.0 ge)"
row "  spotledger req/s" "$ls_rps1" "$ls_rps2" "$(hi "$ls_rps1" "$ls_rps2")" "" "" ""
p1=$(ratio "$ls_p991" "$ns_p991"); p2=$(ratio "$ls_p992" "$ns_p992"); p=$(lo "$p1" "$p2")
row "  p99 latency, spotledger / nginx" "${p1}x" "${p2}x" "${p}x" \
  "nginx $(lo "$ns_p991" "$ns_p992") ms" "<= 2.0x" "$(verdict "$p" 2.0 le)"
row "  spotledger p99, ms" "$ls_p991" "$ls_p992" "$(lo "$ls_p991" "$ls_p992")" "" "" ""
hq1=$(ratio "$lh_rps1" "$nh_rps1"); hq2=$(ratio "$lh_rps2" "$nh_rps2")
row "  /healthz for reference: req/s spotledger / nginx" "${hq1}x" "${hq2}x" "$(hi "$hq1" "$hq2")x" \
  "nginx $(hi "$nh_rps1" "$nh_rps2")/s" "" ""
c=$(lo "$csv1" "$csv2")
row "weekly tasks CSV 2026-W30, GET /api/v1/export.csv" "$csv1" "$csv2" "$c" "" "<= 500 ms" \
  "$(verdict "$c" 500 le)"
rw=$(lo "$rss_week1" "$rss_week2")
row "peak RSS after the week queries and wrk, MiB" "$rss_week1" "$rss_week2" "$rw" "" "<= 64 MiB" \
  "$(verdict "$rw" 64 le)"

# --- the what-if planner (issue 21): its default run on the busy week --------------------
# GET /api/v1/whatif with no parameter over 2026-W30 of the 1M-task database: the window's
# measured defaults, 200 replications of the week's tasks (lowered to fit samples x tasks <=
# 2 M, docs/whatif.md), the break-even bisection and the checkpoint scan; computed twice (the
# second with samples=199, another cache key, so it is computed again).
whatif_row() {
  start_ledger
  _q="window=$(utc $HOT_FROM),$(utc $((HOT_FROM + WK)))"
  _w1=$(curl_ms "$base/api/v1/whatif?$_q")
  _w2=$(curl_ms "$base/api/v1/whatif?$_q&samples=199")
  _tpr=$(curl -sf "$base/api/v1/whatif?$_q" | jq -r '.model.tasks_per_run')
  stop_ledger
  row "what-if planner W30 ($hot_tasks tasks, $_tpr per run), GET /api/v1/whatif" "$_w1" "$_w2" \
    "$(lo "$_w1" "$_w2")" "" "" ""
}
whatif_row

# --- the bootstrap (issue 21): the 95 % intervals of the busy week ---------------------
# GET /api/v1/summary?uncertainty=true over W30 on a fresh service, after the plain
# summary of the same window (its figure is the baseline): the first asks the default
# 2,000 resamples, the second 1,999 (another cache key, so it is computed again).
bootstrap_row() {
  start_ledger
  _q="window=$(utc $HOT_FROM),$(utc $((HOT_FROM + WK)))"
  _p=$(curl_ms "$base/api/v1/summary?$_q")
  _b1=$(curl_ms "$base/api/v1/summary?$_q&uncertainty=true")
  _b2=$(curl_ms "$base/api/v1/summary?$_q&uncertainty=true&resamples=1999")
  _c=$(curl_ms "$base/api/v1/summary?$_q&uncertainty=true") # cached with the window
  _ok=$(curl -sf "$base/api/v1/summary?$_q&uncertainty=true" |
    jq -r '[.uncertainty.cost_per_successful_task[] | select(.lo != null)] | length')
  stop_ledger
  row "bootstrap W30 ($hot_tasks tasks, 2000 resamples), summary?uncertainty=true" "$_b1" "$_b2" \
    "$(lo "$_b1" "$_b2")" "plain summary $_p" "" ""
  note "bootstrap: $_ok configurations with an interval on W30; the same request again (cached with the window): $_c ms"
}
bootstrap_row

# --- history growth: the same 18k-task week in more and more history ------------------
growth=
first=
for n in $history; do
  db="$out/hist-s$seed-t$n.db"
  [ -f "$db.done" ] || continue
  cat "$db" >/dev/null 2>&1 || true
  a1=$(summary_ms "$db" $NORMAL_FROM $((NORMAL_FROM + WK)))
  a2=$(summary_ms "$db" $NORMAL_FROM $((NORMAL_FROM + WK)))
  a=$(lo "$a1" "$a2")
  row "history growth: W20 ($WEEK_TASKS tasks) in a db of $n tasks" "$a1" "$a2" "$a" "" "" ""
  growth="$growth $n: $a ms;"
  [ -n "$first" ] || first=$a
  last=$a
  lastn=$n
done
g=$(ratio "$last" "$first")
row "history growth:$growth $lastn / first" "" "" "${g}x" "" "<= 1.2x (flat)" \
  "$(verdict "$g" 1.2 le)"
case " $history " in
*" 3000000 "*) ;;
*) note "history growth: the 3M-task database was not measured in this run (BENCH_3M=1 generates it, about an hour)" ;;
esac

# --- a fleet: 20 clusters in one database (issue 22) -----------------------------------
. "$root/tests/bench/bench_fleet.sh"

# --- load: slow clients and faulty upstreams (issue 18; its own columns, one run) ---------
{ echo; printf '%-44s %14s  %-30s %14s  %7s  %s\n' "load section" value baseline value ratio goal; } |
  tee -a "$res"
row() { printf '%-44s %14s  %-30s %14s  %7s  %s\n' "$1" "$2" "$3" "$4" "$5" "$6" | tee -a "$res"; }
. "$root/tests/bench/bench_load.sh"

# --- notes ----------------------------------------------------------------------------
if [ -n "${perfpid:-}" ]; then
  wait "$perfpid" 2>/dev/null || true
  note ""
  note "profile of the cached summary under wrk (perf record -g, self time, top entries):"
  perf report -i "$out/perf.data" --no-children --stdio --percent-limit 1.5 -g none 2>/dev/null |
    grep -v '^#' | grep -v '^$' | head -15 | tee -a "$notes" >&2 || true
fi
{ echo; cat "$notes"; } >>"$res"
rm -f "$notes"
mv "$res" "$out/results.txt"
echo "bench: table saved to $out/results.txt" >&2
