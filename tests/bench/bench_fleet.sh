# bench_fleet.sh — the fleet rows of `make bench` (issue 22, docs/fleet.md);
# sourced by bench.sh (which defines row, verdict, kv, lo, ratio, ms, say, note,
# $tool, $out, $seed, $reps, $T0, $WK, $NORMAL_FROM, $ledger and, in a full
# run, $w: the single-cluster closed week).
# `make bench-fleet` (BENCH_ONLY=fleet) runs these rows alone.
#
#   - a closed week's fleet summary: BENCH_FLEET_CLUSTERS (20) clusters of
#     BENCH_FLEET_TASKS (50,000) tasks and tasks/50 nodes each in one database
#     (gen-fleet; with the defaults the same 1M tasks and 20,000 nodes as the
#     single-cluster main database, split in 20), 18,000 tasks in 2026-W20 over
#     the fleet as in the single-cluster week: calc_run + report_summary_json
#     in process, beside the single-cluster week goal (25 ms); then the
#     per-cluster summaries of aggregate=cluster (one calc per cluster);
#   - ingest per cluster: the 20k Jobs + 60k Pods of the ingest row written as
#     one more cluster into a copy of the fleet database, against the same
#     pages into an empty single-cluster database (goal: >= 0.8x its
#     throughput), in CPU time (wall times in the notes);
#   - the DigitalOcean budget: spotledger watching the fleet's clusters
#     (DigitalOcean ids alone) against spotsim playing all of them (its
#     DigitalOcean API limited to 250 a minute like DigitalOcean's), polling
#     every second: status.do_budget, the requests spotsim served in
#     BENCH_FLEET_DO_SECONDS (60) after a 5 s start (goal: <= 250 a minute) and
#     the 429s it answered (goal: 0), from /sim/status; then the pollers' pacers
#     (http_client, the shares the service reported) asking as fast as they may
#     for 3 hours of virtual time, all started together: the most requests in
#     any hour (goal: <= 5,000) and any minute (<= 250).
fleet_n=${BENCH_FLEET_CLUSTERS:-20}
fleet_t=${BENCH_FLEET_TASKS:-50000}
fleet_nodes=$((fleet_t / 50))
fleet_week=$((18000 / fleet_n)) # per cluster: 18,000 tasks in 2026-W20 over the fleet
fleet_db="$out/fleet-s$seed-c$fleet_n-t$fleet_t.db"
if [ ! -f "$fleet_db.done" ]; then
  say "generating the fleet database $fleet_db: $fleet_n clusters x $fleet_t tasks (about the time of a $((fleet_n * fleet_t))-task database)"
  rm -f "$fleet_db" "$fleet_db-wal" "$fleet_db-shm"
  _fa=$(ms)
  "$tool" gen-fleet "$fleet_db" "$fleet_n" "$fleet_t" "$fleet_nodes" "$seed" "$fleet_week"
  touch "$fleet_db.done"
  note "generated $fleet_db in $(( ($(ms) - _fa) / 1000 )) s"
fi
"$tool" migrate "$fleet_db"
cat "$fleet_db" >/dev/null

# --- a closed week of the fleet ----------------------------------------------------
_fw_from=$NORMAL_FROM
_fw_to=$((NORMAL_FROM + WK))
_ftasks=$(kv "$("$tool" summary "$fleet_db" $_fw_from $_fw_to 1)" tasks)
_f1=$(kv "$("$tool" summary "$fleet_db" $_fw_from $_fw_to "$reps")" summary_ms)
_f2=$(kv "$("$tool" summary "$fleet_db" $_fw_from $_fw_to "$reps")" summary_ms)
_f=$(lo "$_f1" "$_f2")
_single=${w:-}
if [ -z "$_single" ] && [ -f "$out/hist-s$seed-t1000000.db.done" ]; then
  _s1=$(kv "$("$tool" summary "$out/hist-s$seed-t1000000.db" $_fw_from $_fw_to "$reps")" summary_ms)
  _s2=$(kv "$("$tool" summary "$out/hist-s$seed-t1000000.db" $_fw_from $_fw_to "$reps")" summary_ms)
  _single=$(lo "$_s1" "$_s2")
fi
row "fleet: closed week W20, $fleet_n clusters ($_ftasks tasks)" "$_f1" "$_f2" "$_f" \
  "single cluster ${_single:--}" "<= 25 ms" "$(verdict "$_f" 25 le)"
_b1=$(kv "$("$tool" summary-by-cluster "$fleet_db" $_fw_from $_fw_to "$reps" "$fleet_n")" by_cluster_ms)
_b2=$(kv "$("$tool" summary-by-cluster "$fleet_db" $_fw_from $_fw_to "$reps" "$fleet_n")" by_cluster_ms)
_b=$(lo "$_b1" "$_b2")
row "  aggregate=cluster: $fleet_n summaries of that week" "$_b1" "$_b2" "$_b" \
  "fleet summary $_f" "" "$(awk -v b="$_b" -v n="$fleet_n" 'BEGIN { printf "%.2f ms a cluster", b / n }')"

