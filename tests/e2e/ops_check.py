#!/usr/bin/python3
"""ops_check.py - checks deploy/'s operations kit against what spotledger exports.

  ops_check.py SCHEMA DASHBOARD RULES SCRAPE

1. DASHBOARD (Grafana JSON) validates against SCHEMA (JSON Schema draft 7), panel
   ids are unique, refIds unique within a panel, panels do not overlap;
2. every PromQL expression (dashboard targets, template variable queries, RULES'
   alert expressions) names only metrics present in SCRAPE (a /metrics body):
   metric names are the identifiers left once strings, label matchers, ranges,
   grouping clauses, function calls and keywords are taken out.
Prints one line per problem and exits 1 on any; needs python3-jsonschema and
python3-yaml (Makefile TEST_PACKAGES).
"""
import json
import re
import sys

import jsonschema
import yaml

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
            "unless", "bool", "offset", "inf", "nan", "time", "label_values"}


def metric_names(expr):
    lv = re.fullmatch(r"\s*label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*", expr)
    if lv:                                                    # a Grafana variable query
        expr = lv.group(1)
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)          # strings
    e = re.sub(r"\{[^}]*\}", " ", e)                         # label matchers
    e = re.sub(r"\[[^\]]*\]", " ", e)                        # ranges
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    e = re.sub(r"\$\w+", " ", e)                             # dashboard variables
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", e):
        word = m.group(0)
        after = e[m.end():].lstrip()
        if after.startswith("(") or word in KEYWORDS:
            continue                                          # a function or a keyword
        if m.start() > 0 and (e[m.start() - 1].isdigit() or e[m.start() - 1] == "."):
            continue                                          # 1e3, 5m
        names.add(word)
    return names


def scraped(path):
    names = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            names.add(re.match(r"[A-Za-z_:][A-Za-z0-9_:]*", line).group(0))
    return names


def overlap(a, b):
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"] and
            a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    schema_path, dash_path, rules_path, scrape_path = sys.argv[1:]
    problems = []
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    with open(dash_path, encoding="utf-8") as f:
        dash = json.load(f)
    for err in jsonschema.Draft7Validator(schema).iter_errors(dash):
        problems.append("%s: schema: %s at /%s" % (dash_path, err.message,
                                                   "/".join(str(p) for p in err.path)))
    exported = scraped(scrape_path)
    exprs = []
    panels = dash.get("panels", []) if isinstance(dash, dict) else []
    ids = [p.get("id") for p in panels]
    if len(ids) != len(set(ids)):
        problems.append("%s: panel ids are not unique: %s" % (dash_path, ids))
    for i, p in enumerate(panels):
        refs = [t.get("refId") for t in p.get("targets", [])]
        if len(refs) != len(set(refs)):
            problems.append("%s: panel %r: refIds are not unique" % (dash_path, p.get("title")))
        for t in p.get("targets", []):
            exprs.append(("panel %r" % p.get("title"), t.get("expr", "")))
        for q in panels[:i]:
            if "gridPos" in p and "gridPos" in q and overlap(p["gridPos"], q["gridPos"]):
                problems.append("%s: panels %r and %r overlap" % (dash_path, q.get("title"),
                                                                 p.get("title")))
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        q = q.get("query", "") if isinstance(q, dict) else (q or "")
        exprs.append(("variable %r" % v.get("name"), q))
    with open(rules_path, encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    n_alerts = 0
    for g in rules.get("groups", []):
        for r in g.get("rules", []):
            n_alerts += 1
            exprs.append(("alert %r" % r.get("alert", r.get("record")), r.get("expr", "")))
    for where, e in exprs:
        names = metric_names(e)
        if not names:
            problems.append("%s: %s reads no metric: %r" % (dash_path, where, e))
        for n in sorted(names - exported):
            problems.append("%s: metric %s is not in the /metrics scrape" % (where, n))
    for p in problems:
        print("ops_check: " + p)
    print("ops_check: %d panels, %d alert rules, %d expressions over %d exported metric names: %s"
          % (len(panels), n_alerts, len(exprs), len(exported),
             "ok" if not problems else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
