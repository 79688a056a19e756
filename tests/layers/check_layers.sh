#!/bin/sh
# check_layers.sh — `make layers`: every #include "dir/x.h" under src/ must go to a
# folder the table in src/layers.txt allows (src/README.md explains the layers).
#
#   order A B C ...      folders lowest first; a file may include its own folder and
#                        any folder listed before it
#   uses  F A B ...      folder F (outside the order) may include only A B ... and F
#   top   FILE ...       files directly under src/ that may include anything (wiring)
#   allow FILE HDR why   one known wrong arrow: FILE may include HDR (a reason is required)
#   cycle A B why        folders A and B are known to include each other (reason required)
#
# Fails, naming file and line, on: an include the table forbids, an include of an
# unknown folder, a file directly under src/ not listed as top, two folders that
# include each other (unless listed as cycle), and an allow/cycle line that no longer
# matches anything (so the exception list shrinks as arrows are fixed).
# Usage: tests/layers/check_layers.sh [SRC_DIR [LAYERS_FILE]]   (default: src, src/layers.txt)
set -u
src=${1:-src}
table=${2:-$src/layers.txt}
[ -d "$src" ] || { echo "layers: no directory $src" >&2; exit 2; }
[ -f "$table" ] || { echo "layers: no table $table" >&2; exit 2; }

# One line per quoted include: FILE<TAB>LINE<TAB>HEADER (FILE relative to src/).
incs=$( cd "$src" && find . -type f \( -name '*.c' -o -name '*.h' \) | sed 's|^\./||' | LC_ALL=C sort |
  while IFS= read -r f; do
    awk -v f="$f" '/^[ \t]*#[ \t]*include[ \t]*"/ {
        s = $0; sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); printf "%s\t%d\t%s\n", f, FNR, s }' "$f"
  done )

printf '%s\n' "$incs" | awk -F '\t' -v table="$table" '
function fail(msg) { print "layers: " msg; bad++ }
BEGIN {
    while ((getline line < table) > 0) {
        ln++
        sub(/#.*/, "", line)
        n = split(line, w, /[ \t]+/)
        if (n == 0 || (n == 1 && w[1] == "")) continue
        if (w[1] == "") { for (i = 1; i < n; i++) w[i] = w[i + 1]; n-- }
        if (w[1] == "order") {
            for (i = 2; i <= n; i++) { rank[w[i]] = i - 1; known[w[i]] = 1 }
        } else if (w[1] == "uses") {
            known[w[2]] = 1; outside[w[2]] = 1
            for (i = 3; i <= n; i++) may[w[2], w[i]] = 1
        } else if (w[1] == "top") {
            for (i = 2; i <= n; i++) top[w[i]] = 1
        } else if (w[1] == "allow") {
            if (n < 4) { fail(table ":" ln ": allow needs FILE HEADER REASON"); continue }
            allow[w[2], w[3]] = ln; allowed_n++
        } else if (w[1] == "cycle") {
            if (n < 4) { fail(table ":" ln ": cycle needs FOLDER FOLDER REASON"); continue }
            cyc[w[2], w[3]] = ln; cyc[w[3], w[2]] = ln
        } else fail(table ":" ln ": unknown keyword " w[1])
    }
}
NF == 3 {
    file = $1; line = $2; hdr = $3
    nf = split(file, fp, "/"); from = (nf > 1) ? fp[1] : ""
    to = (index(hdr, "/") > 0) ? substr(hdr, 1, index(hdr, "/") - 1) : from
    where = "src/" file ":" line ": #include \"" hdr "\""
    if (from != "" && to != from) edge[from, to] = edge[from, to] ? edge[from, to] : where
    msg = ""
    if (from == "") {
        if (!(file in top)) msg = "src/" file " is not listed as top in " table
    } else if (to == from) {
        msg = ""
    } else if (!(from in known)) {
        msg = "folder " from "/ is not in " table
    } else if (!(to in known)) {
        msg = "folder " to "/ is not in " table
    } else if (from in outside) {
        if (!((from, to) in may)) msg = from "/ may not include " to "/ (uses line in " table ")"
    } else if (to in outside) {
        msg = from "/ may not include " to "/"
    } else if (rank[to] > rank[from]) {
        msg = "upward include, " from "/ is below " to "/ in the layer order"
    }
    if (msg == "") next
    if ((file, hdr) in allow) { used[file, hdr] = 1; next }
    fail(where ": " msg)
}
END {
    for (k in edge) {
        split(k, p, SUBSEP)
        if (p[1] < p[2] && ((p[2], p[1]) in edge)) {
            if ((p[1], p[2]) in cyc) { cycused[p[1], p[2]] = 1; cycused[p[2], p[1]] = 1; continue }
            fail("cycle: " p[1] "/ and " p[2] "/ include each other: " edge[p[1], p[2]] " and " \
                 edge[p[2], p[1]])
        }
    }
    for (k in allow)
        if (!(k in used)) { split(k, p, SUBSEP); fail(table ":" allow[k] ": stale allow, src/" p[1] " no longer includes " p[2]) }
    for (k in cyc)
        if (!(k in cycused)) { split(k, p, SUBSEP); if (p[1] < p[2]) fail(table ":" cyc[k] ": stale cycle, " p[1] "/ and " p[2] "/ no longer include each other") }
    if (bad) { print "layers: FAILED (" bad " problem(s); the table is " table ")"; exit 1 }
    printf "layers: ok (%d includes checked, %d known exception(s))\n", NR, allowed_n
}'
