#!/bin/sh
# e2e_sim — spotsim as a process: determinism of the ground truth (same seed ->
# byte-identical, other seed -> different), serving over HTTP and HTTPS with the
# generated certificate, Bearer auth, simulated Date headers, --until and the
# truth file written when the clock gets there (equal to --truth-only's).
# POSIX sh, loopback only, bounded waits; kills only the spotsim it started.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_sim
sim_pid=
on_exit_stop sim_pid
scenario="$root/tests/fixtures/sim/small.json"

# 1. determinism
"$sim" --scenario "$scenario" --seed 5 --truth-only --truth "$dir/a.json" 2>/dev/null
"$sim" --scenario "$scenario" --seed 5 --truth-only --truth "$dir/b.json" 2>/dev/null
"$sim" --scenario "$scenario" --seed 6 --truth-only --truth "$dir/c.json" 2>/dev/null
cmp -s "$dir/a.json" "$dir/b.json" || fail "same seed, different truth"
cmp -s "$dir/a.json" "$dir/c.json" && fail "different seeds, same truth"
jq -e '(.oracle.configurations | length == 4) and (has("cost") | not)' "$dir/a.json" >/dev/null ||
  fail "no oracle summary, or the engine-run section is back"
# a bad scenario is refused with the field named
printf '{"start":"2026-11-09T00:00:00Z"}' > "$dir/bad.json"
if "$sim" --scenario "$dir/bad.json" --truth-only 2>"$dir/bad.err"; then fail "bad scenario accepted"; fi
grep -q duration "$dir/bad.err" || fail "bad scenario error does not name the field"

# 2. serve 12 simulated hours in about 2 s, until 10h; --hold starts the clock at the
# first Kubernetes request (the node list below sees the 4 nodes of the start)
printf 'sim-token\n' > "$dir/token"
"$sim" --scenario "$scenario" --seed 5 --speed 20000 --until 10h --hold --listen 127.0.0.1:0 \
  --tls-cert-out "$dir/ca.pem" --truth "$dir/served.json" --do-token-file "$dir/token" \
  --kube-token-file "$dir/token" > "$dir/out" 2> "$dir/log" &
sim_pid=$!
wait_sim "$dir/out" "$dir/log"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$http/v2/sizes")
[ "$code" = 401 ] || fail "no token: got $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H 'Authorization: Bearer nope' "http://$http/v2/sizes")
[ "$code" = 401 ] || fail "wrong token: got $code"
curl -sf --max-time 5 --cacert "$dir/ca.pem" -H 'Authorization: Bearer sim-token' \
  "https://$https/api/v1/nodes" | jq -e '.kind == "NodeList" and (.items | length) >= 4' >/dev/null \
  || fail "https node list"
curl -sf --max-time 5 --cacert "$dir/ca.pem" "https://localhost:${https##*:}/healthz" >/dev/null \
  || fail "certificate not valid for localhost"
i=0
while ! curl -sf --max-time 2 "http://$http/sim/status" | jq -e .done >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "the simulation did not reach --until"; sleep 0.1
done
i=0
while [ ! -f "$dir/served.json" ]; do
  i=$((i + 1)); [ $i -lt 100 ] || fail "no truth file"; sleep 0.1
done
date=$(curl -s -D - -o /dev/null --max-time 5 -H 'Authorization: Bearer sim-token' "http://$http/v2/account" | tr -d '\r' | sed -n 's/^Date: //p')
[ "$date" = "Mon, 09 Nov 2026 10:00:00 GMT" ] || fail "Date at --until is '$date'"
"$sim" --scenario "$scenario" --seed 5 --until 10h --truth-only --truth "$dir/d.json" 2>/dev/null
cmp -s "$dir/served.json" "$dir/d.json" || fail "served truth differs from --truth-only"
curl -sf --max-time 5 "http://$http/sim/truth" | cmp -s - "$dir/d.json" || fail "/sim/truth differs"
stop_pid "$sim_pid"; sim_pid=
echo "e2e_sim: ok"
