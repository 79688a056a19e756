#!/bin/sh
# make bench — spotledger's figures under load, each beside its baseline (see
# tests/bench/README.md). Not pass/fail: it prints a table and saves it to
# build/bench/results.txt. Generated data stays in build/bench/ (keyed by seed and
# size) so a second run skips generation.
#
#   BENCH_SEED (1)  BENCH_REPS (5)  WRK_ARGS (-t2 -c64 -d10s)  BENCH_YEAR (1: also
#   the year window, which loads every row)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
seed=${BENCH_SEED:-1}
reps=${BENCH_REPS:-5}
wrk_args=${WRK_ARGS:--t2 -c64 -d10s}
year=${BENCH_YEAR:-1}
out=build/bench
tool=$out/bench_tool
ledger=$root/build/spotledger
mkdir -p "$out"
res="$out/results.txt.tmp"
: >"$res"
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
say() { echo "bench: $*" >&2; }

T0=1766966400                      # 2026-W01 (bench_gen.h)
WK=604800
NORMAL_FROM=$((T0 + 19 * WK))      # 2026-W20: an ordinary week
HOT_FROM=$((T0 + 29 * WK))         # 2026-W30: a tenth of all tasks
YEAR_TO=$((T0 + 52 * WK))

ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print 0}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
row() { # figure, spotledger, baseline name, baseline value, ratio, goal
  printf '%-44s %14s  %-30s %14s  %7s  %s\n' "$1" "$2" "$3" "$4" "$5" "$6" | tee -a "$res"
}

# --- data -------------------------------------------------------------------
k8s="$out/k8s-s$seed-j20000-p60000"
if [ ! -f "$k8s/.done" ]; then
  say "generating 20,000 Jobs and 60,000 Pods (pages of 500) in $k8s"
  rm -rf "$k8s"; mkdir -p "$k8s"
  "$tool" gen-k8s "$k8s" 20000 60000 500 "$seed"
  touch "$k8s/.done"
fi
for n in 10000 100000 1000000; do
  db="$out/db-s$seed-t$n.db"
  if [ ! -f "$db.done" ]; then
    say "generating the $n-task database $db (1M: about 2-3 minutes)"
    rm -f "$db" "$db-wal" "$db-shm"
    "$tool" gen-db "$db" "$n" $((n / 50)) "$seed"
    touch "$db.done"
  fi
done
DB1M="$out/db-s$seed-t1000000.db"

{
  echo "spotledger bench — $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, seed $seed, $(git rev-parse --short HEAD 2>/dev/null || echo ?)"
  echo "(times in ms unless noted; ratio = spotledger / baseline; lower is better except requests/s)"
  echo
} | tee -a "$res"
printf '%-44s %14s  %-30s %14s  %7s  %s\n' figure spotledger baseline value ratio goal | tee -a "$res"

