#!/bin/sh
# End-to-end: the real spotledger binary starts on port 0, answers /healthz, refuses
# path traversal, exits 0 within 2 s of SIGTERM, and a second start on the same
# database applies no migration.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_service
pid=
on_exit_stop pid

start() {
  # empty both logs here, before the start: the background job's own redirections
  # truncate them only when it runs, so wait_ledger could otherwise find the first
  # run's "listening on" and the check below read an err not yet written (a loaded
  # machine failed "second start migrated again:" with err empty this way)
  : >"$dir/out"
  : >"$dir/err"
  "$ledger" --no-kube --listen 127.0.0.1:0 --db "$dir/x.db" --web-dir "$root/web" >"$dir/out" 2>"$dir/err" &
  pid=$!
  wait_ledger "$dir/out" "$dir/err"
  port=${base##*:}
}

stop_within_2s() {
  kill -TERM "$pid"
  i=0
  while kill -0 "$pid" 2>/dev/null; do
    i=$((i + 1)); [ $i -le 20 ] || fail "still running 2 s after SIGTERM"
    sleep 0.1
  done
  wait "$pid" && rc=0 || rc=$?
  pid=
  [ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM"
}

start
code=$(curl -s -o "$dir/body" -w '%{http_code}' "http://127.0.0.1:$port/healthz")
[ "$code" = 200 ] || fail "/healthz answered $code"
grep -q '"status":"ok"' "$dir/body" || fail "/healthz body: $(cat "$dir/body")"
for p in '/../../etc/passwd' '/web/%2e%2e/%2e%2e/etc/passwd' '/%2e%2e/%2e%2e/etc/passwd'; do
  code=$(curl -s --path-as-is -o "$dir/body" -w '%{http_code}' "http://127.0.0.1:$port$p")
  case "$code" in 400|404) ;; *) fail "$p answered $code";; esac
  if grep -q 'root:' "$dir/body"; then fail "$p leaked /etc/passwd"; fi
done
grep -Eq "\([1-9][0-9]* migrations? applied\)" "$dir/err" || fail "first start did not migrate: $(cat "$dir/err")"
stop_within_2s

start
grep -q "0 migrations applied" "$dir/err" || fail "second start migrated again: $(cat "$dir/err")"
stop_within_2s

# invalid flag: one line naming the flag, exit status 2
if "$ledger" --poll-interval nope 2>"$dir/err"; then fail "bad flag accepted"; else rc=$?; fi
[ "$rc" -eq 2 ] || fail "bad flag exit status $rc"
grep -q -- '--poll-interval' "$dir/err" || fail "bad flag message: $(cat "$dir/err")"
# outside a cluster with no Kubernetes flags: exit 2 at once with one line naming
# what to pass, and no database created (issue 17)
if env -u KUBERNETES_SERVICE_HOST -u SPOTLEDGER_NO_KUBE -u SPOTLEDGER_KUBE_API_URL \
  timeout 10 "$ledger" --listen 127.0.0.1:0 --db "$dir/nokube.db" >"$dir/out" 2>"$dir/err"; then
  fail "started without any Kubernetes configuration"
else rc=$?; fi
[ "$rc" -eq 2 ] || fail "no Kubernetes configuration: exit status $rc (want 2; 124 = hung)"
[ "$(wc -l <"$dir/err" | tr -d ' ')" = 1 ] || fail "want one line, got: $(cat "$dir/err")"
grep -q -- '--kube-api-url' "$dir/err" && grep -q -- '--no-kube' "$dir/err" ||
  fail "the line does not name --kube-api-url and --no-kube: $(cat "$dir/err")"
[ ! -e "$dir/nokube.db" ] || fail "a database was created before failing"
# --no-kube: runs DigitalOcean-only and /api/v1/status says Kubernetes is off on purpose
start
curl -s "http://127.0.0.1:$port/api/v1/status" >"$dir/status.json"
jq -e '.watching.no_kube == true and .watching.kubernetes == false' "$dir/status.json" >/dev/null ||
  fail "/api/v1/status with --no-kube: $(cat "$dir/status.json")"
stop_within_2s
echo "e2e_service: ok"
