#!/bin/sh
# e2e_check — `spotledger check` against spotsim (README "Point it at your
# cluster"): exit 0 and "all good" on a good setup (with its pools, which one is
# Spot and why, and the database state); exit 1 and exactly one precise fix line
# for each planted problem: a DigitalOcean token without billing:read (spotsim
# --deny-scope), a service account that may not watch pods (--deny-verb, seen by
# SelfSubjectAccessReview), a wrong --cluster-id, an unreachable Kubernetes API,
# an unreachable DigitalOcean API; and a fleet (--cluster) where two of three
# clusters fail, each named in its own lines and fix.
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

# 7. a fleet (--cluster NAME=CONTEXT@ID, docs/fleet.md): east reaches the good
# spotsim, west the one whose service account may not watch pods, south the
# port nothing listens on. Every line names its cluster; west's and south's
# failures each give one fix naming the cluster and hide none of east's lines;
# the exit is 1. With east alone: all good, exit 0.
ctx() { # NAME SERVER CA: one cluster, user and context named NAME
  printf -- '- name: %s\n  cluster:\n    server: https://%s\n    certificate-authority: %s\n' "$1" "$2" "$3" >> "$tmp/fleet.clusters"
  printf -- '- name: %s\n  user:\n    token: check-kube-token\n' "$1" >> "$tmp/fleet.users"
  printf -- '- name: %s\n  context:\n    cluster: %s\n    user: %s\n' "$1" "$1" "$1" >> "$tmp/fleet.contexts"
}
: > "$tmp/fleet.clusters"; : > "$tmp/fleet.users"; : > "$tmp/fleet.contexts"
ctx east "$(awk '/^spotsim: http /{print $5}' "$tmp/good.out")" "$tmp/good.ca"
ctx west "$(awk '/^spotsim: http /{print $5}' "$tmp/noverb.out")" "$tmp/noverb.ca"
ctx south "$gone" "$tmp/good.ca"
{ printf 'apiVersion: v1\nkind: Config\nclusters:\n'; cat "$tmp/fleet.clusters"
  printf 'users:\n'; cat "$tmp/fleet.users"
  printf 'contexts:\n'; cat "$tmp/fleet.contexts"; printf 'current-context: east\n'; } > "$tmp/fleet.kubeconfig"
fleet_check() { # EXPECTED_RC CLUSTER...: check with --cluster NAME=NAME@ID for each
  want=$1; shift
  set --; for n in $fleet; do set -- "$@" --cluster "$n=$n@$cluster"; done
  rc=0
  env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST HOME="$tmp" DIGITALOCEAN_TOKEN=check-do-token \
    timeout 120 "$SPOTLEDGER_BIN" check --kubeconfig "$tmp/fleet.kubeconfig" \
    --do-api-url "http://$(awk '/^spotsim: http /{print $3}' "$tmp/good.out")" \
    --db "$tmp/none.db" "$@" > "$tmp/fleet.check" 2> "$tmp/fleet.check.err" || rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/fleet.check" >&2; fail "fleet $fleet: exit $rc, expected $want"; }
}
has() { grep -q "$1" "$tmp/fleet.check" || { cat "$tmp/fleet.check" >&2; fail "fleet $fleet: no line $1"; }; }
fleet="east west south"
fleet_check 1
has '^kubernetes .* ok *east: https://'
has '^rbac .* ok *east: list, watch on nodes, jobs, pods, events, poddisruptionbudgets'
has '^kubernetes .* ok *west: https://'
has '^rbac .*FAIL west: cannot watch pods'
has "^kubernetes .*FAIL south: https://$gone .*unreachable"
has "^cluster .* ok *east: sim-small ($cluster, .*from --cluster east)"
has "^cluster .* ok *west: sim-small ($cluster, "
has "^cluster .* ok *south: sim-small ($cluster, "
has '^pool .* ok *east: .*gpu-spot .*: Spot'
has '^scopes .* ok *kubernetes:read, sizes:read, billing:read'
[ "$(grep -c '^fix: ' "$tmp/fleet.check")" -eq 2 ] || { cat "$tmp/fleet.check" >&2; fail "fleet: not exactly two fix lines"; }
has "^fix: cluster west: grant the watcher's identity watch pods"
has "^fix: cluster south: the Kubernetes API at https://$gone is unreachable"
grep -q "check-do-token\|check-kube-token" "$tmp/fleet.check" "$tmp/fleet.check.err" && fail "fleet: a token was printed"
fleet="east"
fleet_check 0
has '^all good'
has '^rbac .* ok *east: list, watch'
echo "e2e_check: ok"
