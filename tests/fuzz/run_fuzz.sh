#!/bin/sh
# Runs every libFuzzer harness in build/fuzz/ for SECONDS each (make fuzz: 60,
# make fuzz-smoke: 12). Seed corpora come from tests/fixtures/ (with the harness's
# selector byte in front where it has one); the growing corpus is kept in
# build/fuzz/corpus/<harness>/ across runs, crashes go to build/fuzz/findings/.
# Prints one line per harness (executions, corpus, findings) and a total; exits 1
# when any harness found a crash. Usage: tests/fuzz/run_fuzz.sh SECONDS
set -u
secs=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
out="$root/build/fuzz"
fx="$root/tests/fixtures"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# seed NAME SELECTOR_BYTE_OCTAL FILE...: copies files into the seed dir with a prefix byte
seed() {
  name=$1; sel=$2; shift 2
  d="$out/seeds/$name"; mkdir -p "$d"
  for f in "$@"; do
    [ -f "$f" ] || continue
    if [ -n "$sel" ]; then
      { printf "\\$sel"; cat "$f"; } >"$d/$sel-$(basename "$f")"
    else
      cp "$f" "$d/"
    fi
  done
}
rm -rf "$out/seeds"
# do_api: 0 sizes 1 cluster 2 pools 3 pool 4 error 5 invoices 6 items 7 billing 8 balance
seed fuzz_do_api 000 "$fx"/do/sizes*.json
seed fuzz_do_api 001 "$fx"/do/cluster.json
seed fuzz_do_api 002 "$fx"/do/pools*.json
seed fuzz_do_api 004 "$fx"/do/html_200.html
seed fuzz_do_api 005 "$fx"/do/invoices*.json
seed fuzz_do_api 006 "$fx"/do/invoice_items*.json
seed fuzz_do_api 007 "$fx"/do/billing_history.json
seed fuzz_do_api 010 "$fx"/do/balance*.json
# k8s_api: low 3 bits parser (0 object, 2 list, 4 watch, 6 status), bits 3-4 kind
# (0 job, 1 pod, 2 node, 3 event)
seed fuzz_k8s_api 002 "$fx"/k8s/JobList.json
seed fuzz_k8s_api 012 "$fx"/k8s/PodList.json
seed fuzz_k8s_api 022 "$fx"/k8s/NodeList.json
seed fuzz_k8s_api 032 "$fx"/k8s/EventList.json
seed fuzz_k8s_api 000 "$fx"/advice/job-fallback.json
sh_up=${SHARED_FIXTURES:-$root/../shared/fixtures}/k8s/upstream
seed fuzz_k8s_api 000 "$sh_up"/batch.v1.Job.json
seed fuzz_k8s_api 010 "$sh_up"/core.v1.Pod.json
seed fuzz_k8s_api 020 "$sh_up"/core.v1.Node.json
seed fuzz_k8s_api 030 "$sh_up"/core.v1.Event.json "$sh_up"/events.k8s.io.v1.Event.json
d="$out/seeds/fuzz_k8s_api"; i=0
while IFS= read -r line; do
  i=$((i + 1)); { printf '\014'; printf '%s' "$line"; } >"$d/watch-$i"
done <"$fx/k8s/pods-watch.ndjson"
printf '\006{"kind":"Status","code":410,"reason":"Expired","message":"too old"}' >"$d/status"
printf '\0073900m' >"$d/qty"
d="$out/seeds/fuzz_task_report"; mkdir -p "$d"
printf '{"work_seconds":3560,"restore_seconds":120,"checkpoint_seconds":30}' >"$d/ok"
printf 'done: {"work_seconds":"12.5"} bye' >"$d/text"
printf '{"work_seconds":-1}' >"$d/neg"
d="$out/seeds/fuzz_window"; mkdir -p "$d"
for w in 7d 24h lastweek 2026-W48 2026-11 today 'week' \
  '2026-11-09T00:00:00Z,2026-11-16T00:00:00Z' 'window=7d&configuration=spot' \
  'from=2026-11-01T00:00:00Z&to=2026-11-08T00:00:00+02:00' 'x=1&x=2'; do
  printf '%s' "$w" >"$d/$(printf '%s' "$w" | cksum | cut -d' ' -f1)"
done
printf '\0002026-11-01T00:00:00Z\0002026-11-02T00:00:00Z' >"$d/fromto"
d="$out/seeds/fuzz_csv"; mkdir -p "$d"
printf 'plain\000=HYPERLINK("x")\000a,b\000line\r\nbreak\000"q"\000\377bad\000-1.5' >"$d/mix"

total=0; crashes=0; summary=""
for bin in "$out"/fuzz_*; do
  [ -x "$bin" ] || continue
  case "$bin" in *.o|*.d) continue;; esac
  name=$(basename "$bin")
  corpus="$out/corpus/$name"; findings="$out/findings/$name"
  mkdir -p "$corpus" "$findings" "$out/seeds/$name"
  log="$out/$name.log"
  "$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "$out/seeds/$name" \
    >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  execs=${execs:-0}
  cov=$(grep -ao 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  n=$(ls "$corpus" | wc -l)
  found=$(ls "$findings" | wc -l)
  total=$((total + execs))
  status=ok
  if [ "$rc" -ne 0 ]; then
    status="CRASH (see $log, $findings)"; crashes=$((crashes + 1))
    grep -a -m 3 -E 'ERROR|invariant broken|runtime error' "$log" | sed 's/^/    /'
  fi
  printf 'fuzz: %-18s %4ss %10s execs  cov %5s  corpus %5s  findings %s  %s\n' \
    "$name" "$secs" "$execs" "${cov:-?}" "$n" "$found" "$status"
done
echo "fuzz: $total executions in total, $crashes harness(es) crashed"
[ "$crashes" -eq 0 ]
