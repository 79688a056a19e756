#!/bin/sh
# Bad input against the running service: every route of src/http/router.c with malformed
# parameters (bad windows, unknown and repeated parameters, huge values, SQL
# metacharacters, invalid UTF-8 percent-encoded, empty values), oversized URLs,
# headers, tokens and bodies, path traversal, and methods not allowed. Each must
# get a 4xx whose body is {"error":{"code":"...","message":"..."}} (except where
# libmicrohttpd answers on its own, noted below), and after every batch the
# process is alive and /healthz answers 200. Prints how many bad inputs were tried.
set -eu
. "$(dirname "$0")/lib.sh"
e2e_begin e2e_badinput
pid=
on_exit_stop pid
fail() { echo "e2e_badinput: $*" >&2; [ -n "${KEEP_GOING:-}" ] || exit 1; }

printf 'read-token-0123456789\n' >"$dir/api-token"
printf 'admin-token-0123456789\n' >"$dir/admin-token"
mkdir -p "$dir/exports"
"$ledger" --no-kube --listen 127.0.0.1:0 --db "$dir/x.db" --web-dir "$root/web" --export-dir "$dir/exports" \
  --api-token-file "$dir/api-token" --admin-token-file "$dir/admin-token" \
  >"$dir/out" 2>"$dir/err" &
pid=$!
wait_ledger "$dir/out" "$dir/err"
auth="Authorization: Bearer admin-token-0123456789"

tried=0
# bad METHOD PATH [curl args...]: expects 4xx with a JSON error body
bad() {
  m=$1; p=$2; shift 2
  tried=$((tried + 1))
  code=$(curl -s --globoff --path-as-is -o "$dir/body" -w '%{http_code}' --max-time 30 \
    -X "$m" -H "${hdr-$auth}" "$@" "$base$p") || code=000
  case "$code" in
    4??) ;;
    *) fail "$m $(echo "$p" | cut -c1-120): HTTP $code, want 4xx: $(head -c 300 "$dir/body")" ;;
  esac
  if ! jq -e '(.error.code | type == "string") and (.error.message | type == "string")' \
      "$dir/body" >/dev/null 2>&1; then
    fail "$m $(echo "$p" | cut -c1-120): HTTP $code without a JSON error: $(head -c 300 "$dir/body")"
  fi
  if grep -q 'root:' "$dir/body"; then fail "$m $p leaked a file"; fi
}
# alive BATCH: the process still runs and /healthz answers 200
alive() {
  kill -0 "$pid" 2>/dev/null || fail "after $1: the process died: $(tail -5 "$dir/err")"
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$base/healthz") || code=000
  [ "$code" = 200 ] || fail "after $1: /healthz answered $code"
  echo "e2e_badinput: $1: ok ($tried bad inputs so far)"
}

long=$(head -c 3000 /dev/zero | tr '\0' 'a')
digits=$(head -c 400 /dev/zero | tr '\0' '9')

# --- windows and filters, on every route that takes a window ----------------------
window_routes="/api/v1/summary /api/v1/nodes /api/v1/pools /api/v1/reclaims /api/v1/tasks
/api/v1/experiments /api/v1/timeseries /api/v1/node_counts /api/v1/advice /api/v1/reconciliation"
for r in $window_routes; do
  for q in window=bogus window= window=7x window=0d window=-7d "window=${digits}d" \
      window=99999999999999999999h window=2026-W00 window=2026-W54 window=2026-13 \
      window=2026-00 window=0000-W01 window=99999-W01 \
      'window=2026-11-16T00:00:00Z,2026-11-09T00:00:00Z' 'window=2026-11-09T00:00:00Z,' \
      'window=,2026-11-09T00:00:00Z' 'window=2026-02-30T00:00:00Z,2026-03-01T00:00:00Z' \
      'window=2026-11-09T25:00:00Z,2026-11-10T00:00:00Z' 'window=1900-01-01T00:00:00Z,2100-01-01T00:00:00Z' \
      from=garbage to=garbage from= to= 'from=2026-11-09T00:00:00Z&to=2026-11-01T00:00:00Z' \
      'window=7d&from=2026-11-01T00:00:00Z' 'window=7d&window=7d' 'window=7d&window=24h' \
      unknown=1 'Window=7d' '=7d' 'window' "window=$long" \
      "window=7d'%20OR%20'1'='1" 'window=7d%3B%20DROP%20TABLE%20tasks%3B--' \
      'window=%FF%FE' 'window=%C0%AF' 'window=%00' 'window=7d%00' 'window=%E2%80%AE7d' \
      configuration=bogus configuration= 'configuration=spot%27%20OR%201%3D1--' \
      'configuration=spot&configuration=fallback' 'configuration=SPOT' \
      experiment= "experiment=$long" "experiment=a'%3B%20DROP%20TABLE%20tasks%3B--" \
      'experiment=%FF' 'experiment=a%00b' 'experiment=a/b' 'experiment=%2e%2e%2f' \
      namespace= 'namespace=a%20b' 'namespace=%C3%28' "namespace=ns\"}" 'namespace=*'; do
    bad GET "$r?$q"
  done