# --- ingest -----------------------------------------------------------------
bytes=$(cat "$k8s"/*.json | wc -c)
say "ingest: $((bytes / 1048576)) MiB of List pages"
cat "$k8s"/*.json >/dev/null # page cache
line=$("$tool" ingest "$k8s" "$out/ingest.db")
ingest=$(echo "$line" | sed 's/.*ingest_ms=\([0-9.]*\).*/\1/')
parse=$(echo "$line" | sed 's/.*parse_ms=\([0-9.]*\).*/\1/')
items=$(echo "$line" | sed 's/.*items=\([0-9]*\).*/\1/')
bare=$("$tool" bare "$k8s" | sed 's/.*bare_ms=\([0-9.]*\).*/\1/')
# jq extracting the same fields spotledger keeps from each Job and Pod
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
jqms=$(( $(ms) - a ))
row "ingest 20k Jobs + 60k Pods ($items objects)" "$ingest" "jq extracting the fields" "$jqms" \
  "$(ratio "$ingest" "$jqms")" "<= 0.5"
row "  of which k8s_list_parse" "$parse" "bare json-c parse" "$bare" "$(ratio "$parse" "$bare")" ""
row "ingest vs bare json-c parse" "$ingest" "bare json-c parse" "$bare" \
  "$(ratio "$ingest" "$bare")" "<= 2"
rm -f "$out/ingest.db" "$out/ingest.db-wal" "$out/ingest.db-shm"

# --- summary, in process and in the sqlite3 shell ------------------------------
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
shell_ms() { # db from to reps: median real time of the aggregate in one sqlite3 session
  { echo ".timer on"; i=0; while [ $i -lt "$4" ]; do agg_sql "$2" "$3"; i=$((i + 1)); done; } |
    sqlite3 "file:$1?mode=ro" 2>&1 | sed -n 's/^Run Time: real \([0-9.]*\).*/\1/p' |
    awk '{printf "%.1f\n", $1 * 1000}' | median
}
inproc() { # db from to reps -> "summary_ms load_ms tasks"
  "$tool" summary "$1" "$2" "$3" "$4" |
    sed 's/summary_ms=\([0-9.]*\) load_ms=\([0-9.]*\) tasks=\([0-9]*\).*/\1 \2 \3/'
}
cat "$DB1M" >/dev/null
set -- $(inproc "$DB1M" $NORMAL_FROM $((NORMAL_FROM + WK)) "$reps")
sum_week=$1; sum_week_load=$2; week_tasks=$3
sh_week=$(shell_ms "$DB1M" $NORMAL_FROM $((NORMAL_FROM + WK)) "$reps")
row "summary, week ($week_tasks tasks), in process" "$sum_week" "sqlite3 shell aggregate" \
  "$sh_week" "$(ratio "$sum_week" "$sh_week")" "<= 50 ms, <= 1.5"
row "  of which store_cost_load" "$sum_week_load" "" "" "" ""
if [ "$year" = 1 ]; then
  set -- $(inproc "$DB1M" $T0 $YEAR_TO 1)
  sum_year=$1; year_tasks=$3
  sh_year=$(shell_ms "$DB1M" $T0 $YEAR_TO 1)
  row "summary, year ($year_tasks tasks), in process" "$sum_year" "sqlite3 shell aggregate" \
    "$sh_year" "$(ratio "$sum_year" "$sh_year")" "<= 1.5"
fi

# --- the service over HTTP ----------------------------------------------------
say "starting spotledger on the 1M-task database"
cp "$DB1M" "$out/serve.db" 2>/dev/null # the service migrates/writes; keep the cache pristine
"$ledger" --no-kube --listen 127.0.0.1:0 --db "$out/serve.db" --log-level warn \
  --web-dir "$root/web" >"$out/ledger.out" 2>"$out/ledger.err" &
lpid=$!
pids="$pids $lpid"
i=0
while ! grep -q 'listening on' "$out/ledger.out" 2>/dev/null; do
  i=$((i + 1)); [ $i -le 300 ] || { cat "$out/ledger.err" >&2; exit 1; }
  sleep 0.1
done
base="http://127.0.0.1:$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$out/ledger.out")"
curl_ms() { # url reps -> median time_total in ms
  i=0
  while [ $i -lt "$2" ]; do
    curl -s -o /dev/null -w '%{time_total}\n' "$1"; i=$((i + 1))
  done | awk '{printf "%.1f\n", $1 * 1000}' | median
}
wk="window=2026-W20"
curl -sf "$base/api/v1/summary?$wk" >"$out/summary.json"
http_week=$(curl_ms "$base/api/v1/summary?$wk" "$reps")
row "summary, week, GET /api/v1/summary" "$http_week" "sqlite3 shell aggregate" "$sh_week" \
  "$(ratio "$http_week" "$sh_week")" "<= 50 ms, <= 1.5"
http_exp=$(curl_ms "$base/api/v1/export.csv?week=2026-W30&kind=tasks" 1)
rows=$(curl -s "$base/api/v1/export.csv?week=2026-W30&kind=tasks" | wc -l)
exp_in=$("$tool" export "$DB1M" $HOT_FROM $((HOT_FROM + WK)) | sed 's/export_ms=\([0-9.]*\).*/\1/')
row "export tasks CSV, week of $((rows - 1)) tasks (HTTP)" "$http_exp" "goal" 2000 \
  "$(ratio "$http_exp" 2000)" "<= 2 s"
