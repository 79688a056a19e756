#!/bin/sh
# make run — the local demo: spotsim plays a simulated week of a DOKS GPU cluster
# (deploy/demo/scenario.json: a Spot pool reclaimed mid-week, the fallback pool
# taking over, an On-Demand baseline) in about a minute, and spotledger polls it
# exactly as it would poll DigitalOcean and Kubernetes. Ctrl-C stops both.
#
# What it leaves in the run folder (./run): exports/ (the weekly CSV and .xlsx
# files, written when the simulated week closes), admin-token (the admin token
# for POST /api/v1/exports and /api/v1/poll), demo.env (the variables the
# README's examples use: `. run/demo.env`), the database and both logs.
#
# Environment: SPOTSIM_SPEED (simulated seconds per real second, default 10080:
# one week in 60 s), SPOTLEDGER_PORT (8080; 0 picks a free port),
# SPOTLEDGER_RUN_DIR (./run), SPOTSIM_SEED (2026), SPOTLEDGER_POLL_INTERVAL (1,
# real seconds), SPOTLEDGER_BIN / SPOTSIM_BIN (./spotledger, ./spotsim: the tests
# run the sanitizer builds).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
run=${SPOTLEDGER_RUN_DIR:-$root/run}
speed=${SPOTSIM_SPEED:-10080}
port=${SPOTLEDGER_PORT:-8080}
seed=${SPOTSIM_SEED:-2026}
poll=${SPOTLEDGER_POLL_INTERVAL:-1}
ledger_bin=${SPOTLEDGER_BIN:-./spotledger}
sim_bin=${SPOTSIM_BIN:-./spotsim}
mkdir -p "$run"
chmod 700 "$run"
run=$(cd "$run" && pwd)
# a fresh demo week each time: the old database would mix two runs of the same week
rm -f "$run/spotledger.db" "$run/spotledger.db-wal" "$run/spotledger.db-shm" \
      "$run/truth.json" "$run/spotsim.out" "$run/spotledger.out" "$run/demo.env"
rm -rf "$run/exports"
umask 077
printf 'dop_v1_spotsim_demo_token\n' > "$run/do-token"
printf 'spotsim-demo-kube-token\n' > "$run/kube-token"
# an admin token for the demo (reads stay open: the demo serves loopback only)
if [ ! -s "$run/admin-token" ]; then
  od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > "$run/admin-token"
  echo >> "$run/admin-token"
fi
mkdir -p "$run/exports"

simpid=
ledgerpid=
cleanup() {
  trap - INT TERM EXIT
  for p in $ledgerpid $simpid; do
    kill "$p" 2>/dev/null || true
  done
  for p in $ledgerpid $simpid; do
    wait "$p" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'echo; echo "stopping spotledger and spotsim"; exit 0' INT TERM

"$sim_bin" --scenario deploy/demo/scenario.json --seed "$seed" --speed "$speed" --hold \
  --listen 127.0.0.1:0 --tls-cert-out "$run/spotsim-ca.pem" --truth "$run/truth.json" \
  --do-token-file "$run/do-token" --kube-token-file "$run/kube-token" --rate-limit 600 \
  > "$run/spotsim.out" 2> "$run/spotsim.log" &
simpid=$!

line=
i=0
while [ $i -lt 100 ]; do
  line=$(grep '^spotsim: http ' "$run/spotsim.out" 2>/dev/null || true)
  [ -n "$line" ] && break
  kill -0 "$simpid" 2>/dev/null || { cat "$run/spotsim.log" >&2; echo "spotsim did not start" >&2; exit 1; }
  sleep 0.1
  i=$((i + 1))
done
[ -n "$line" ] || { echo "spotsim did not report its ports" >&2; exit 1; }
# spotsim: http 127.0.0.1:P https 127.0.0.1:P2 cluster ID
http=$(echo "$line" | awk '{print $3}')
https=$(echo "$line" | awk '{print $5}')
cluster=$(echo "$line" | awk '{print $7}')

"$ledger_bin" --listen "127.0.0.1:$port" --db "$run/spotledger.db" \
  --do-api-url "http://$http" --do-token-file "$run/do-token" --cluster-id "$cluster" \
  --kube-api-url "https://$https" --kube-token-file "$run/kube-token" \
  --kube-ca-file "$run/spotsim-ca.pem" --poll-interval "$poll" --billing-interval 5 \
  --export-dir "$run/exports" --admin-token-file "$run/admin-token" \
  > "$run/spotledger.out" 2> "$run/spotledger.log" &
ledgerpid=$!
# the port it serves on ("spotledger: listening on 127.0.0.1:P"; port 0 picks one)
i=0
lport=
while [ $i -lt 100 ]; do
  lport=$(sed -n 's/^spotledger: listening on .*:\([0-9][0-9]*\)$/\1/p' "$run/spotledger.out" 2>/dev/null)
  [ -n "$lport" ] && break
  kill -0 "$ledgerpid" 2>/dev/null || break
  sleep 0.1
  i=$((i + 1))
done
if [ -z "$lport" ]; then
  echo "spotledger did not start; last lines of $run/spotledger.log:" >&2
  tail -n 20 "$run/spotledger.log" >&2
  exit 1
fi

# the variables the README's examples use: `. run/demo.env`
cat > "$run/demo.env" <<EOF
# written by make run (deploy/demo/run.sh) for the README's examples: . $run/demo.env
B=http://127.0.0.1:$lport/api/v1
TOKEN=
ADMIN=\$(cat '$run/admin-token')
ADMIN_TOKEN_FILE='$run/admin-token'
EXPORTS='$run/exports'
DO_API_URL=http://$http
DO_TOKEN_FILE='$run/do-token'
CLUSTER_ID=$cluster
KUBE_API_URL=https://$https
KUBE_TOKEN_FILE='$run/kube-token'
KUBE_CA_FILE='$run/spotsim-ca.pem'
EOF

echo "spotsim:    DigitalOcean API http://$http/v2/  Kubernetes API https://$https/"
echo "            (simulating 2026-11-09 .. 2026-11-16 at ${speed}x; log: $run/spotsim.log)"
echo "spotledger: dashboard http://127.0.0.1:$lport/   (log: $run/spotledger.log)"
echo "            weekly files: $run/exports/ (written when the simulated week closes)"
echo "            admin token (POST /api/v1/exports, /api/v1/poll): $run/admin-token"
echo "            the README's examples: . $run/demo.env"
echo "Ctrl-C stops both."

done_said=
while :; do
  if ! kill -0 "$ledgerpid" 2>/dev/null; then
    echo "spotledger exited; last lines of $run/spotledger.log:" >&2
    tail -n 20 "$run/spotledger.log" >&2
    exit 1
  fi
  if ! kill -0 "$simpid" 2>/dev/null; then
    echo "spotsim exited; see $run/spotsim.log" >&2
    exit 1
  fi
  if [ -z "$done_said" ] && [ -f "$run/truth.json" ]; then
    done_said=1
    echo "the simulated week is complete; ground truth: $run/truth.json" \
         "(spotsim keeps serving the final state)"
    echo "the dashboard opens on the last 7 days: http://127.0.0.1:$lport/"
  fi
  sleep 1
done