done
alive "windows and filters on $(echo $window_routes | wc -w) routes"

# --- route-specific parameters -----------------------------------------------------
for q in outcome=bogus outcome= limit=-1 limit=0 limit=abc "limit=$digits" limit=1e3 \
    limit=99999999999999999999 'limit=10&limit=20' cursor=garbage 'cursor=%FF%FF' \
    "cursor=$long" sort=bogus 'sort=name%3B--' order=sideways order=; do
  bad GET "/api/v1/tasks?window=7d&$q"
done
for q in step=0 step=-1 step=abc step=1s "step=$digits" step= metric=bogus metric= \
    'metric=cost%27--' 'step=1h&step=1d'; do
  bad GET "/api/v1/timeseries?window=7d&$q"
done
for q in step=0 step=-1 step=abc step= "step=$digits"; do
  bad GET "/api/v1/node_counts?window=7d&$q"
done
for q in kind=bogus kind= 'kind=tasks&kind=summary' 'week=2026-W00&kind=tasks' \
    'week=2026-W54&kind=tasks' 'week=9999999-W01&kind=tasks' 'week=../../etc/passwd&kind=tasks' \
    'week=2026-W48' 'week=2026-W48&kind=tasks&window=7d' 'week=2026-W48&kind=tasks&x=1' \
    'week=%FF&kind=tasks' 'kind=tasks&configuration=spot' 'kind=tasks&window=bogus' \
    'week=2026-W48&kind=..%2F..%2Fetc%2Fpasswd'; do
  bad GET "/api/v1/export.csv?$q"
done
for q in period=bogus period= period=2026-13 period=2026-00 period=0-01 "period=$digits" \
    'period=2026-11&period=2026-10' 'period=2026-11&x=1' 'period=2026-11%27--' 'period=%FF' \
    'period=2026-11&window=7d'; do
  bad GET "/api/v1/reconciliation?$q"
done
bad GET "/api/v1/exports?x=1"
bad GET "/api/v1/exports?week=2026-W48"
for q in week=bogus week= 'week=2026-W54' 'week=../../x' 'week=2999-W01' 'week=%00'; do
  bad POST "/api/v1/exports?$q"
done
bad POST "/api/v1/poll?x=1"
# too many parameters (the limit is 32)
many=$(i=0; while [ $i -lt 40 ]; do printf 'p%d=1&' $i; i=$((i + 1)); done)
for r in $window_routes /api/v1/export.csv; do bad GET "$r?${many}window=7d"; done
alive "route parameters"

# --- task uids, unknown routes, path traversal ----------------------------------------------
for p in "/api/v1/tasks/'%3B%20DROP%20TABLE%20tasks%3B--" "/api/v1/tasks/$long" \
    '/api/v1/tasks/%FF%FE' '/api/v1/tasks/..%2F..%2Fetc%2Fpasswd' '/api/v1/tasks/a/b/c' \
    '/api/v1/tasks/nope?x=1' '/api/v1/nope' '/api/v2/summary' '/api/v1/summary/x' \
    '/../../../../etc/passwd' '/%2e%2e/%2e%2e/%2e%2e/etc/passwd' '/..%2f..%2f..%2fetc%2fpasswd' \
    '/vendor/../../../../etc/passwd' '/vendor/%2e%2e/%2e%2e/%2e%2e/etc/passwd' \
    '/vendor/..%2f..%2f..%2fetc%2fpasswd' '/web/../../etc/passwd' '//etc/passwd' \
    '/index.html%00.js' '/%00' '/vendor/' '/.git/config' '/../Makefile' '/%2e%2e/Makefile' \
    '/nonexistent.html' "/$long"; do
  bad GET "$p"
