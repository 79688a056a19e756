#!/bin/sh
# e2e_conformance — spotsim seen by real clients, through a Spot reclaim
# (docs: src/sim/README.md, "What spotsim does not imitate"):
#   1. two --until values of one seed give the same object UIDs (a Poisson scenario);
#   2. every DigitalOcean response validates against DigitalOcean's published
#      schemas (../shared/fixtures/do/schemas; SKIP without them), rate-limit
#      headers, request ids, invoices in hours and cents (conformance_do.py);
#   3. the rate limit: ratelimit-limit requests pass in a minute, the next is a 429;
#   4. the official Kubernetes Python client lists nodes, pods, jobs, events and
#      PDBs and watches pods through the reclaim seeing every transition
#      (conformance_k8s.py), while `kubectl get pods -w` watches too;
#   5. kubectl: get nodes,pods,jobs,pdb -A -o wide shows real columns, describe
#      node, version.
# python3-kubernetes and python3-jsonschema are Debian packages (Makefile
# DEB_PACKAGES); the helpers run under /usr/bin/python3, which sees them.
# Loopback only, bounded waits; kills only the spotsims it started.
set -eu
: "${SPOTSIM_BIN:?}" "${SPOTLEDGER_ROOT:?}"
PY=/usr/bin/python3
here="$SPOTLEDGER_ROOT/tests/e2e"
small="$SPOTLEDGER_ROOT/tests/fixtures/sim/small.json"
demo="$SPOTLEDGER_ROOT/deploy/demo/scenario.json"
schemas="${SHARED_FIXTURES:-$SPOTLEDGER_ROOT/../shared/fixtures}/do/schemas"
tmp=$(mktemp -d)
pid=
pid2=
wpid=
ppid=
cleanup() {
  for p in $ppid $wpid $pid $pid2; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
errors=0
fail() { echo "e2e_conformance: FAIL: $*" >&2; errors=$((errors + 1)); }
die() { echo "e2e_conformance: $*" >&2; exit 1; }

# 1. UIDs stable across --until (the demo week has Poisson arrivals)
"$SPOTSIM_BIN" --scenario "$demo" --seed 9 --truth-only --until 1d --truth "$tmp/u1.json" 2>/dev/null
"$SPOTSIM_BIN" --scenario "$demo" --seed 9 --truth-only --until 2d --truth "$tmp/u2.json" 2>/dev/null
uids='[.nodes[] | "node/\(.name)/\(.uid)"] + [.attempts[] | "pod/\(.pod)/\(.uid)"] +
      [.tasks[] | "job/\(.job)/\(.job_uid)"] | unique | .[]'
jq -r "$uids" "$tmp/u1.json" > "$tmp/u1"
jq -r "$uids" "$tmp/u2.json" > "$tmp/u2"
[ -s "$tmp/u1" ] || die "no objects in the 1-day truth"
missing=$(comm -23 "$tmp/u1" "$tmp/u2" | wc -l)
[ "$missing" -eq 0 ] || fail "UIDs: $missing of $(wc -l < "$tmp/u1") objects of --until 1d have another name or UID with --until 2d (e.g. $(comm -23 "$tmp/u1" "$tmp/u2" | head -1))"

start_sim() { # out-file, extra flags...
  out=$1; shift
  "$SPOTSIM_BIN" --scenario "$small" --seed 7 --listen 127.0.0.1:0 --tls-cert-out "$tmp/ca.pem" \
    --kube-token-file "$tmp/token" --do-token-file "$tmp/token" "$@" > "$out" 2>> "$tmp/log" &
  last_pid=$!
  i=0
  while ! grep -q '^spotsim: http ' "$out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 400 ] || die "spotsim did not start: $(cat "$tmp/log")"; sleep 0.05
  done
}
printf 'conf-token\n' > "$tmp/token"

# 2 + 3. DigitalOcean: schemas, headers, invoices; then the rate limit on its own spotsim
start_sim "$tmp/out2" --speed 0 --until 12h --rate-limit 12
pid2=$last_pid
http2=$(awk '/^spotsim: http /{print $3}' "$tmp/out2")
n=0; limit=; status=200
while [ $n -lt 40 ]; do
  status=$(curl -s -o /dev/null -D "$tmp/h" -w '%{http_code}' -H 'Authorization: Bearer conf-token' \
    "http://$http2/v2/sizes")
  [ -z "$limit" ] && limit=$(awk -F': ' 'tolower($1)=="ratelimit-limit"{print $2+0}' "$tmp/h")
  [ "$status" = 429 ] && break
  n=$((n + 1))
done
[ "$status" = 429 ] || fail "rate limit: no 429 after 40 requests"
[ "$n" = "$limit" ] || fail "rate limit: ratelimit-limit says ${limit:-nothing}, the 429 came after $n requests"
# /sim/status counts them: the $n that passed and the one answered 429
curl -sf "http://$http2/sim/status" | jq -e --argjson n "$n" \
  '.do_requests == $n + 1 and .do_rate_limited == 1' >/dev/null ||
  fail "rate limit: /sim/status counts $(curl -sf "http://$http2/sim/status" | jq -c '[.do_requests, .do_rate_limited]'), want [$((n + 1)), 1]"
kill "$pid2" 2>/dev/null; wait "$pid2" 2>/dev/null || true; pid2=

# a spotsim through the reclaim at 2h: speed 1000 -> 2h after 7.2 s, --until 3h after 10.8 s;
# --hold keeps the clock at the start until the Python client's first request
start_sim "$tmp/out" --speed 1000 --until 3h --hold
pid=$last_pid
http=$(awk '/^spotsim: http /{print $3}' "$tmp/out")
https=$(awk '/^spotsim: http /{print $5}' "$tmp/out")
cluster=$(awk '/^spotsim: http /{print $7}' "$tmp/out")
sh "$SPOTLEDGER_ROOT/tests/e2e/sim_kubeconfig.sh" "$https" "$tmp/ca.pem" conf-token > "$tmp/kubeconfig"
export KUBECONFIG="$tmp/kubeconfig" HOME="$tmp"

# 4. the Python client watches through the reclaim (its first list starts the clock);
# kubectl get pods -w starts once that list is done
have_kubectl=1
command -v kubectl >/dev/null 2>&1 || have_kubectl=0
$PY "$here/conformance_k8s.py" "https://$https" "$tmp/ca.pem" conf-token batch 14 \
  "http://$http/sim/truth" "$tmp/listed" > "$tmp/k8s.out" 2>&1 &
ppid=$!
i=0
while [ ! -f "$tmp/listed" ] && kill -0 "$ppid" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 600 ] || break; sleep 0.05
done
if [ $have_kubectl = 1 ]; then
  timeout 14 kubectl get pods -w > "$tmp/w.out" 2> "$tmp/w.err" &
  wpid=$!
