#!/bin/sh
# e2e_kubeconfig — issue 19's acceptance: with only a kubeconfig whose user is an
# exec credential plugin (a script standing in for `doctl kubernetes cluster
# kubeconfig exec-credential`, printing an ExecCredential that expires after 3 s)
# and a doctl config file (token under auth-contexts), spotledger reaches spotsim
# over TLS (CA from certificate-authority-data), re-runs the plugin as each
# credential expires, keeps ingesting, and the API shows data. Also: without
# --cluster-id it stops naming the account's cluster; a plugin that fails stops
# start-up with its message. The tokens never reach the log.
# POSIX sh, loopback only, bounded polls; kills only the processes it started.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_kubeconfig svc.log
sim_pid=; svc_pid=
on_exit_stop svc_pid sim_pid

printf 'kube-e2e-token-5d1c\n' > "$dir/ktok"
printf 'do-e2e-token-77ab\n' > "$dir/dtok"
# 12 simulated hours in ~30 s: ingest goes on across several credential expiries
"$sim" --scenario "$root/tests/fixtures/sim/small.json" --speed 1500 --hold \
  --listen 127.0.0.1:0 --tls-cert-out "$dir/ca.pem" --kube-token-file "$dir/ktok" \
  --do-token-file "$dir/dtok" > "$dir/sim.out" 2> "$dir/sim.log" &
sim_pid=$!
wait_sim "$dir/sim.out" "$dir/sim.log"
[ -n "$cluster" ] || fail "no cluster id on spotsim's start line"

# the stand-in for doctl: counts its runs, prints a token valid for 3 s
mkdir "$dir/bin"
cat > "$dir/bin/fake-doctl" <<'PLUGIN'
#!/bin/sh
[ "$1 $2 $3 $4" = "kubernetes cluster kubeconfig exec-credential" ] || { echo "unexpected args: $*" >&2; exit 2; }
n=$(cat "$STATE_DIR/runs" 2>/dev/null || echo 0); echo $((n + 1)) > "$STATE_DIR/runs"
exp=$(date -u -d "@$(($(date +%s) + 3))" +%Y-%m-%dT%H:%M:%SZ)
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{},"status":{"expirationTimestamp":"%s","token":"%s"}}\n' "$exp" "$(cat "$STATE_DIR/ktok")"
PLUGIN
chmod 700 "$dir/bin/fake-doctl"
cat > "$dir/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: $(base64 -w0 "$dir/ca.pem")
    server: https://$https
  name: do-tor1-sim
contexts:
- context:
    cluster: do-tor1-sim
    user: do-tor1-sim-admin
  name: do-tor1-sim
current-context: do-tor1-sim
users:
- name: do-tor1-sim-admin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args: [kubernetes, cluster, kubeconfig, exec-credential, --version=v1beta1, --context=default, $cluster]
      command: fake-doctl
      env:
      - {name: STATE_DIR, value: $dir}
      interactiveMode: IfAvailable
      provideClusterInfo: false
KC
mkdir -p "$dir/home/.config/doctl"
printf 'access-token: wrong-default\ncontext: sim\nauth-contexts:\n  sim: %s\n' "$(cat "$dir/dtok")" \
  > "$dir/home/.config/doctl/config.yaml"
# only the kubeconfig and doctl's config: no token variables, no --kube-* flags.
# (the positional parameters, given to `env`, which execs the command: $! is then
# spotledger's own pid, not a subshell's, and the cleanup stops it)
set -- -u DIGITALOCEAN_TOKEN -u DIGITALOCEAN_ACCESS_TOKEN -u DIGITALOCEAN_CONTEXT \
  -u KUBERNETES_SERVICE_HOST -u XDG_CONFIG_HOME \
  HOME="$dir/home" KUBECONFIG="$dir/kubeconfig" PATH="$dir/bin:$PATH"