done
alive "uids, unknown routes and traversal"

# --- methods not allowed ------------------------------------------------------------------
for r in /healthz /readyz /metrics /api/v1/status /api/v1/summary /api/v1/nodes /api/v1/pools \
    /api/v1/reclaims /api/v1/tasks /api/v1/tasks/x /api/v1/experiments /api/v1/timeseries \
    /api/v1/node_counts /api/v1/export.csv /api/v1/exports /api/v1/advice /api/v1/reconciliation \
    /api/v1/poll /; do
  for m in PUT DELETE PATCH OPTIONS TRACE PROPFIND; do
    bad "$m" "$r"
  done
done
for r in /healthz /api/v1/summary /api/v1/tasks /api/v1/export.csv /index.html; do
  bad POST "$r" --data 'x=1'
done
bad GET /api/v1/poll
alive "methods"

# --- sizes: URL, token, headers, bodies -------------------------------------------------------
huge=$(head -c 5000 /dev/zero | tr '\0' 'b')
bad GET "/api/v1/summary?window=$huge"
bad GET "/$huge"
for h in "Authorization: Bearer $huge" "Authorization: Basic Zm9vOmJhcg==" "Authorization: Bearer" \
    "Authorization: Bearer admin-token-0123456789x" "Authorization: Bearer read-token-012345678" \
    "Authorization: bearer%20admin-token-0123456789" "X-No-Auth: 1"; do
  hdr=$h bad GET "/api/v1/summary"
  hdr=$h bad POST "/api/v1/poll"
done
hdr="Authorization: Bearer read-token-0123456789" bad POST "/api/v1/exports?week=2026-W01"
head -c 100000 /dev/zero | tr '\0' 'c' >"$dir/big"
bad POST "/api/v1/exports?week=2026-W01" --data-binary "@$dir/big"
bad POST "/api/v1/poll" --data-binary "@$dir/big"
# a Content-Length far over the cap is refused before any byte of the body is read
# (curl then fails to send it: the code is the body's)
tried=$((tried + 1))
curl -s -o "$dir/body" --max-time 5 -H "$auth" -H 'Content-Length: 99999999999' --data 'x' \
  "$base/api/v1/exports?week=2026-W01" || true
jq -e '.error.code == "payload_too_large"' "$dir/body" >/dev/null ||
  fail "Content-Length 99999999999: $(head -c 300 "$dir/body")"
alive "sizes"
# a 100 KB header: libmicrohttpd itself refuses it (431, its own HTML body, before any
# handler runs); the service must stay up
tried=$((tried + 1))
hcode=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "X-Big: $(head -c 100000 /dev/zero | tr '\0' 'd')" \
  "$base/healthz") || hcode=000
case "$hcode" in 4??|000) ;; *) fail "a 100 KB header got HTTP $hcode" ;; esac
tried=$((tried + 1))
printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n%s\r\n\r\n' "$(i=0; while [ $i -lt 500 ]; do printf 'X-H%d: v\r\n' $i; i=$((i + 1)); done)" |
  curl -s --max-time 5 telnet://127.0.0.1:${base##*:} >/dev/null 2>&1 || true
# garbage on the socket
tried=$((tried + 1))
head -c 20000 /dev/urandom | curl -s --max-time 3 telnet://127.0.0.1:${base##*:} >/dev/null 2>&1 || true
tried=$((tried + 1))
printf 'GET /healthz HTTP/9.9\r\n\r\n' | curl -s --max-time 3 telnet://127.0.0.1:${base##*:} >/dev/null 2>&1 || true
alive "headers and raw garbage (MHD answers 431/400 itself)"

echo "e2e_badinput: ok: $tried bad inputs, every one a 4xx JSON error (MHD-level: 4), service up throughout"
