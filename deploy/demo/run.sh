#!/bin/sh
# make run — the local demo: spotsim plays a simulated week of a DOKS GPU cluster
# (deploy/demo/scenario.json: a Spot pool reclaimed mid-week, the fallback pool
# taking over, an On-Demand baseline) in about a minute, and spotledger polls it
# exactly as it would poll DigitalOcean and Kubernetes. Ctrl-C stops both.
#
# Environment: SPOTSIM_SPEED (simulated seconds per real second, default 10080:
# one week in 60 s), SPOTLEDGER_PORT (8080), SPOTLEDGER_RUN_DIR (./run),
# SPOTSIM_SEED (2026), SPOTLEDGER_POLL_INTERVAL (1, real seconds).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
run=${SPOTLEDGER_RUN_DIR:-$root/run}
speed=${SPOTSIM_SPEED:-10080}
port=${SPOTLEDGER_PORT:-8080}
seed=${SPOTSIM_SEED:-2026}
poll=${SPOTLEDGER_POLL_INTERVAL:-1}
mkdir -p "$run"
chmod 700 "$run"
# a fresh demo week each time: the old database would mix two runs of the same week
rm -f "$run/spotledger.db" "$run/spotledger.db-wal" "$run/spotledger.db-shm" \
      "$run/truth.json" "$run/spotsim.out"
umask 077
printf 'dop_v1_spotsim_demo_token\n' > "$run/do-token"
printf 'spotsim-demo-kube-token\n' > "$run/kube-token"

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

./spotsim --scenario deploy/demo/scenario.json --seed "$seed" --speed "$speed" --hold \
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

./spotledger --listen "127.0.0.1:$port" --db "$run/spotledger.db" \
  --do-api-url "http://$http" --do-token-file "$run/do-token" --cluster-id "$cluster" \
  --kube-api-url "https://$https" --kube-token-file "$run/kube-token" \
  --kube-ca-file "$run/spotsim-ca.pem" --poll-interval "$poll" --billing-interval 5 \
  > "$run/spotledger.out" 2> "$run/spotledger.log" &
ledgerpid=$!

echo "spotsim:    DigitalOcean API http://$http/v2/  Kubernetes API https://$https/"
echo "            (simulating 2026-11-09 .. 2026-11-16 at ${speed}x; log: $run/spotsim.log)"
echo "spotledger: dashboard http://127.0.0.1:$port/   (log: $run/spotledger.log)"
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
  fi
  sleep 1
done