# --- ingest as one more cluster of the fleet -------------------------------------------
_k8s="$out/k8s-s$seed-j20000-p60000" # bench.sh's ingest pages
if [ ! -f "$_k8s/.done" ]; then
  say "generating 20,000 Jobs and 60,000 Pods (pages of 500) in $_k8s"
  rm -rf "$_k8s"; mkdir -p "$_k8s"
  "$tool" gen-k8s "$_k8s" 20000 60000 500 "$seed"
  touch "$_k8s/.done"
fi
cat "$_k8s"/*.json >/dev/null
# CPU time (user + system) of the ingest: on the shared machine the wall time
# of the same run varies 2-3x with the other processes' load
for _r in 1 2; do
  _l=$("$tool" ingest "$_k8s" "$out/ingest.db")
  rm -f "$out/ingest.db" "$out/ingest.db-wal" "$out/ingest.db-shm"
  eval "_si$_r=$(kv "$_l" cpu_ms) _siw$_r=$(kv "$_l" ingest_ms)"
  cp "$fleet_db" "$out/fleet-ingest.db"
  rm -f "$out/fleet-ingest.db-wal" "$out/fleet-ingest.db-shm"
  cat "$out/fleet-ingest.db" >/dev/null
  _l=$("$tool" ingest "$_k8s" "$out/fleet-ingest.db" "c$fleet_n")
  rm -f "$out/fleet-ingest.db" "$out/fleet-ingest.db-wal" "$out/fleet-ingest.db-shm"
  eval "_fi$_r=$(kv "$_l" cpu_ms) _fiw$_r=$(kv "$_l" ingest_ms)"
  _items=$(kv "$_l" items)
done
_si=$(lo "$_si1" "$_si2")
_fi=$(lo "$_fi1" "$_fi2")
_tp=$(ratio "$_si" "$_fi") # throughput ratio: single-cluster time / fleet time
row "fleet: ingest $_items objects as cluster $((fleet_n + 1)), CPU ms" "$_fi1" "$_fi2" "$_fi" \
  "empty db $_si" ">= 0.8x thru" "${_tp}x: $(verdict "$_tp" 0.8 ge)"
row "  the writer: objects a CPU second into the fleet db" "" "" \
  "$(awk -v n="$_items" -v t="$_fi" 'BEGIN { printf "%.0f", n * 1000 / t }')" "" "" \
  "$(awk -v n="$_items" -v t="$_fi" -v c="$fleet_n" 'BEGIN { printf "%.0f/s a cluster if all %d write at once", n * 1000 / t / c, c }')"
note "fleet ingest wall times (ms): empty db $_siw1, $_siw2; fleet db $_fiw1, $_fiw2 (CPU: $_si1, $_si2; $_fi1, $_fi2)"
# the same history without the fleet: the single-cluster database of as many
# tasks (bench.sh's main one), written as its one cluster
_h1m="$out/hist-s$seed-t$((fleet_n * fleet_t)).db"
if [ -f "$_h1m.done" ]; then
  for _r in 1 2; do
    cp "$_h1m" "$out/single-ingest.db"
    rm -f "$out/single-ingest.db-wal" "$out/single-ingest.db-shm"
    cat "$out/single-ingest.db" >/dev/null
    _l=$("$tool" ingest "$_k8s" "$out/single-ingest.db" default)
    rm -f "$out/single-ingest.db" "$out/single-ingest.db-wal" "$out/single-ingest.db-shm"
    eval "_hi$_r=$(kv "$_l" cpu_ms)"
  done
  _hi=$(lo "$_hi1" "$_hi2")
  row "  the same into the single-cluster db of $((fleet_n * fleet_t)) tasks" "$_hi1" "$_hi2" "$_hi" \
    "fleet db $_fi" "" "fleet $(ratio "$_hi" "$_fi")x its throughput"
fi

# --- the DigitalOcean budget of one token over the fleet --------------------------------
_dos=${BENCH_FLEET_DO_SECONDS:-60}
_sc="$root/tests/fixtures/sim/small.json"
_fd="$out/fleet-do"
rm -rf "$_fd"; mkdir -p "$_fd"
printf 'bench-fleet-do-token\n' >"$_fd/dtok"
_also=
_ids=$(jq -r .cluster.id "$_sc")
_k=1
while [ $_k -lt "$fleet_n" ]; do
  _id=$(printf 'f1ee7%03d-0000-4000-8000-%012d' "$_k" "$_k")
  jq --arg id "$_id" --arg k "$_k" '.cluster = {"id": $id, "name": ("sim-c" + $k), "region": "tor1"}
      | .pools |= map(if .id then .id = ($id | sub("^f1ee7"; "0a0a7")) else . end)' "$_sc" >"$_fd/c$_k.json"
  _also="$_also --also-cluster $_fd/c$_k.json:$_fd/c$_k.truth"
  _ids="$_ids $_id"
  _k=$((_k + 1))
done
_started() { # PREFIX PATTERN: waits (30 s at most) for PATTERN in PREFIX.out
  _i=0
  while ! grep -q "$2" "$1.out" 2>/dev/null; do
    _i=$((_i + 1)); [ $_i -le 300 ] || { cat "$1.err" >&2; exit 1; }
    sleep 0.1
  done
}
_do_run() { # -> "requests_in_window rate_limited pollers per_poller_per_hour per_poller_per_minute"
  : >"$_fd/sim.out"
  # spotsim's DigitalOcean API limits like DigitalOcean's: 250 a minute, then 429
  "$root/build/spotsim" --scenario "$_sc" --speed 60 --no-tls --listen 127.0.0.1:0 \
    --rate-limit 250 --do-token-file "$_fd/dtok" $_also >"$_fd/sim.out" 2>"$_fd/sim.err" &
  _sp=$!
  pids="$pids $_sp"
  _started "$_fd/sim" '^spotsim: http '
  _sim="http://$(awk '/^spotsim: http /{print $3}' "$_fd/sim.out")"
  _c=
  _k=0
  for _id in $_ids; do _c="$_c --cluster c$(printf %02d $_k)=$_id"; _k=$((_k + 1)); done
  : >"$_fd/ledger.out"
  "$ledger" --listen 127.0.0.1:0 --db "$_fd/ledger.db" --log-level warn $_c --do-api-url "$_sim" \
    --do-token-file "$_fd/dtok" --poll-interval 1 --billing-interval 1 \
    >"$_fd/ledger.out" 2>"$_fd/ledger.err" &
  _lp=$!
  pids="$pids $_lp"
  _started "$_fd/ledger" 'listening on'
  _base="http://$(awk '/listening on /{print $4}' "$_fd/ledger.out")"
  sleep 5 # past the start: every poller running
  _a=$(curl -sf "$_sim/sim/status" | jq .do_requests)
  _t=$(ms)
  sleep "$_dos"
  _st=$(curl -sf "$_sim/sim/status")
  _t=$(( $(ms) - _t ))
  curl -sf "$_base/api/v1/status" >"$_fd/status.json"
  _bud=$(jq -r '.do_budget | "\(.pollers) \(.per_poller_per_hour) \(.per_poller_per_minute)"' "$_fd/status.json")
  kill "$_lp" "$_sp" 2>/dev/null || true
  wait "$_lp" "$_sp" 2>/dev/null || true
  rm -f "$_fd/ledger.db" "$_fd/ledger.db-wal" "$_fd/ledger.db-shm"
  # requests a minute over the measured window
  echo "$(awk -v n=$(( $(echo "$_st" | jq .do_requests) - _a )) -v t="$_t" 'BEGIN { printf "%.1f", n * 60000 / t }') $(echo "$_st" | jq .do_rate_limited) $_bud"
}
set -- $(_do_run); _dr1=$1; _dl1=$2
set -- $(_do_run); _dr2=$1; _dl2=$2; _pollers=$3; _pph=$4; _ppm=$5
_dr=$(hi "$_dr1" "$_dr2") # a limit: the higher of the two runs
row "fleet: DO requests a minute ($_pollers pollers, ${_dos} s)" "$_dr1" "$_dr2" "$_dr" \
  "share ${_pph}/h ${_ppm}/min" "<= 250/min" "$(verdict "$_dr" 250 le)"
_dl=$(hi "$_dl1" "$_dl2")
row "  of them answered 429 by spotsim's 250/min limit" "$_dl1" "$_dl2" "$_dl" "" "0" \
  "$(verdict "$_dl" 0 le)"
_v1=$("$tool" do-budget "$_pollers" "$_pph" "$_ppm" 3)
_v2=$("$tool" do-budget "$_pollers" "$_pph" "$_ppm" 3)
_vh=$(hi "$(kv "$_v1" max_per_hour)" "$(kv "$_v2" max_per_hour)")
_vm=$(hi "$(kv "$_v1" max_per_minute)" "$(kv "$_v2" max_per_minute)")
row "  pacers at full demand, 3 virtual hours: most in an hour" "$(kv "$_v1" max_per_hour)" \
  "$(kv "$_v2" max_per_hour)" "$_vh" "$_pollers x ${_pph}/h" "<= 5000/h" "$(verdict "$_vh" 5000 le)"
row "  the same, most in any minute" "$(kv "$_v1" max_per_minute)" "$(kv "$_v2" max_per_minute)" \
  "$_vm" "$_pollers x ${_ppm}/min" "<= 250/min" "$(verdict "$_vm" 250 le)"
note "fleet: one cluster's DigitalOcean poll made $(jq '[.clusters[].digitalocean.requests] | max' "$_fd/status.json") requests at most (status.clusters[].digitalocean.requests, the latest poll of each)"
note "fleet: $fleet_n clusters x $fleet_t tasks ($fleet_nodes nodes each) in $fleet_db ($(( $(stat -c %s "$fleet_db") / 1048576 )) MiB); knobs BENCH_FLEET_CLUSTERS, BENCH_FLEET_TASKS, BENCH_FLEET_DO_SECONDS"
