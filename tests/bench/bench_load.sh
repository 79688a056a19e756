# bench_load — the load section of make bench (issue 18), sourced by bench.sh
# after its other sections (uses its row, ratio, pids, out, res, root, ledger,
# wrk_args; tests/e2e/stack.sh's waits, with a fail() that ends the run). Standalone:
# sh tests/bench/bench_load.sh (prints the rows only).
#
# spotledger polls spotsim (small.json at 1440x, every fault spotsim injects:
# 20 % 5xx, 10 % 429, 5 % truncated bodies, dropped watches, 410s, duplicate
# events) while wrk hammers the cached summary of the scenario's closed window
# with 64 connections; then the same wrk run while 500 slow clients (100 from
# each of 127.0.0.2-.6, under the per-client cap) hold half-sent requests,
# trickling a byte a second and reconnecting when the receive deadline cuts
# them. Reported beside each other: requests/s, p99, errors (non-2xx and socket
# errors), RSS. Goal: p99 within 2x and no errors.
if [ -z "${res:-}" ]; then # standalone
  set -eu
  root=$(cd "$(dirname "$0")/../.." && pwd)
  cd "$root"
  out=build/bench
  mkdir -p "$out"
  res="$out/load.txt"
  : >"$res"
  ledger=$root/build/spotledger
  wrk_args=${WRK_ARGS:--t2 -c64 -d10s}
  pids=
  trap 'for p in $pids; do kill "$p" 2>/dev/null || true; done' EXIT
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
  row() { printf '%-44s %14s  %-30s %14s  %7s  %s\n' "$1" "$2" "$3" "$4" "$5" "$6" | tee -a "$res"; }
fi
sim=$root/build/spotsim
ld="$out/load"
fail() { echo "bench: load: $*" >&2; exit 1; }
. "$root/tests/e2e/stack.sh"
rm -rf "$ld"; mkdir -p "$ld"
echo "bench: load: spotsim with faults, spotledger polling it every second" >&2
"$sim" --scenario "$root/tests/fixtures/sim/small.json" --seed 7 --speed 1440 --listen 127.0.0.1:0 \
  --tls-cert-out "$ld/ca.pem" --truth "$ld/truth.json" --rate-limit 0 --log-level error \
  --fault-5xx 0.2 --fault-429 0.1 --fault-truncate 0.05 --fault-watch-drop 0.05 \
  --fault-watch-410 0.05 --fault-watch-dup 0.1 >"$ld/sim.out" 2>"$ld/sim.err" &
spid=$!
pids="$pids $spid"
wait_sim "$ld/sim.out" "$ld/sim.err"
"$ledger" --listen 127.0.0.1:0 --db "$ld/ledger.db" --do-api-url "http://$http" \
  --cluster-id "$cluster" --kube-api-url "https://$https" --kube-ca-file "$ld/ca.pem" \
  --poll-interval 1 --billing-interval 2 --log-level error >"$ld/ledger.out" 2>"$ld/ledger.err" &
lpid=$!
pids="$pids $lpid"
wait_ledger "$ld/ledger.out" "$ld/ledger.err"
lport=${base##*:}
wait_files 120 "$ld/truth.json"
url="http://127.0.0.1:$lport/api/v1/summary?window=$(jq -r .start "$ld/truth.json"),$(jq -r .until "$ld/truth.json")"
i=0
until curl -sf -o /dev/null "$url"; do # computed once, then cached
  i=$((i + 1)); [ $i -le 100 ] || { echo "bench: load: no summary" >&2; exit 1; }
  sleep 0.1
done

load_wrk() { # -> "req/s p99_ms errors"
  wrk $wrk_args --latency "$url" 2>&1 | awk '
    /Requests\/sec:/ {rps = $2}
    /^ +99%/ {p = $2; if (p ~ /us$/) {sub(/us$/, "", p); p /= 1000} else if (p ~ /ms$/) sub(/ms$/, "", p);
              else if (p ~ /s$/) {sub(/s$/, "", p); p *= 1000}; p99 = p}
    /Non-2xx or 3xx responses:/ {err += $NF}
    /Socket errors:/ {gsub(/,/, ""); err += $4 + $6 + $8 + $10}
    END {printf "%s %s %d\n", rps + 0, p99 + 0, err}'
}
rss_mib() { awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$lpid/status"; }

set -- $(load_wrk); q_rps=$1; q_p99=$2; q_err=$3; q_rss=$(rss_mib)

# 500 slow clients for the length of the wrk run (plus a margin), reconnecting when cut
secs=$(echo "$wrk_args" | sed -n 's/.*-d *\([0-9]*\)s.*/\1/p'); secs=${secs:-10}
python3 - "$lport" $((secs + 3)) >"$ld/slow.out" 2>&1 <<'EOF' &
import resource, socket, sys, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < 700:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(700, hard), hard))
def open_one(src):
    s = socket.socket()
    s.bind((src, 0))
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    return [s, src, False]
clients = [open_one("127.0.0.%d" % (2 + i // 100)) for i in range(500)]
end, opened, cut = time.monotonic() + secs, 500, 0
while time.monotonic() < end:
    for c in clients:
        try:
            c[0].send(b"X-Trickle: a\r\n" if c[2] else b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            c[2] = True
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:  # cut by the deadline or refused: open another
            c[0].close()
            c[:] = open_one(c[1])
            opened += 1
            cut += 1
    time.sleep(1.0)
print("slow clients: %d connections opened, %d cut and reopened" % (opened, cut))
EOF
slowpid=$!
pids="$pids $slowpid"
sleep 2 # let them connect and start trickling
set -- $(load_wrk); s_rps=$1; s_p99=$2; s_err=$3; s_rss=$(rss_mib)
wait "$slowpid" 2>/dev/null || true
slow=$(cat "$ld/slow.out")

row "load: cached summary req/s, 500 slow clients" "$s_rps" "same without slow clients" "$q_rps" \
  "$(ratio "$s_rps" "$q_rps")" ""
row "load: cached summary p99 ms, slow clients" "$s_p99" "same without slow clients" "$q_p99" \
  "$(ratio "$s_p99" "$q_p99")" "<= 2"
row "load: errors (non-2xx + socket), slow clients" "$s_err" "same without slow clients" "$q_err" \
  "" "0"
row "load: RSS MiB after wrk, slow clients" "$s_rss" "same without slow clients" "$q_rss" \
  "$(ratio "$s_rss" "$q_rss")" ""
echo "bench: load: $slow; pollers against spotsim with faults throughout" | tee -a "$res" >&2
kill "$lpid" "$spid" 2>/dev/null || true
wait "$lpid" 2>/dev/null || true
