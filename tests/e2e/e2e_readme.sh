#!/bin/sh
# End-to-end: the README's shell examples, pasted into bash while `make run`'s demo
# is up (issue 17: "every example works when pasted").
#
#   1. starts the demo exactly as `make run` does (deploy/demo/run.sh; a private run
#      folder, a free port, the binaries under test) and waits until its simulated
#      week is complete and the week's files are written;
#   2. takes every ```sh block of README.md, substitutes the demo's values (the run
#      folder for run/, the demo's port for localhost:8080, a free port and a
#      temporary database for the second spotledger of "Running it", the binary
#      under test for ./spotledger), and runs it in `bash -e -o pipefail`;
#   3. every curl of a block must answer 2xx (a curl wrapper adds --fail-with-body
#      and writes each HTTP status to stderr) and there must be at least one per block;
#   4. the README's sample outputs are claims about the demo: every "key":number
#      in a block's comments must appear in that block's real output, and the
#      advice the demo shows must be exactly the mistakes the README says it plants.
#
# Blocks that are not API examples are named and skipped (the `make run` / `make
# test` block: it would start the demo or the whole suite inside the suite), and so
# are blocks whose first line is `# needs a real cluster` (README "Point it at your
# cluster": doctl and a DOKS cluster, which the suite does not have; e2e_check and
# e2e_kubeconfig run the same commands against spotsim).
# Needs: sh, bash, curl, jq, python3. Loopback only; every wait bounded.
set -eu

