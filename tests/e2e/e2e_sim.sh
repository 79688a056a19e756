#!/bin/sh
# e2e_sim — spotsim as a process: determinism of the ground truth (same seed ->
# byte-identical, other seed -> different), serving over HTTP and HTTPS with the
# generated certificate, Bearer auth, simulated Date headers, --until and the
# truth file written when the clock gets there (equal to --truth-only's).
# POSIX sh, loopback only, bounded waits; kills only the spotsim it started.
set -eu
: "${SPOTSIM_BIN:?}" "${SPOTLEDGER_ROOT:?}"
scenario="$SPOTLEDGER_ROOT/tests/fixtures/sim/small.json"
tmp=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { echo "e2e_sim: $*" >&2; exit 1; }

# 1. determinism
"$SPOTSIM_BIN" --scenario "$scenario" --seed 5 --truth-only --truth "$tmp/a.json" 2>/dev/null
"$SPOTSIM_BIN" --scenario "$scenario" --seed 5 --truth-only --truth "$tmp/b.json" 2>/dev/null
"$SPOTSIM_BIN" --scenario "$scenario" --seed 6 --truth-only --truth "$tmp/c.json" 2>/dev/null
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "same seed, different truth"
cmp -s "$tmp/a.json" "$tmp/c.json" && fail "different seeds, same truth"
jq -e '(.oracle.configurations | length == 4) and (has("cost") | not)' "$tmp/a.json" >/dev/null ||
  fail "no oracle summary, or the engine-run section is back"
# a bad scenario is refused with the field named
printf '{"start":"2026-11-09T00:00:00Z"}' > "$tmp/bad.json"
if "$SPOTSIM_BIN" --scenario "$tmp/bad.json" --truth-only 2>"$tmp/bad.err"; then fail "bad scenario accepted"; fi
grep -q duration "$tmp/bad.err" || fail "bad scenario error does not name the field"

# 2. serve 12 simulated hours in about 2 s, until 10h; --hold starts the clock at the
# first Kubernetes request (the node list below sees the 4 nodes of the start)
printf 'sim-token\n' > "$tmp/token"
"$SPOTSIM_BIN" --scenario "$scenario" --seed 5 --speed 20000 --until 10h --hold --listen 127.0.0.1:0 \
  --tls-cert-out "$tmp/ca.pem" --truth "$tmp/served.json" --do-token-file "$tmp/token" \
  --kube-token-file "$tmp/token" > "$tmp/out" 2> "$tmp/log" &
pid=$!
i=0
while ! grep -q '^spotsim: http ' "$tmp/out" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 200 ] || fail "no start line"; sleep 0.05
done
http=$(awk '/^spotsim: http /{print $3}' "$tmp/out")
https=$(awk '/^spotsim: http /{print $5}' "$tmp/out")
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$http/v2/sizes")
[ "$code" = 401 ] || fail "no token: got $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H 'Authorization: Bearer nope' "http://$http/v2/sizes")
[ "$code" = 401 ] || fail "wrong token: got $code"
curl -sf --max-time 5 --cacert "$tmp/ca.pem" -H 'Authorization: Bearer sim-token' \
  "https://$https/api/v1/nodes" | jq -e '.kind == "NodeList" and (.items | length) >= 4' >/dev/null \
  || fail "https node list"
curl -sf --max-time 5 --cacert "$tmp/ca.pem" "https://localhost:${https##*:}/healthz" >/dev/null \
  || fail "certificate not valid for localhost"
i=0
while ! curl -sf --max-time 2 "http://$http/sim/status" | jq -e .done >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "the simulation did not reach --until"; sleep 0.1
done
i=0
while [ ! -f "$tmp/served.json" ]; do
  i=$((i + 1)); [ $i -lt 100 ] || fail "no truth file"; sleep 0.1
done
date=$(curl -s -D - -o /dev/null --max-time 5 -H 'Authorization: Bearer sim-token' "http://$http/v2/account" | tr -d '\r' | sed -n 's/^Date: //p')
[ "$date" = "Mon, 09 Nov 2026 10:00:00 GMT" ] || fail "Date at --until is '$date'"
"$SPOTSIM_BIN" --scenario "$scenario" --seed 5 --until 10h --truth-only --truth "$tmp/d.json" 2>/dev/null
cmp -s "$tmp/served.json" "$tmp/d.json" || fail "served truth differs from --truth-only"
curl -sf --max-time 5 "http://$http/sim/truth" | cmp -s - "$tmp/d.json" || fail "/sim/truth differs"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
echo "e2e_sim: ok"
