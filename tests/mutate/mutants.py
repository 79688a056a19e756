#!/usr/bin/env python3
"""make mutants: a small mutation check of src/engine and src/query.

Each mutant is one change to one line of a source file: a comparison flipped (< <= > >=
== !=), + and - swapped (also += -=), one clause of an && / || condition dropped, or a
returned value replaced (0, or 1 where it was 0/false/ERR_OK). Mutants are tried one at a
time in a scratch copy (tests/mutate/mutlib.py) against the unit tests that read these
layers, most likely killer first, stopping at the first failure:
    killed     a test failed          survived   every test passed
    timed out  a test ran past its bound (5 x its unmutated time, at least 20 s)
    stillborn  it does not compile or link: not counted in the score
The score is killed / (killed + survived + timed out). A survivor is either a missing test
or an equivalent mutant (no input can tell it apart); the report lists every survivor with
file:line so each can be answered.

Environment: MUTANTS_FILES (default: src/engine/*.c src/query/*.c, minus advice.c unless
MUTANTS_ADVICE=1), MUTANTS_MAX (default 400: beyond it an evenly spaced subset is tried),
MUTANTS_BUDGET seconds (default 1800: the rest is reported as not tried),
MUTANTS_TESTS (override the test list), MUTANTS_ORACLE_SEEDS (default 50 of test_oracle's
500 seeds per mutant), MUTANTS_ONLY ("file:line ...": only the mutants
of those lines, e.g. to retry a report's survivors), MUTANTS_SANITIZE (default "address,undefined": the
mutated file is compiled and the tests linked with these sanitizers, as make test runs the
unit binaries; "" turns it off; a kill the sanitizer reported says so). Report:
build/mutants/report.txt.
"""
import glob
import os
import re
import sys
import time

from mutlib import ROOT, Copy, die, log

TESTS = ["test_cost", "test_cost_v2", "test_cost_edges", "test_cost_util", "test_oracle",
         "test_api_cost", "test_api_tasks", "test_report", "test_store_do", "test_advice",
         "test_advice_jobs", "test_window", "test_respcache", "test_csv"]

OPTIONAL = {"test_oracle"}  # used when it passes on the unmutated tree

REL = [("<=", "<"), (">=", ">"), ("==", "!="), ("!=", "=="), ("<", "<="), (">", ">=")]


def masked(line):
    """The line with string/char literals and comments blanked (same length)."""
    out, i, n = list(line), 0, len(line)
    while i < n:
        c = line[i]
        if c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = "_"
            i = j + 1
        elif line.startswith("//", i) or line.startswith("/*", i):
            for k in range(i, n):
                out[k] = " "
            break
        else:
            i += 1
    return "".join(out)


