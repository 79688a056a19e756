#!/bin/sh
# test_check_citations.sh — check_citations.sh passes on the real tree and fails,
# naming file and line, on a planted citation of a file outside the repository.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
chk="$root/tests/layers/check_citations.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/citations.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
bad=0
out=$(sh "$chk" "$root/src" "$root/tests" "$root/web" 2>&1) || { echo "FAIL: the real tree: $out"; bad=1; }
mkdir -p "$tmp/src"
printf '/* ok: docs/style.md 7, ../shared/fixtures/x.json */\nint a;\n' > "$tmp/src/ok.c"
out=$(sh "$chk" "$tmp/src" 2>&1) || { echo "FAIL: docs/style.md and the fixtures flagged: $out"; bad=1; }
printf 'int b;\n/* see STYLE.md 13 */\n' > "$tmp/src/bad.c"
out=$(sh "$chk" "$tmp/src" 2>&1) && { echo "FAIL: STYLE.md not caught"; bad=1; }
printf '%s\n' "$out" | grep -q 'bad.c:2:' || { echo "FAIL: no file and line: $out"; bad=1; }
printf '# ../shared/DESIGN.md\n' > "$tmp/src/bad.sh"
rm "$tmp/src/bad.c"
out=$(sh "$chk" "$tmp/src" 2>&1) && { echo "FAIL: ../shared/DESIGN.md not caught"; bad=1; }
[ "$bad" -eq 0 ] && echo "test_check_citations: ok"
exit "$bad"
