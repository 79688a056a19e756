#!/bin/sh
# Line coverage of src/ (make coverage; binaries built with --coverage in BUILD_DIR).
#   1. the unit binaries alone     -> build/coverage/unit/  (the layer goals are "by unit tests")
#   2. then the e2e scripts too    -> build/coverage/all/   (COVERAGE_E2E=0 skips this part)
# Each report: index.html (gcovr, per file), coverage.txt (gcovr text, per file) and
# layers.txt (lines covered / lines per layer, from gcovr's JSON summary).
# Usage: tests/coverage.sh build/cov
set -u
build=${1:-build/cov}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=build/coverage
command -v gcovr >/dev/null || { echo "coverage: gcovr is not installed (make deps)" >&2; exit 1; }
export SPOTLEDGER_BIN="$root/$build/spotledger" SPOTSIM_BIN="$root/$build/spotsim"
export SPOTLEDGER_ROOT="$root"
export SHARED_FIXTURES="${SHARED_FIXTURES:-$root/../shared/fixtures}"

report() { # NAME: writes $out/NAME/ from the .gcda files present now
  d="$out/$1"; rm -rf "$d"; mkdir -p "$d"
  gcovr -r "$root" --object-directory "$build" --filter 'src/' --exclude 'src/sim/' \
    --html-details "$d/index.html" --txt "$d/coverage.txt" --json-summary "$d/summary.json" \
    >/dev/null 2>"$d/gcovr.log" || { cat "$d/gcovr.log" >&2; return 1; }
  python3 - "$d/summary.json" "$d/layers.txt" "$1" <<'EOF'
import json, sys
files = json.load(open(sys.argv[1]))["files"]
layers = {}
for f in files:
    parts = f["filename"].split("/")
    layer = parts[1] if len(parts) > 2 else "(top)"
    l = layers.setdefault(layer, [0, 0])
    l[0] += f["line_covered"]; l[1] += f["line_total"]
    if layer == "http" and parts[2].startswith("api"):  # the API handlers, src/http/api*.c
        l = layers.setdefault("http/api*", [0, 0])
        l[0] += f["line_covered"]; l[1] += f["line_total"]
lines = ["coverage (%s): lines covered / lines, per layer of src/" % sys.argv[3]]
tc = tt = 0
for k in sorted(layers):
    c, t = layers[k]
    if "/" not in k:
        tc += c; tt += t
    lines.append("  %-10s %6d / %6d  %5.1f%%" % (k, c, t, 100.0 * c / t if t else 0))
lines.append("  %-10s %6d / %6d  %5.1f%%" % ("all", tc, tt, 100.0 * tc / tt if tt else 0))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
}

find "$build" -name '*.gcda' -delete
pass=0; fail=0
for t in "$build"/tests/test_*; do
  [ -x "$t" ] || continue
  case "$t" in *.o|*.d|*.gcda|*.gcno) continue;; esac
  if timeout 600 "$t" >"$build/$(basename "$t").log" 2>&1; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "coverage: $(basename "$t") failed (see $build/$(basename "$t").log)"; fi
done
echo "coverage: $pass unit binaries passed, $fail failed"
report unit || exit 1
if [ "${COVERAGE_E2E:-1}" = 1 ]; then
  for s in tests/e2e/e2e_*.sh; do
    if timeout 900 sh "$s" >"$build/$(basename "$s").log" 2>&1; then pass=$((pass + 1)); else
      fail=$((fail + 1)); echo "coverage: $(basename "$s") failed (see $build/$(basename "$s").log)"; fi
  done
  report all || exit 1
fi
echo "coverage: HTML in $out/unit/index.html and $out/all/index.html; per file in coverage.txt"
[ "$fail" -eq 0 ]
