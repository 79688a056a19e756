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
: "${SPOTLEDGER_BIN:?}" "${SPOTSIM_BIN:?}" "${SPOTLEDGER_ROOT:?}"
tmp=$(mktemp -d)
sim=; svc=
cleanup() {
  [ -n "$svc" ] && kill "$svc" 2>/dev/null && wait "$svc" 2>/dev/null
  [ -n "$sim" ] && kill "$sim" 2>/dev/null && wait "$sim" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail() { [ -f "$tmp/svc.log" ] && tail -20 "$tmp/svc.log" >&2; echo "e2e_kubeconfig: $*" >&2; exit 1; }

printf 'kube-e2e-token-5d1c\n' > "$tmp/ktok"
printf 'do-e2e-token-77ab\n' > "$tmp/dtok"
# 12 simulated hours in ~30 s: ingest goes on across several credential expiries
"$SPOTSIM_BIN" --scenario "$SPOTLEDGER_ROOT/tests/fixtures/sim/small.json" --speed 1500 --hold \
  --listen 127.0.0.1:0 --tls-cert-out "$tmp/ca.pem" --kube-token-file "$tmp/ktok" \
  --do-token-file "$tmp/dtok" > "$tmp/sim.out" 2> "$tmp/sim.log" &
sim=$!
i=0
while ! grep -q '^spotsim: http ' "$tmp/sim.out" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 200 ] || fail "spotsim did not start"; sleep 0.05
done
http=$(awk '/^spotsim: http /{print $3}' "$tmp/sim.out")
https=$(awk '/^spotsim: http /{print $5}' "$tmp/sim.out")
cluster=$(awk '/^spotsim: http /{print $7}' "$tmp/sim.out")
[ -n "$cluster" ] || fail "no cluster id on spotsim's start line"

# the stand-in for doctl: counts its runs, prints a token valid for 3 s
mkdir "$tmp/bin"
cat > "$tmp/bin/fake-doctl" <<'PLUGIN'
#!/bin/sh
[ "$1 $2 $3 $4" = "kubernetes cluster kubeconfig exec-credential" ] || { echo "unexpected args: $*" >&2; exit 2; }
n=$(cat "$STATE_DIR/runs" 2>/dev/null || echo 0); echo $((n + 1)) > "$STATE_DIR/runs"
exp=$(date -u -d "@$(($(date +%s) + 3))" +%Y-%m-%dT%H:%M:%SZ)
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{},"status":{"expirationTimestamp":"%s","token":"%s"}}\n' "$exp" "$(cat "$STATE_DIR/ktok")"
PLUGIN
chmod 700 "$tmp/bin/fake-doctl"
cat > "$tmp/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: $(base64 -w0 "$tmp/ca.pem")
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
      - {name: STATE_DIR, value: $tmp}
      interactiveMode: IfAvailable
      provideClusterInfo: false
KC
mkdir -p "$tmp/home/.config/doctl"
printf 'access-token: wrong-default\ncontext: sim\nauth-contexts:\n  sim: %s\n' "$(cat "$tmp/dtok")" \
  > "$tmp/home/.config/doctl/config.yaml"
# only the kubeconfig and doctl's config: no token variables, no --kube-* flags.
# (the positional parameters, given to `env`, which execs the command: $! is then
# spotledger's own pid, not a subshell's, and the cleanup stops it)
set -- -u DIGITALOCEAN_TOKEN -u DIGITALOCEAN_ACCESS_TOKEN -u DIGITALOCEAN_CONTEXT \
  -u KUBERNETES_SERVICE_HOST -u XDG_CONFIG_HOME \
  HOME="$tmp/home" KUBECONFIG="$tmp/kubeconfig" PATH="$tmp/bin:$PATH"

# 1. no --cluster-id and a server URL that is not DOKS's: stop, naming the cluster
if env "$@" timeout 60 "$SPOTLEDGER_BIN" --do-api-url "http://$http" --db "$tmp/a.db" \
    --listen 127.0.0.1:0 > /dev/null 2> "$tmp/nocluster.err"; then
  fail "started without a cluster id"
