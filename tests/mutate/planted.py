#!/usr/bin/env python3
"""make planted: every bug below, planted alone in a scratch copy, fails at least one unit
test that make test runs. Prints, per bug, the tests that caught it; exits 1 when a bug is
caught by none of them, no longer applies (the code moved: update the bug), or a catching
test fails without any bug.

Each bug is one exact text replacement in one file ("old" must occur exactly once).
"""
import sys

from mutlib import Copy, die, log

BUGS = [
    {
        "name": "restore-time sample ignores the reported restore_seconds (issue 24)",
        "file": "src/engine/cost.c",
        "old": "int64_t sample = max64(0, resumed - lost) + max64(0, na->restore_seconds);",
        "new": "int64_t sample = max64(0, resumed - lost) + 0 * max64(0, na->restore_seconds);",
        "tests": ["test_cost", "test_api_cost"],
    },
    {
        "name": "cost: an attempt's allocated seconds not clipped to the window's start",
        "file": "src/engine/cost.c",
        "old": "int64_t secs = billing_overlap(rt->s, rt->e, max64(s, q->from), min64(e, q->to));",
        "new": "int64_t secs = billing_overlap(rt->s, rt->e, s, min64(e, q->to));",
        "tests": ["test_cost", "test_api_cost"],
    },
    {
        "name": "reconcile: difference taken as estimated - billed",
        "file": "src/engine/reconcile.c",
        "old": "l->diff = l->billed - l->estimated;",
        "new": "l->diff = l->estimated - l->billed;",
        "tests": ["test_store_do", "test_api_tasks"],
    },
    {
        "name": "store: a node's Ready time read from its creation column",
        "file": "src/store/store_cost.c",
        "old": "n->ready_at = col_time(st, 4);",
        "new": "n->ready_at = col_time(st, 3);",
        "tests": ["test_store", "test_api_cost", "test_api_tasks"],
    },
    {
        "name": "store: a failed poll's Date moves the source clock",
        "file": "src/store/store_read.c",
        "old": "\"SELECT max(source_time) FROM poll_runs WHERE status = 'ok' AND source_time IS NOT NULL\"",
        "new": "\"SELECT max(source_time) FROM poll_runs WHERE source_time IS NOT NULL\"",
        "tests": ["test_store", "test_api_tasks"],
    },
    {
        "name": "API: status lag measured from the last poll, failed or not",
        "file": "src/http/api_status.c",
        "old": "jsonw_int(w, now - ok.finished_at);",
        "new": "jsonw_int(w, now - last.finished_at);",
        "tests": ["test_api_tasks", "test_server"],
    },
    {
        "name": "API: the tasks cursor repeats the last row of the previous page",
        "file": "src/http/api_tasks.c",
        "old": "if (desc ? cmp < 0 : cmp > 0)",
        "new": "if (desc ? cmp <= 0 : cmp >= 0)",
        "tests": ["test_api_tasks"],
    },
]


def main():
    cp = Copy()
    try:
        every = sorted({t for b in BUGS for t in cp.existing(b["tests"])})
        log("planted: baseline build of %s" % " ".join(every))
        if not cp.build(every):
            die("planted: the unmodified copy does not build:\n" + cp.last_build_log[-3000:])
        for t in every:
            if cp.run(t, 300) != "pass":
                die("planted: %s fails without any bug:\n%s" % (t, cp.last_run_log[-3000:]))
        bad = 0
        for b in BUGS:
            text = cp.read(b["file"])
            n = text.count(b["old"])
            if n != 1:
                log("planted: NOT APPLIED (%d matches) %s — %s" % (n, b["file"], b["name"]))
                bad += 1
                continue
            cp.write(b["file"], text.replace(b["old"], b["new"]))
            tests = cp.existing(b["tests"])
            caught = []
            if cp.build(tests):
                caught = [t for t in tests if cp.run(t, 300) != "pass"]
            else:
                log("planted: does not compile: " + b["name"])
            cp.write(b["file"], text)
            if caught:
                log("planted: caught by %-28s %s (%s)" % (", ".join(caught), b["name"], b["file"]))
            else:
                log("planted: NOT CAUGHT  %s (%s)" % (b["name"], b["file"]))
                bad += 1
        log("planted: %d of %d bugs caught" % (len(BUGS) - bad, len(BUGS)))
        return 1 if bad else 0
    finally:
        cp.close()


if __name__ == "__main__":
    sys.exit(main())