# 1. no --cluster-id and a server URL that is not DOKS's: stop, naming the cluster
if env "$@" timeout 60 "$ledger" --do-api-url "http://$http" --db "$dir/a.db" \
    --listen 127.0.0.1:0 > /dev/null 2> "$dir/nocluster.err"; then
  fail "started without a cluster id"
fi
grep -q "no --cluster-id; pass one of this account's clusters: .*($cluster, " "$dir/nocluster.err" \
  || { cat "$dir/nocluster.err" >&2; fail "the missing cluster id message does not name the cluster"; }

# 2. the service with a plugin whose tokens expire every 3 s
rm -f "$dir/runs"
env "$@" "$ledger" --do-api-url "http://$http" --cluster-id "$cluster" --db "$dir/s.db" \
  --listen 127.0.0.1:0 --poll-interval 2 > "$dir/svc.out" 2> "$dir/svc.log" &
svc_pid=$!
wait_ledger "$dir/svc.out" "$dir/svc.log"
grep -q "DigitalOcean token from doctl config '$dir/home/.config/doctl/config.yaml' context 'sim'" \
  "$dir/svc.log" || fail "the log does not name the token's source"
grep -q "exec plugin credentials" "$dir/svc.log" || fail "the log does not say the plugin is used"
# ingest before the first expiry...
i=0
until curl -sf --max-time 5 "$base/api/v1/status" | jq -e '.sources[] | select(.source == "k8s") | .status == "ok"' >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "no Kubernetes list within 30 s"; sleep 0.1
done
# ...then wait for two more plugin runs (two expiries) and newer data after them
i=0
until [ "$(cat "$dir/runs" 2>/dev/null || echo 0)" -ge 3 ]; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "the plugin ran $(cat "$dir/runs") time(s) in 30 s (expected >= 3)"; sleep 0.1
done
i=0
until latest=$(curl -sf --max-time 5 "$base/api/v1/status" | jq -er '.data_latest // empty'); do
  i=$((i + 1)); [ $i -lt 300 ] || fail "no data within 30 s"; sleep 0.1
done
i=0
until curl -sf --max-time 5 "$base/api/v1/status" | jq -e --arg l "$latest" '.data_latest > $l' >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "no new data after the credential was refreshed (data_latest stuck at $latest)"; sleep 0.1
done
runs=$(cat "$dir/runs")
[ "$runs" -ge 3 ] || fail "plugin runs: $runs"
# the API shows what was ingested: tasks and pools
curl -sf --max-time 10 "$base/api/v1/tasks?window=30d" | jq -e '.total > 0' >/dev/null \
  || fail "no tasks in the API"
curl -sf --max-time 10 "$base/api/v1/pools?window=30d" | jq -e '(.pools | length) > 0' >/dev/null \
  || fail "no pools in the API"
for t in "$(cat "$dir/ktok")" "$(cat "$dir/dtok")"; do
  grep -q -- "$t" "$dir/svc.log" "$dir/svc.out" && fail "a token reached the log"
done
stop_pid "$svc_pid"; svc_pid=
echo "e2e_kubeconfig: plugin ran $runs times, ingest continued across expiries"

# 3. a failing plugin stops start-up with its own message
printf '#!/bin/sh\necho "Error: unable to initialize DigitalOcean API client: access token is required." >&2\nexit 1\n' \
  > "$dir/bin/fake-doctl"
if env "$@" timeout 60 "$ledger" --do-api-url "http://$http" --cluster-id "$cluster" \
    --db "$dir/b.db" --listen 127.0.0.1:0 > /dev/null 2> "$dir/bad.err"; then
  fail "started with a failing plugin"
fi
grep -q "exec plugin 'fake-doctl' exited with status 1: Error: unable to initialize DigitalOcean API client" \
  "$dir/bad.err" || { cat "$dir/bad.err" >&2; fail "the failing plugin's message is missing"; }
echo "e2e_kubeconfig: ok"