fi
prc=0; wait "$ppid" || prc=$?; ppid=
if [ $prc -ne 0 ]; then
  sed 's/^/  /' "$tmp/k8s.out" | head -80 >&2
  fail "the Kubernetes Python client (conformance_k8s.py)"
else
  tail -1 "$tmp/k8s.out"
fi
if [ $have_kubectl = 1 ]; then
  rc=0; wait "$wpid" || rc=$?; wpid=
  # timeout ends a healthy watch (124); anything else is kubectl giving up
  [ $rc -eq 124 ] || fail "kubectl get pods -w ended with $rc: $(head -c 300 "$tmp/w.err")"
  lines=$(grep -vc '^NAME' "$tmp/w.out" || true)
  [ "$lines" -gt 10 ] || fail "kubectl get pods -w printed $lines line(s) through the reclaim"
  grep -q ' Running ' "$tmp/w.out" || fail "kubectl get pods -w never showed a Running pod"
  grep -q ' Terminating \| Error \| Completed ' "$tmp/w.out" ||
    fail "kubectl get pods -w never showed a pod ending"
fi

# 2. DigitalOcean through Python after the reclaim (invoice items exist then)
if [ -d "$schemas" ]; then sdir=$schemas; else sdir=-; fi
if ! $PY "$here/conformance_do.py" "http://$http" conf-token "$sdir" "$cluster" > "$tmp/do.out" 2>&1; then
  sed 's/^/  /' "$tmp/do.out" | head -80 >&2
  fail "DigitalOcean responses (conformance_do.py)"