row "  the same, export_build in process" "$exp_in" "goal" 2000 "$(ratio "$exp_in" 2000)" "<= 2 s"
hwm_week=$(awk '/VmHWM/ {print $2}' /proc/$lpid/status)

# --- wrk against nginx serving the same bytes ------------------------------------
ng="$out/nginx"
rm -rf "$ng"; mkdir -p "$ng/www/api/v1" "$ng/tmp"
cp "$out/summary.json" "$ng/www/api/v1/summary"
curl -s "$base/healthz" >"$ng/www/healthz"
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
wrk_run() { # url -> "req/s p99"
  wrk $wrk_args --latency "$1" 2>&1 | awk '
    /Requests\/sec:/ {rps = $2}
    /^ +99%/ {p = $2; if (p ~ /us$/) {sub(/us$/, "", p); p /= 1000} else if (p ~ /ms$/) sub(/ms$/, "", p);
              else if (p ~ /s$/) {sub(/s$/, "", p); p *= 1000}; p99 = p}
    END {printf "%s %s\n", rps + 0, p99 + 0}'
}
# /healthz first: slow summaries queued by wrk keep the server busy after wrk stops
for path in /healthz "/api/v1/summary?$wk"; do
  npath=${path%%\?*}
  set -- $(wrk_run "http://127.0.0.1:$port$npath"); n_rps=$1; n_p99=$2
  set -- $(wrk_run "$base$path"); l_rps=$1; l_p99=$2
  row "wrk $npath requests/s" "$l_rps" "nginx, same bytes" "$n_rps" "$(ratio "$l_rps" "$n_rps")" \
    ">= 0.5"
  row "wrk $npath p99 latency" "$l_p99" "nginx p99" "$n_p99" "$(ratio "$l_p99" "$n_p99")" ""
done
kill "$npid" 2>/dev/null || true

hwm=$(awk '/VmHWM/ {print $2}' /proc/$lpid/status)
row "peak RSS after week queries + wrk (MiB)" "$((hwm_week / 1024)) / $((hwm / 1024))" "goal" 64 \
  "$(ratio $((hwm / 1024)) 64)" "<= 64 MiB"
if [ "$year" = 1 ]; then
  http_year=$(curl_ms "$base/api/v1/summary?window=$(date -u -d @$T0 +%Y-%m-%dT%H:%M:%SZ),$(date -u -d @$YEAR_TO +%Y-%m-%dT%H:%M:%SZ)" 1)
  hwm_year=$(awk '/VmHWM/ {print $2}' /proc/$lpid/status)
  row "summary, year, GET /api/v1/summary" "$http_year" "sqlite3 shell aggregate" "$sh_year" \
    "$(ratio "$http_year" "$sh_year")" "<= 1.5"
  row "peak RSS after the year summary (MiB)" "$((hwm_year / 1024))" "goal" 64 \
    "$(ratio $((hwm_year / 1024)) 64)" "<= 64 MiB"
fi
kill "$lpid" 2>/dev/null || true
wait "$lpid" 2>/dev/null || true
rm -f "$out/serve.db" "$out/serve.db-wal" "$out/serve.db-shm"

# --- how a closed week's cost grows with history -------------------------------------
for n in 10000 100000 1000000; do
  db="$out/db-s$seed-t$n.db"
  set -- $(inproc "$db" $NORMAL_FROM $((NORMAL_FROM + WK)) "$reps"); a=$1; at=$3
  set -- $(inproc "$db" $HOT_FROM $((HOT_FROM + WK)) 3); h=$1; ht=$3
  shw=$(shell_ms "$db" $NORMAL_FROM $((NORMAL_FROM + WK)) "$reps")
  row "closed week, db of $n tasks ($at in week)" "$a" "sqlite3 shell aggregate" "$shw" \
    "$(ratio "$a" "$shw")" ""
  row "  busy week of the same db ($ht in week)" "$h" "" "" "" ""
done
# --- load: slow clients and faulty upstreams (issue 18) --------------------------
. "$root/tests/bench/bench_load.sh"
mv "$res" "$out/results.txt"
echo "bench: table saved to $out/results.txt" >&2
