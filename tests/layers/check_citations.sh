#!/bin/sh
# check_citations.sh DIR... — a source comment cites the project's own docs
# (docs/*.md, src/README.md), never a file outside the repository: fails, naming
# file and line, on a mention of STYLE.md, DESIGN.md or ../shared/ other than the
# fixtures the tests may read (../shared/fixtures, docs/style.md 19). tests/layers
# (this checker and its test, which plant such citations) is not read.
# Usage: tests/layers/check_citations.sh src tests web deploy docs README.md Makefile
#   (part of `make layers`)
set -u
[ $# -gt 0 ] || { echo "usage: check_citations.sh DIR..." >&2; exit 2; }
hits=$(grep -rnE --include='*.c' --include='*.h' --include='*.sh' --include='*.js' \
  --include='*.css' --include='*.html' --include='Makefile' --include='*.md' --include='*.yaml' \
  --exclude-dir=layers \
  '(^|[^/a-z])(STYLE|DESIGN)\.md|\.\./shared/[^f]' "$@" 2>/dev/null |
  grep -vE 'docs/(style|design)\.md')
if [ -n "$hits" ]; then
  printf '%s\n' "$hits" | sed 's/^/citations: outside the repository: /'
  exit 1
fi
echo "citations: ok"