def clause_end(m, start):
    """End index of the operand starting at start (paren depth 0 stops at && || ) ; , ?)."""
    depth, i = 0, start
    while i < len(m):
        c = m[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and (m.startswith("&&", i) or m.startswith("||", i) or c in ";,?"):
            return i
        i += 1
    return None  # the condition goes on to the next line: skip


def mutants_of_line(line):
    m = masked(line)
    s = m.strip()
    if not s or s.startswith("#") or s.startswith("*") or s.startswith("/*"):
        return []
    out = []
    # comparisons (not ->, <<, >>, <<=, >>=)
    for mo in re.finditer(r"(?<![<>=!\-])(<=|>=|==|!=|<|>)(?![<>=])", m):
        op = mo.group(1)
        if op == ">" and mo.start() > 0 and m[mo.start() - 1] == "-":
            continue
        for a, b in REL:
            if op == a:
                out.append(("%s -> %s" % (a, b), line[:mo.start()] + b + line[mo.end():]))
                break
    # binary + and - (clang-format puts spaces around them), += and -=
    for mo in re.finditer(r"(?<=\S) ([+-]) (?=\S)", m):
        b = "-" if mo.group(1) == "+" else "+"
        out.append(("%s -> %s" % (mo.group(1), b),
                    line[:mo.start(1)] + b + line[mo.end(1):]))
    for mo in re.finditer(r" ([+-])= ", m):
        b = "-" if mo.group(1) == "+" else "+"
        out.append(("%s= -> %s=" % (mo.group(1), b),
                    line[:mo.start(1)] + b + line[mo.end(1):]))
    # drop one clause of a condition: "a && b" -> "a"
    for mo in re.finditer(r" (&&|\|\|) ", m):
        end = clause_end(m, mo.end())
        if end is None:
            continue
        out.append(("drop '%s %s'" % (mo.group(1), line[mo.end():end].strip()[:40]),
                    line[:mo.start()] + line[end:]))
    # returned values
    mo = re.match(r"^(\s*return )(.+);\s*$", m)
    if mo and "?" not in mo.group(2):
        val = line[mo.start(2):mo.end(2)]
        if val in ("0", "false", "ERR_OK"):
            out.append(("return %s -> 1" % val, line[:mo.start(2)] + "1" + line[mo.end(2):]))
        elif val not in ("NULL", "rc", "r"):
            out.append(("return %s -> 0" % val[:40], line[:mo.start(2)] + "0" + line[mo.end(2):]))
    return out


def enumerate_mutants(files):
    muts = []
    for f in files:
        with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        in_comment = False
        for i, line in enumerate(lines):
            st = line.strip()
            if in_comment:
                if "*/" in st:
                    in_comment = False
                continue
            if st.startswith("/*") and "*/" not in st:
                in_comment = True
                continue
            if st.startswith("static const char") or "assert" in st:
                continue
            for desc, new in mutants_of_line(line):
                muts.append((f, i, desc, new))
    return muts


def main():
    files = os.environ.get("MUTANTS_FILES")
    if files:
        files = files.split()
    else:
        files = sorted(glob.glob("src/engine/*.c", root_dir=ROOT) +
                       glob.glob("src/query/*.c", root_dir=ROOT))
        if os.environ.get("MUTANTS_ADVICE") != "1":
            files = [f for f in files if not f.endswith("/advice.c")]
    budget = float(os.environ.get("MUTANTS_BUDGET", "1800"))
    # test_oracle's 500 seeds take minutes; each mutant runs the first 50 (ORACLE_SEEDS)
    os.environ.setdefault("ORACLE_SEEDS", os.environ.get("MUTANTS_ORACLE_SEEDS", "50"))
    cap = int(os.environ.get("MUTANTS_MAX", "400"))
    muts = enumerate_mutants(files)
    total = len(muts)
    only = os.environ.get("MUTANTS_ONLY")  # "file:line ..." (e.g. a report's survivors)
    if only:
        keep = set(only.split())
        muts = [m for m in muts if "%s:%d" % (m[0], m[1] + 1) in keep]
    if len(muts) > cap:
        step = len(muts) / cap
        muts = [muts[int(k * step)] for k in range(cap)]
    cp = Copy()
    t_start = time.monotonic()
    try:
        tests = cp.existing(os.environ.get("MUTANTS_TESTS", " ".join(TESTS)).split())
        log("mutants: %d mutants in %s; trying %d, budget %d s; tests: %s" %
            (total, " ".join(files), len(muts), budget, " ".join(tests)))
        if not cp.build(tests):
            die("mutants: the unmodified copy does not build:\n" + cp.last_build_log[-3000:])
        cp.fast_setup(tests)
        # the baseline runs with the sanitizer runtime linked in, as every mutant will
        if not cp.relink(tests):
            die("mutants: the unmodified copy does not link:\n" + cp.last_build_log[-3000:])
        bound = {}
        for t in list(tests):
            t0 = time.monotonic()
            if cp.run(t, 600) != "pass":
                if t in OPTIONAL:  # skipped if it fails unmutated (docs/oracle.md)
                    log("mutants: %s fails without a mutant: left out" % t)
                    tests.remove(t)
                    continue
                die("mutants: %s fails without a mutant:\n%s" % (t, cp.last_run_log[-3000:]))
            bound[t] = max(20.0, 5 * (time.monotonic() - t0))
        res = {}  # file -> counts
        survivors, timeouts = [], []
        tried = 0
        for f, i, desc, new in muts:
            if time.monotonic() - t_start > budget:
                break
            tried += 1
            c = res.setdefault(f, {"killed": 0, "survived": 0, "timeout": 0, "stillborn": 0})
            text = cp.read(f)
            lines = text.split("\n")
            old = lines[i]
            lines[i] = new
            cp.write(f, "\n".join(lines))
            verdict, by = "survived", ""
            # the first test alone first: most mutants die there, without linking the rest
            if not cp.fast_build(f, tests[:1]):
                verdict = "stillborn"
            else:
                for k, t in enumerate(tests):
                    if k == 1 and not cp.fast_build(f, tests[1:]):
                        verdict = "stillborn"
                        break
                    r = cp.run(t, bound[t])
                    if r != "pass":
                        verdict, by = ("killed" if r == "fail" else "timeout"), t
                        if r == "fail" and cp.sanitizer_report():
                            by += ", sanitizer"
                        break
            cp.write(f, text)
            # back to the unmutated object and binaries (only the first test was relinked
            # when it killed the mutant)
            first = by.split(",")[0] == tests[0]
            relinked = tests[:1] if verdict in ("killed", "timeout") and first else tests
            if not cp.fast_build(f, relinked):
                die("mutants: the unmutated source no longer builds:\n" + cp.last_build_log[-3000:])
            c[verdict] += 1
            where = "%s:%d" % (f, i + 1)
            if verdict == "survived":
                survivors.append("%s  %s\n      %s\n   -> %s" % (where, desc, old.strip(),
                                                              new.strip()))
            elif verdict == "timeout":
                timeouts.append("%s  %s (%s)" % (where, desc, by))
            log("mutants: %4d/%d %-9s %s %s%s" % (tried, len(muts), verdict, where, desc,
                                                  " (" + by + ")" if by else ""))
        lines = ["mutants: %d generated in %s, %d tried in %.0f s (budget %d s)%s" %
                 (total, " ".join(files), tried, time.monotonic() - t_start, budget,
                  ", %d not tried" % (len(muts) - tried) if tried < len(muts) else ""),
                 "tests: " + " ".join(tests),
                 "%-28s %7s %8s %9s %9s %6s" % ("file", "killed", "survived", "timed out",
                                               "stillborn", "score")]
        agg = {"killed": 0, "survived": 0, "timeout": 0, "stillborn": 0}
        groups = {"cost engine (cost*.c)": dict(agg), "all": dict(agg)}
        for f in sorted(res):
            c = res[f]
            for k in agg:
                groups["all"][k] += c[k]
                if os.path.basename(f).startswith("cost"):
                    groups["cost engine (cost*.c)"][k] += c[k]
            lines.append(row(f, c))
        for g, c in groups.items():
            lines.append(row(g, c))
        lines.append("survivors (%d):" % len(survivors))
        lines += ["  " + s for s in survivors]
        if timeouts:
            lines.append("timed out (%d):" % len(timeouts))
            lines += ["  " + s for s in timeouts]
        report = "\n".join(lines) + "\n"
        os.makedirs(os.path.join(ROOT, "build", "mutants"), exist_ok=True)
        with open(os.path.join(ROOT, "build", "mutants", "report.txt"), "w") as fh:
            fh.write(report)
        print(report, end="")
        print("mutants: report in build/mutants/report.txt")
        return 0
    finally:
        cp.close()


def row(name, c):
    n = c["killed"] + c["survived"] + c["timeout"]
    score = "%5.1f%%" % (100.0 * c["killed"] / n) if n else "   -"
    return "%-28s %7d %8d %9d %9d %6s" % (name, c["killed"], c["survived"], c["timeout"],
                                         c["stillborn"], score)


if __name__ == "__main__":
    sys.exit(main())
