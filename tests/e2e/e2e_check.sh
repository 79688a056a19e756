#!/bin/sh
# e2e_check — `spotledger check` against spotsim (README "Point it at your
# cluster"): exit 0 and "all good" on a good setup (with its pools, which one is
# Spot and why, and the database state); exit 1 and exactly one precise fix line
# for each planted problem: a DigitalOcean token without billing:read (spotsim
# --deny-scope), a service account that may not watch pods (--deny-verb, seen by
# SelfSubjectAccessReview), a wrong --cluster-id, an unreachable Kubernetes API,
# an unreachable DigitalOcean API.
# POSIX sh, loopback only, bounded polls; kills only the processes it started.
set -eu
: "${SPOTLEDGER_BIN:?}" "${SPOTSIM_BIN:?}" "${SPOTLEDGER_ROOT:?}"
tmp=$(mktemp -d)
pids=
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { echo "e2e_check: $*" >&2; exit 1; }
printf 'check-kube-token\n' > "$tmp/ktok"
printf 'check-do-token\n' > "$tmp/dtok"

# start_sim NAME EXTRA...: a spotsim at real speed; sets $NAME_http $NAME_https
start_sim() {
  n=$1; shift
  "$SPOTSIM_BIN" --scenario "$SPOTLEDGER_ROOT/tests/fixtures/sim/small.json" --speed 1 \
    --listen 127.0.0.1:0 --tls-cert-out "$tmp/$n.ca" --kube-token-file "$tmp/ktok" \
    --do-token-file "$tmp/dtok" "$@" > "$tmp/$n.out" 2> "$tmp/$n.log" &
  pids="$pids $!"
  i=0
  while ! grep -q '^spotsim: http ' "$tmp/$n.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 200 ] || fail "spotsim $n did not start"; sleep 0.05
  done
}
start_sim good
start_sim noscope --deny-scope billing:read
start_sim noverb --deny-verb watch:pods
cluster=$(awk '/^spotsim: http /{print $7}' "$tmp/good.out")

# kubeconfig NAME [SERVER]: a kubeconfig for spotsim NAME (static token, CA file)
kubeconfig() {
  server=${2:-$(awk '/^spotsim: http /{print $5}' "$tmp/$1.out")}
  sh "$SPOTLEDGER_ROOT/tests/e2e/sim_kubeconfig.sh" "$server" "$tmp/$1.ca" check-kube-token \
    > "$tmp/$1.kubeconfig"
}
# check NAME EXPECTED_RC [FLAGS...]: runs check against spotsim NAME into $tmp/NAME.check
check() {
  n=$1; want=$2; shift 2
  rc=0
  env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME="$tmp" DIGITALOCEAN_TOKEN=check-do-token \
    timeout 120 "$SPOTLEDGER_BIN" check --kubeconfig "$tmp/$n.kubeconfig" \
    --do-api-url "http://$(awk '/^spotsim: http /{print $3}' "$tmp/$n.out")" \
    --db "$tmp/none.db" "$@" > "$tmp/$n.check" 2> "$tmp/$n.check.err" || rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/$n.check" >&2; fail "$n: exit $rc, expected $want"; }
}
# one_fix NAME PATTERN: exactly one fix line, and it matches PATTERN
one_fix() {
  [ "$(grep -c '^fix: ' "$tmp/$1.check")" -eq 1 ] || { cat "$tmp/$1.check" >&2; fail "$1: not exactly one fix line"; }
  grep -q "^fix: .*$2" "$tmp/$1.check" || { cat "$tmp/$1.check" >&2; fail "$1: the fix line does not say: $2"; }
}

# 1. good setup
kubeconfig good
check good 0 --cluster-id "$cluster"
grep -q '^all good' "$tmp/good.check" || fail "good: no 'all good'"
grep -q '^rbac .* ok .*list, watch on nodes, jobs, pods, events, poddisruptionbudgets' "$tmp/good.check" \
  || fail "good: RBAC line"
grep -q '^scopes .* ok .*kubernetes:read, sizes:read, billing:read' "$tmp/good.check" || fail "good: scopes"
grep -q "^pool .*gpu-spot .*: Spot, its size slug ends in -spot" "$tmp/good.check" \
  || { cat "$tmp/good.check" >&2; fail "good: the Spot pool and why"; }
grep -q "^pool .*gpu-ondemand .*: On-Demand" "$tmp/good.check" || fail "good: the On-Demand pool"
grep -q "^database .* ok .*does not exist yet" "$tmp/good.check" || fail "good: database state"
grep -q "check-do-token\|check-kube-token" "$tmp/good.check" "$tmp/good.check.err" && fail "a token was printed"

# 2. the token lacks billing:read
kubeconfig noscope
check noscope 1 --cluster-id "$cluster"
one_fix noscope "lacks billing:read: create a custom-scoped token"

# 3. the service account may not watch pods
kubeconfig noverb
check noverb 1 --cluster-id "$cluster"
one_fix noverb "grant the watcher's identity watch pods"
grep -q '^rbac .*FAIL cannot watch pods' "$tmp/noverb.check" || fail "noverb: the RBAC line"

# 4. a wrong cluster id: the fix names the account's cluster
check good 1 --cluster-id 00000000-0000-4000-8000-000000000000
one_fix good "cluster '00000000-0000-4000-8000-000000000000' (from --cluster-id) is not one of this account's clusters; pass --cluster-id with one of: sim-small ($cluster, "

# 5. the Kubernetes API is unreachable (a port nothing listens on: spotsim's, after it stopped)
start_sim gone
gone=$(awk '/^spotsim: http /{print $5}' "$tmp/gone.out")
last=${pids##* }
kill "$last"; wait "$last" 2>/dev/null || true
pids=${pids% *}
kubeconfig good "$gone"
check good 1 --cluster-id "$cluster"
one_fix good "the Kubernetes API at https://$gone is unreachable"

# 6. the DigitalOcean API is unreachable
kubeconfig good
rc=0
env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME="$tmp" DIGITALOCEAN_TOKEN=check-do-token \
  timeout 120 "$SPOTLEDGER_BIN" check --kubeconfig "$tmp/good.kubeconfig" \
  --do-api-url "http://$gone" --db "$tmp/none.db" --cluster-id "$cluster" > "$tmp/dogone.check" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "dogone: exit $rc"
one_fix dogone "the DigitalOcean API at http://$gone is unreachable"
echo "e2e_check: ok"
