# settle.sh — sourced by the e2e scripts (not a test itself).
#
# settle BASE_URL "SOURCES" SECONDS
#   After a script saw the source clock reach the end of a scenario, the final state
#   must be read again: waits until every named source ("do", "k8s", "do_billing")
#   has finished two more successful polls after this call began (its last_success
#   in /api/v1/status moved on, twice: the first may have started before the final
#   state, and watch events land asynchronously). A readiness poll, bounded by
#   SECONDS in all; returns 1 with a message when the bound passes (instead of a
#   fixed sleep).
# source_sel "SOURCES": the jq condition that selects those sources' entries of
#   /api/v1/status's .sources.
source_sel() {
  printf '%s\n' $1 | awk '{printf "%s.source == \"%s\"", (NR > 1 ? " or " : ""), $1}'
}

settle() {
  _sb=$1; _ss=$2; _st=$3
  _sel=$(source_sel "$_ss")
  _si=0
  for _round in 1 2; do
    _sbefore=$(curl -sf --max-time 5 "$_sb/api/v1/status" |
      jq -c "[.sources[] | select($_sel) | {(.source): (.last_success // \"\")}] | add") || {
      echo "settle: no status from $_sb" >&2; return 1; }
    while ! curl -sf --max-time 5 "$_sb/api/v1/status" | jq -e --argjson b "$_sbefore" \
        "[.sources[] | select($_sel) | (.last_success // \"\") > \$b[.source]] | all" >/dev/null 2>&1; do
      _si=$((_si + 1))
      if [ "$_si" -gt $((_st * 10)) ]; then
        echo "settle: no new successful poll (round $_round of 2) of every one of: $_ss within $_st s" >&2
        return 1
      fi
      sleep 0.1
    done
  done
  return 0
}
