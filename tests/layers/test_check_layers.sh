#!/bin/sh
# test_check_layers.sh — the layer checker fails on what it must catch, naming file
# and line, and passes on the real tree. Runs in a temporary directory (removed on exit).
# Usage: tests/layers/test_check_layers.sh   (from the repository root; part of `make layers`)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
chk="$root/tests/layers/check_layers.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/layers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
n=0; bad=0

# expect WANT(0|1) PATTERN SRC [TABLE]: the checker's exit status and a line of its output
expect() {
  want=$1; pat=$2; shift 2
  n=$((n + 1))
  out=$(sh "$chk" "$@" 2>&1); rc=$?
  [ "$rc" -ne 0 ] && rc=1
  if [ "$rc" -ne "$want" ] || ! printf '%s\n' "$out" | grep -q -- "$pat"; then
    echo "FAIL: case $n: wanted exit $want and '$pat', got exit $rc:"; printf '%s\n' "$out"
    bad=$((bad + 1))
  fi
}

# 1. the real tree passes
expect 0 'layers: ok' "$root/src"

# 2. a planted upward include in a copy of the real tree fails with file and line
cp -R "$root/src" "$tmp/real"
lines=$(wc -l < "$tmp/real/base/money.c")
printf '#include "http/router.h"\n' >> "$tmp/real/base/money.c"
expect 1 "src/base/money.c:$((lines + 1)): #include \"http/router.h\": upward include" "$tmp/real"

# a small synthetic tree for the other rules
mk() { mkdir -p "$(dirname "$tmp/$1")"; printf '%s\n' "$2" > "$tmp/$1"; }
table='order base engine store http
uses sim base
top main.c'
mk t/layers.txt "$table"
mk t/base/a.h '#include <stdio.h>'
mk t/engine/e.c '#include "base/a.h"
#include "e.h"'
mk t/store/s.c '#include "engine/e.h"'
mk t/http/h.c '#include "store/s.h"'
mk t/sim/x.c '#include "base/a.h"'
mk t/main.c '#include "http/h.h"'
expect 0 'layers: ok' "$tmp/t"

# 3. sim may include only what its uses line names
cp -R "$tmp/t" "$tmp/t3"; printf '#include "engine/e.h"\n' >> "$tmp/t3/sim/x.c"
expect 1 'src/sim/x.c:2: #include "engine/e.h": sim/ may not include engine/' "$tmp/t3"

# 4. a lower folder may not include sim
cp -R "$tmp/t" "$tmp/t4"; printf '#include "sim/x.h"\n' >> "$tmp/t4/http/h.c"
expect 1 'src/http/h.c:2: #include "sim/x.h": http/ may not include sim/' "$tmp/t4"

# 5. an unknown folder and an unlisted top-level file fail
cp -R "$tmp/t" "$tmp/t5"; printf '#include "misc/m.h"\n' >> "$tmp/t5/store/s.c"
expect 1 'folder misc/ is not in' "$tmp/t5"
cp -R "$tmp/t" "$tmp/t5b"; mk t5b/app.c '#include "base/a.h"'
expect 1 'src/app.c:1: .*not listed as top' "$tmp/t5b"

# 6. an allow line admits exactly one wrong arrow; a cycle fails unless listed
cp -R "$tmp/t" "$tmp/t6"; printf '#include "http/h.h"\n' >> "$tmp/t6/store/s.c"
printf '%s\nallow store/s.c http/h.h test reason\n' "$table" > "$tmp/t6/layers.txt"
expect 1 'cycle: http/ and store/ include each other' "$tmp/t6"
printf '%s\nallow store/s.c http/h.h test reason\ncycle store http test reason\n' "$table" > "$tmp/t6/layers.txt"
expect 0 'layers: ok' "$tmp/t6"
printf '#include "http/h.h"\n' >> "$tmp/t6/engine/e.c"
expect 1 'src/engine/e.c:3: #include "http/h.h": upward include' "$tmp/t6"

# 7. a stale allow or cycle line fails (the exception list only shrinks)
printf '%s\nallow store/s.c http/h.h test reason\n' "$table" > "$tmp/t/layers.txt"
expect 1 'stale allow, src/store/s.c no longer includes http/h.h' "$tmp/t"
printf '%s\ncycle store http test reason\n' "$table" > "$tmp/t/layers.txt"
expect 1 'stale cycle, http/ and store/' "$tmp/t"
printf '%s\nallow store/s.c\n' "$table" > "$tmp/t/layers.txt"
expect 1 'allow needs FILE HEADER REASON' "$tmp/t"

if [ "$bad" -ne 0 ]; then echo "test_check_layers: $bad of $n case(s) FAILED"; exit 1; fi
echo "test_check_layers: $n cases ok"
