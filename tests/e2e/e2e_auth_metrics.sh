#!/bin/sh
# End-to-end: tokens and /metrics. Without a token every API route answers 401
# (with WWW-Authenticate); the read token reads; admin routes answer 403 to it;
# /healthz and /readyz stay open; /metrics passes `promtool check metrics`.
set -eu
. "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || { echo "e2e_auth_metrics: promtool missing (Debian package prometheus; make deps installs it)" >&2; exit 1; }
e2e_begin e2e_auth_metrics
pid=
on_exit_stop pid

printf 'read-token-7f3a\n' >"$dir/read"
printf 'admin-token-91c2\n' >"$dir/admin"
"$ledger" --no-kube --listen 127.0.0.1:0 --db "$dir/x.db" --api-token-file "$dir/read" \
  --admin-token-file "$dir/admin" >"$dir/out" 2>"$dir/err" &
pid=$!
wait_ledger "$dir/out" "$dir/err"

code() { curl -s -o "$dir/body" -D "$dir/headers" -w '%{http_code}' "$@"; }

# every read route of the API, plus an unknown one
reads="/api/v1/status /api/v1/summary /api/v1/timeseries /api/v1/tasks /api/v1/pools
/api/v1/nodes /api/v1/reclaims /api/v1/exports /api/v1/experiments /api/v1/advice
/api/v1/node_counts /api/v1/export.csv /api/v1/no-such-route /metrics"
n=0
for r in $reads; do
  c=$(code "$base$r")
  [ "$c" = 401 ] || fail "$r without a token answered $c"
  grep -qi '^WWW-Authenticate: Bearer' "$dir/headers" || fail "$r: 401 without WWW-Authenticate"
  c=$(code -H 'Authorization: Bearer wrong' "$base$r")
  [ "$c" = 401 ] || fail "$r with a wrong token answered $c"
  n=$((n + 2))
done
for r in /healthz /readyz; do
  c=$(code "$base$r")
  case "$c" in 200|503) ;; *) fail "$r should be open, answered $c";; esac
  n=$((n + 1))
done
c=$(code -H 'Authorization: Bearer read-token-7f3a' "$base/api/v1/status")
[ "$c" = 200 ] || fail "status with the read token answered $c"
c=$(code -H 'Authorization: Bearer admin-token-91c2' "$base/api/v1/status")
[ "$c" = 200 ] || fail "status with the admin token answered $c"
for r in /api/v1/poll "/api/v1/exports?week=2026-W48"; do
  c=$(code -X POST -H 'Authorization: Bearer read-token-7f3a' "$base$r")
  [ "$c" = 403 ] || fail "POST $r with the read token answered $c"
  n=$((n + 1))
done
c=$(code -H 'Authorization: Bearer read-token-7f3a' "$base/metrics")
[ "$c" = 200 ] || fail "/metrics with the read token answered $c"
promtool check metrics <"$dir/body" || fail "promtool rejected /metrics"
grep -q '^spotledger_build_info' "$dir/body" || fail "/metrics lacks spotledger_build_info"
# the tokens never reach the log or the database
if grep -q -e read-token-7f3a -e admin-token-91c2 "$dir/err" "$dir/x.db"* 2>/dev/null; then
  fail "a token leaked into the log or the database"
fi
echo "e2e_auth_metrics: ok ($n refusals checked)"
