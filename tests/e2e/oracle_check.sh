# oracle_check.sh — sourced by the e2e scripts (not a test itself).
#
# oracle_diff BASE_URL QUERY TRUTH_FILE OUT_PREFIX [strict]
#   Reads /api/v1/summary, nodes, pools and reclaims with QUERY ("window=...",
#   plus filters) and compares every figure the independent oracle computed
#   (TRUTH_FILE's .oracle, docs/oracle.md) with tests/oracle/compare.jq. The
#   responses are kept as OUT_PREFIX.summary etc.; the differences (one line
#   each) in OUT_PREFIX.diff. With "strict", a field of these answers the oracle
#   does not compute is a difference unless docs/oracle.md "Not compared" lists
#   it with its reason. Returns 1 when a request fails.
# oracle_check BASE_URL QUERY TRUTH_FILE OUT_PREFIX
#   oracle_diff, then returns 1 when there is any difference (printing the first
#   20), or when the summary is empty (no node cost or no succeeded task).
oracle_diff() {
  _ob=$1; _oq=$2; _ot=$3; _op=$4
  _ostrict=false
  [ "${5:-}" != strict ] || _ostrict=true
  curl -sf "$_ob/api/v1/summary?$_oq" > "$_op.summary" || return 1
  curl -sf "$_ob/api/v1/nodes?$_oq" | jq -S .nodes > "$_op.nodes" || return 1
  curl -sf "$_ob/api/v1/pools?$_oq" | jq -S .pools > "$_op.pools" || return 1
  curl -sf "$_ob/api/v1/reclaims?$_oq" | jq -S .reclaims > "$_op.reclaims" || return 1
  jq -n --slurpfile s "$_op.summary" --slurpfile n "$_op.nodes" --slurpfile p "$_op.pools" \
    --slurpfile r "$_op.reclaims" --slurpfile t "$_ot" --argjson strict "$_ostrict" \
    '{got: {summary: $s[0], nodes: $n[0], pools: $p[0], reclaims: $r[0]}, want: $t[0].oracle,
      strict: $strict}' |
    jq -r -f "$SPOTLEDGER_ROOT/tests/oracle/compare.jq" > "$_op.diff"
}

oracle_check() {
  oracle_diff "$@" || return 1
  if [ -s "$_op.diff" ]; then
    head -20 "$_op.diff" >&2
    return 1
  fi
  jq -e '.nodes_total_cost > 0 and ([.configurations[] | .tasks_succeeded] | add) > 0' \
    "$_op.summary" >/dev/null || { echo "oracle_check: an empty summary" >&2; return 1; }
}