root=${SPOTLEDGER_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/demo_up.sh"
e2e_begin_named e2e_readme run_pid

need bash curl jq python3
[ -x "${SPOTSIM_BIN:-}" ] && [ -x "${SPOTLEDGER_BIN:-}" ] || fail "SPOTLEDGER_BIN and SPOTSIM_BIN must be built binaries"

# 1. the demo
demo_start "$dir"
port=${base##*:}
[ -n "$port" ] || fail "demo.env: no B=: $(cat "$dir/run/demo.env")"
grep -q "admin token (POST /api/v1/exports, /api/v1/poll): $dir/run/admin-token" "$dir/run.out" ||
  fail "make run does not print the admin token's path: $(cat "$dir/run.out")"
[ -s "$dir/run/admin-token" ] || fail "no admin token file"
i=0
until grep -q 'the simulated week is complete' "$dir/run.out" &&
  [ -s "$dir/run/exports/spotledger-2026-W46-summary.csv" ] && [ -s "$dir/run/exports/spotledger-2026-W46-tasks.csv" ] &&
  curl -sf --max-time 5 "$base/api/v1/status" | jq -e '.now == "2026-11-16T00:00:00Z"' >/dev/null; do
  i=$((i + 1)); [ $i -le 300 ] || fail "no complete week with its files in run/exports after 150 s: $(ls "$dir/run/exports")"
  sleep 0.5
done
settle "$base" "do k8s" 30 || fail "no second poll of the final state"
note "demo up on port $port; the week's files: $(cd "$dir/run/exports" && ls | tr '\n' ' ')"

# Was the demo's ingest complete? Under heavy machine load the simulator's clock
# (real time x 10080) can outrun spotledger's polls, and Jobs garbage-collected
# in between are lost (README Decisions, Kubernetes). Then the sample figures
# cannot be compared; measured here against spotsim's ground truth.
complete=1
curl -sf "$base/api/v1/summary?window=2026-W46" >"$dir/w46.json" || fail "no W46 summary"
jq -n --slurpfile a "$dir/w46.json" --slurpfile t "$dir/run/truth.json" '
  [$t[0].configurations[] as $c | ($a[0].configurations[] | select(.configuration == $c.configuration and .basis == "measured"))
   | [.tasks_succeeded, .attempts] == [$c.succeeded, $c.attempts]] | all' | grep -q true || complete=0
ingest=$(jq -n --slurpfile a "$dir/w46.json" --slurpfile t "$dir/run/truth.json" -r '
  "\([$a[0].configurations[] | select(.basis == "measured") | .tasks_succeeded] | add) of \([$t[0].configurations[].succeeded] | add) tasks"')
note "ingest of the demo week: $ingest (load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs)"

# a free port for the README's second spotledger ("Running it")
port2=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# 2. the blocks: NUL-separated "first line number\nbody"
python3 - "$root/README.md" "$dir/blocks" <<'PY'
import os, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
out = sys.argv[2]
os.makedirs(out)
n, i = 0, 0
while i < len(lines):
    if lines[i].strip() == "```sh":
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        n += 1
        with open(os.path.join(out, "%02d.sh" % n), "w") as f:
            f.write("# README.md line %d\n" % (i + 2) + "\n".join(lines[i + 1:j]) + "\n")
        i = j
    i += 1
PY
nblocks=$(ls "$dir/blocks" | wc -l | tr -d ' ')
[ "$nblocks" -ge 3 ] || fail "only $nblocks sh blocks in README.md"

cat >"$dir/prelude.sh" <<'EOF'
set -e -o pipefail
cd "$README_ROOT"
# every curl: fail on >= 400 and report its status on stderr
curl() { command curl --fail-with-body -w '%{stderr}HTTP-STATUS %{http_code}\n' "$@"; }
EOF

ran=0
skipped=
for b in "$dir"/blocks/*.sh; do
  where=$(head -n 1 "$b" | sed 's/^# //')
  if grep -Eq '^make (run|test)' "$b"; then
    skipped="$skipped [$where: make run / make test]"
    continue
  fi
  if [ "$(sed -n 2p "$b")" = "# needs a real cluster" ]; then
    skipped="$skipped [$where: needs a real cluster]"
    continue
  fi
  sed -e "s|\\. run/demo\\.env|. $dir/run/demo.env|g" \
      -e "s|localhost:8080|127.0.0.1:$port|g" \
      -e "s|localhost:8081|127.0.0.1:$port2|g" \
      -e "s|127\\.0\\.0\\.1:8081|127.0.0.1:$port2|g" \
      -e "s|^\\./spotledger |$SPOTLEDGER_BIN |" \
      -e "s|--db \\./spotledger\\.db|--db $dir/second.db|" "$b" >"$b.run"
  # variables a block uses without setting come from the demo (as a reader's
  # shell would have them after `. run/demo.env` in an earlier block)
  { cat "$dir/prelude.sh"; echo ". '$dir/run/demo.env'"; cat "$b.run"
    echo 'for p in $(jobs -p); do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done'; } >"$b.full"
  if ! README_ROOT="$root" timeout -k 5 120 bash "$b.full" >"$b.out" 2>"$b.err"; then
    sed 's/^/  | /' "$b.run" >&2
    tail -n 20 "$b.err" | sed 's/^/  ! /' >&2
    fail "the block at $where failed (above)"
  fi
  codes=$(sed -n 's/^HTTP-STATUS //p' "$b.err" | tr '\n' ' ')
  [ -n "$codes" ] || fail "the block at $where ran no curl"
  for c in $codes; do
    case $c in 2??) ;; *) fail "the block at $where: a curl answered $c (all: $codes)";; esac
  done
  # 4. the sample outputs in its comments: every "key":number is in the real output
  if ! python3 - "$b" "$b.out" "$where" <<'PY'; then
import re, sys
block, out, where = sys.argv[1:4]
claims = []
for line in open(block, encoding="utf-8"):
    line = line.strip()
    if line.startswith("#") and not line.startswith("# README.md line"):
        claims += re.findall(r'"([a-z_0-9]+)":(-?[0-9]+(?:\.[0-9]+)?)(?=[,}\]])', line)
real = re.sub(r'":\s+', '":', open(out, encoding="utf-8").read())
missing = [k + ":" + v for k, v in claims if not re.search(r'"%s":%s(?=[,}\]\s])' % (re.escape(k), re.escape(v)), real)]
for m in missing:
    print("  claimed %s, not in the output" % m, file=sys.stderr)
print("e2e_readme: %s: %d sample figures match" % (where, len(claims)))
sys.exit(1 if missing else 0)
PY
    [ "$complete" = 0 ] || fail "the sample output of the block at $where is not what the demo shows (above)"
    echo "e2e_readme: SKIP: sample figures of $where: the demo ingested $ingest under load, not comparable"
  fi
  ran=$((ran + 1))
  note "$where: $(echo $codes | wc -w | tr -d ' ') curls, all 2xx ($codes)"
done
[ -n "$skipped" ] && echo "e2e_readme: SKIP:$skipped (not API examples: they start the demo or the whole suite, or need a real cluster)"

# the claim about the planted mistakes: the README names the rules the demo's advice shows
claim=$(tr '\n' ' ' <"$root/README.md" | sed -n 's/.*\(The demo scenario plants.*\)Its fifth planted.*/\1/p')
[ -n "$claim" ] || fail "README: no 'The demo scenario plants ... Its fifth planted' sentence"
rules=$(echo "$claim" | grep -o '`[a-z-]*`' | tr -d '`' | sort -u)
shown=$(curl -sf "$base/api/v1/advice?window=7d" | jq -r '.findings[].rule' | sort -u)
[ -n "$shown" ] || fail "the demo shows no advice"
missing=$(printf '%s\n' $rules | grep -vxF "$shown" || true)
[ -z "$missing" ] || fail "README says the demo plants '$(echo $missing)', its advice does not show it ($(echo $shown))"
extra=$(printf '%s\n' $shown | grep -vxF "$rules" || true)
for r in $extra; do
  # ttl-too-short compares TTLs with the delay before spotledger first saw a pod: a
  # loaded machine makes that delay long (the ingest figure above); anything else is a drift
  if [ "$r" = ttl-too-short ]; then
    echo "e2e_readme: NOTE: the demo also shows ttl-too-short (pods first seen late: ingest $ingest, load $(cut -d' ' -f1 /proc/loadavg))"
  else
    fail "the demo's advice shows '$r', which the README does not name among the planted mistakes"
  fi
done
n=$(echo "$rules" | wc -l | tr -d ' ')
echo "$claim" | grep -q "plants $(echo one two three four five six | cut -d' ' -f"$n") of" ||
  fail "the README's count of planted mistakes is not the $n rules it names"
note "planted mistakes: the README's $n rules are in the demo's advice ($(echo $rules))"
echo "e2e_readme: ok: $ran blocks pasted, every curl 2xx"