fi
grep -q "no --cluster-id; pass one of this account's clusters: .*($cluster, " "$tmp/nocluster.err" \
  || { cat "$tmp/nocluster.err" >&2; fail "the missing cluster id message does not name the cluster"; }

# 2. the service with a plugin whose tokens expire every 3 s
rm -f "$tmp/runs"
env "$@" "$SPOTLEDGER_BIN" --do-api-url "http://$http" --cluster-id "$cluster" --db "$tmp/s.db" \
  --listen 127.0.0.1:0 --poll-interval 2 > "$tmp/svc.out" 2> "$tmp/svc.log" &
svc=$!
i=0
while ! grep -q '^spotledger: listening on ' "$tmp/svc.out" 2>/dev/null; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "spotledger did not start"; sleep 0.05
done
base="http://$(awk '/^spotledger: listening on /{print $4}' "$tmp/svc.out")"
grep -q "DigitalOcean token from doctl config '$tmp/home/.config/doctl/config.yaml' context 'sim'" \
  "$tmp/svc.log" || fail "the log does not name the token's source"
grep -q "exec plugin credentials" "$tmp/svc.log" || fail "the log does not say the plugin is used"
# ingest before the first expiry...
i=0
until curl -sf --max-time 5 "$base/api/v1/status" | jq -e '.sources[] | select(.source == "k8s") | .status == "ok"' >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "no Kubernetes list within 30 s"; sleep 0.1
done
# ...then wait for two more plugin runs (two expiries) and newer data after them
i=0
until [ "$(cat "$tmp/runs" 2>/dev/null || echo 0)" -ge 3 ]; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "the plugin ran $(cat "$tmp/runs") time(s) in 30 s (expected >= 3)"; sleep 0.1
done
i=0
until latest=$(curl -sf --max-time 5 "$base/api/v1/status" | jq -er '.data_latest // empty'); do
  i=$((i + 1)); [ $i -lt 300 ] || fail "no data within 30 s"; sleep 0.1
done
i=0
until curl -sf --max-time 5 "$base/api/v1/status" | jq -e --arg l "$latest" '.data_latest > $l' >/dev/null 2>&1; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "no new data after the credential was refreshed (data_latest stuck at $latest)"; sleep 0.1
done
runs=$(cat "$tmp/runs")
[ "$runs" -ge 3 ] || fail "plugin runs: $runs"
# the API shows what was ingested: tasks and pools
curl -sf --max-time 10 "$base/api/v1/tasks?window=30d" | jq -e '.total > 0' >/dev/null \
  || fail "no tasks in the API"
curl -sf --max-time 10 "$base/api/v1/pools?window=30d" | jq -e '(.pools | length) > 0' >/dev/null \
  || fail "no pools in the API"
for t in "$(cat "$tmp/ktok")" "$(cat "$tmp/dtok")"; do
  grep -q -- "$t" "$tmp/svc.log" "$tmp/svc.out" && fail "a token reached the log"
done
kill "$svc"; wait "$svc" 2>/dev/null || true; svc=
echo "e2e_kubeconfig: plugin ran $runs times, ingest continued across expiries"

# 3. a failing plugin stops start-up with its own message
printf '#!/bin/sh\necho "Error: unable to initialize DigitalOcean API client: access token is required." >&2\nexit 1\n' \
  > "$tmp/bin/fake-doctl"
if env "$@" timeout 60 "$SPOTLEDGER_BIN" --do-api-url "http://$http" --cluster-id "$cluster" \
    --db "$tmp/b.db" --listen 127.0.0.1:0 > /dev/null 2> "$tmp/bad.err"; then
  fail "started with a failing plugin"
fi
grep -q "exec plugin 'fake-doctl' exited with status 1: Error: unable to initialize DigitalOcean API client" \
  "$tmp/bad.err" || { cat "$tmp/bad.err" >&2; fail "the failing plugin's message is missing"; }
echo "e2e_kubeconfig: ok"