else
  grep '^SKIP' "$tmp/do.out" || true
  tail -1 "$tmp/do.out"
fi

# 6. /openapi/v2 and /openapi/v3 answer minimal but valid documents
auth='Authorization: Bearer conf-token'
doc=$(curl -sf --max-time 10 -H "$auth" "http://$http/openapi/v2" || true)
# (jq -e on empty input succeeds, hence the -n/input form)
printf '%s' "$doc" | jq -en 'input | .swagger == "2.0" and (.info.title | type) == "string" and
  (.paths | type) == "object"' >/dev/null 2>&1 || fail "/openapi/v2 is not a Swagger 2.0 document"
v3=$(curl -sf --max-time 10 -H "$auth" "http://$http/openapi/v3" |
  jq -r '.paths["api/v1"].serverRelativeURL' 2>/dev/null || true)
case "$v3" in
/openapi/v3/api/v1*)
  doc=$(curl -sf --max-time 10 -H "$auth" "http://$http$v3" || true)
  printf '%s' "$doc" | jq -en 'input | (.openapi | startswith("3.")) and (.paths | type) == "object"' \
    >/dev/null 2>&1 || fail "$v3 is not an OpenAPI 3 document";;
*) fail "/openapi/v3 does not list api/v1 ($v3)";;
esac

# 5. kubectl
if [ $have_kubectl = 0 ]; then
  echo "SKIP: kubectl not installed (apt-get install kubernetes-client); kubectl checks skipped"
else
  if timeout 60 kubectl get nodes,pods,jobs,pdb -A -o wide > "$tmp/wide" 2> "$tmp/wide.err"; then
    for col in 'INTERNAL-IP' 'KERNEL-VERSION' 'CONTAINER-RUNTIME' 'RESTARTS' 'NOMINATED NODE' \
               'COMPLETIONS' 'SELECTOR' 'MIN AVAILABLE' 'ALLOWED DISRUPTIONS'; do
      grep -q "$col" "$tmp/wide" || fail "kubectl get -o wide: no $col column"
    done
    grep -q ' Ready ' "$tmp/wide" || fail "kubectl get -o wide: no node STATUS Ready"
  else
    fail "kubectl get nodes,pods,jobs,pdb -A -o wide: $(head -c 300 "$tmp/wide.err")"
  fi
  node=$(timeout 60 kubectl get nodes -o name 2>/dev/null | head -1)
  if [ -z "$node" ]; then
    fail "kubectl get nodes -o name: nothing"
  elif ! timeout 60 kubectl describe "$node" > "$tmp/desc" 2> "$tmp/desc.err"; then
    fail "kubectl describe $node: $(head -c 300 "$tmp/desc.err")"
  else
    grep -q 'Non-terminated Pods' "$tmp/desc" || fail "kubectl describe node: no pod section"
    grep -q 'MemoryPressure' "$tmp/desc" || fail "kubectl describe node: no MemoryPressure condition"
  fi
  if timeout 60 kubectl version > "$tmp/ver" 2> "$tmp/ver.err"; then
    grep -q '^Server Version: v' "$tmp/ver" || fail "kubectl version: no server version"
  else
    fail "kubectl version: $(head -c 300 "$tmp/ver.err")"
  fi
fi

[ "$errors" -eq 0 ] || die "$errors check(s) failed"
echo "e2e_conformance: ok"
