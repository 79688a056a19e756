#!/bin/sh
# e2e_sim_kubectl — kubectl (when installed) against spotsim over TLS, with a
# kubeconfig holding the server URL, a token and the generated CA: discovery,
# then `get jobs,pods,nodes -o json`. Skips with a message without kubectl.
set -eu
: "${SPOTSIM_BIN:?}" "${SPOTLEDGER_ROOT:?}"
if ! command -v kubectl >/dev/null 2>&1; then
  echo "e2e_sim_kubectl: kubectl not installed (apt-get install kubernetes-client); skipped"
  exit 0
fi
tmp=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { echo "e2e_sim_kubectl: $*" >&2; exit 1; }
printf 'kube-token\n' > "$tmp/token"
"$SPOTSIM_BIN" --scenario "$SPOTLEDGER_ROOT/tests/fixtures/sim/small.json" --speed 100000 \
  --listen 127.0.0.1:0 --tls-cert-out "$tmp/ca.pem" --kube-token-file "$tmp/token" \
  --until 90m > "$tmp/out" 2> "$tmp/log" &
pid=$!
i=0
while ! grep -q '^spotsim: http ' "$tmp/out" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 200 ] || fail "no start line"; sleep 0.05
done
https=$(awk '/^spotsim: http /{print $5}' "$tmp/out")
sh "$SPOTLEDGER_ROOT/tests/e2e/sim_kubeconfig.sh" "$https" "$tmp/ca.pem" kube-token > "$tmp/kubeconfig"
export KUBECONFIG="$tmp/kubeconfig" HOME="$tmp"
timeout 60 kubectl get jobs,pods,nodes -A -o json > "$tmp/all.json" 2> "$tmp/kubectl.err" \
  || { cat "$tmp/kubectl.err" >&2; fail "kubectl get failed"; }
jq -e 'any(.items[]; .kind == "Job") and any(.items[]; .kind == "Pod") and any(.items[]; .kind == "Node")' \
  "$tmp/all.json" >/dev/null || { head -c 300 "$tmp/all.json" >&2; fail "kubectl did not list jobs, pods and nodes"; }
timeout 60 kubectl get nodes -l doks.digitalocean.com/node-pool=gpu-spot -o name > "$tmp/spot" 2>/dev/null \
  || fail "kubectl label selector"
[ "$(wc -l < "$tmp/spot")" -eq 2 ] || fail "expected 2 spot nodes, got $(wc -l < "$tmp/spot")"
sed -i 's/token: kube-token/token: wrong/' "$tmp/kubeconfig"
if timeout 60 kubectl get pods -o json > /dev/null 2>&1; then fail "a wrong token was accepted"; fi
echo "e2e_sim_kubectl: ok"
