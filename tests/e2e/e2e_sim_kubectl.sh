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
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_sim_kubectl
sim_pid=
on_exit_stop sim_pid
printf 'kube-token\n' > "$dir/token"
"$sim" --scenario "$root/tests/fixtures/sim/small.json" --speed 100000 \
  --listen 127.0.0.1:0 --tls-cert-out "$dir/ca.pem" --kube-token-file "$dir/token" \
  --until 90m > "$dir/out" 2> "$dir/log" &
sim_pid=$!
wait_sim "$dir/out" "$dir/log"
sh "$root/tests/e2e/sim_kubeconfig.sh" "$https" "$dir/ca.pem" kube-token > "$dir/kubeconfig"
export KUBECONFIG="$dir/kubeconfig" HOME="$dir"
timeout 60 kubectl get jobs,pods,nodes -A -o json > "$dir/all.json" 2> "$dir/kubectl.err" \
  || { cat "$dir/kubectl.err" >&2; fail "kubectl get failed"; }
jq -e 'any(.items[]; .kind == "Job") and any(.items[]; .kind == "Pod") and any(.items[]; .kind == "Node")' \
  "$dir/all.json" >/dev/null || { head -c 300 "$dir/all.json" >&2; fail "kubectl did not list jobs, pods and nodes"; }
timeout 60 kubectl get nodes -l doks.digitalocean.com/node-pool=gpu-spot -o name > "$dir/spot" 2>/dev/null \
  || fail "kubectl label selector"
[ "$(wc -l < "$dir/spot")" -eq 2 ] || fail "expected 2 spot nodes, got $(wc -l < "$dir/spot")"
sed -i 's/token: kube-token/token: wrong/' "$dir/kubeconfig"
if timeout 60 kubectl get pods -o json > /dev/null 2>&1; then fail "a wrong token was accepted"; fi
echo "e2e_sim_kubectl: ok"
