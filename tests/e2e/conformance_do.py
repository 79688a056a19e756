"""conformance_do — every DigitalOcean path spotsim serves, checked the way a real
client would see it (run by e2e_conformance.sh with /usr/bin/python3).

Usage: conformance_do.py BASE_URL TOKEN SCHEMA_DIR|- CLUSTER_ID

- each 200 body validates against the JSON Schema DigitalOcean's own spec gives
  for that path (SCHEMA_DIR/index.json; "-" skips this part with a message);
- each 401 body validates against the error schema and still carries the
  rate-limit headers;
- ratelimit-reset is a real epoch second within the next hour;
- request_id differs between two errors;
- invoice items bill in hours with two-decimal amounts (DigitalOcean's
  examples: "744", "Hours", "12.34");
- node pools are one unpaginated list (per_page does not split them).
Prints one "FAIL: ..." line per failed check and exits 1 if any failed.
"""
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

BASE, TOKEN, SCHEMAS, CLUSTER = sys.argv[1:5]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def get(path, token=TOKEN):
    req = urllib.request.Request(BASE + path)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict((k.lower(), v) for k, v in r.headers.items()), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict((k.lower(), v) for k, v in e.headers.items()), e.read()


validator = None
index = None
if SCHEMAS != "-" and os.path.isfile(os.path.join(SCHEMAS, "index.json")):
    import jsonschema

    with open(os.path.join(SCHEMAS, "index.json")) as f:
        index = json.load(f)

    def validator(spec_path, status, body, label):
        name = index.get(spec_path, {}).get(str(status))
        if not name:
            fail("%s: no schema for %s %s" % (label, spec_path, status))
            return
        with open(os.path.join(SCHEMAS, name)) as f:
            schema = json.load(f)
        try:
            jsonschema.validate(body, schema)
        except jsonschema.ValidationError as e:
            fail("%s: does not validate against %s: %s at %s" % (
                label, name, e.message[:200], "/".join(str(p) for p in e.absolute_path)))
else:
    print("SKIP: DigitalOcean schemas absent (../shared/fixtures/do/schemas); schema checks skipped")

# ids the concrete paths need
st, _, body = get("/v2/account")
account = json.loads(body) if st == 200 else {}
team = account.get("account", {}).get("team", {}).get("uuid", CLUSTER)
st, _, body = get("/v2/kubernetes/clusters/%s/node_pools" % CLUSTER)
pools = json.loads(body).get("node_pools", []) if st == 200 else []
pool_id = pools[0]["id"] if pools else "none"
st, _, body = get("/v2/customers/my/invoices")
inv = json.loads(body) if st == 200 else {}
uuids = [i["invoice_uuid"] for i in inv.get("invoices", [])]
if inv.get("invoice_preview"):
    uuids.append(inv["invoice_preview"]["invoice_uuid"])
inv_uuid = uuids[0] if uuids else "00000000-0000-4000-8000-000000000000"
st, _, body = get("/v2/droplets?type=gpus")
droplets = json.loads(body).get("droplets", []) if st == 200 else []
droplet_id = str(droplets[0]["id"]) if droplets else "1"

paths = [
    ("/v2/sizes", "/v2/sizes"),
    ("/v2/account", "/v2/account"),
    ("/v2/kubernetes/clusters", "/v2/kubernetes/clusters"),
    ("/v2/kubernetes/clusters/{cluster_id}", "/v2/kubernetes/clusters/" + CLUSTER),
    ("/v2/kubernetes/clusters/{cluster_id}/node_pools",
     "/v2/kubernetes/clusters/%s/node_pools" % CLUSTER),
    ("/v2/kubernetes/clusters/{cluster_id}/node_pools/{node_pool_id}",
     "/v2/kubernetes/clusters/%s/node_pools/%s" % (CLUSTER, pool_id)),
    ("/v2/kubernetes/options", "/v2/kubernetes/options"),
    ("/v2/droplets", "/v2/droplets"),
    ("/v2/droplets", "/v2/droplets?type=gpus"),
    ("/v2/droplets/{droplet_id}", "/v2/droplets/" + droplet_id),
    ("/v2/customers/my/balance", "/v2/customers/my/balance"),
    ("/v2/customers/my/billing_history", "/v2/customers/my/billing_history"),
    ("/v2/customers/my/invoices", "/v2/customers/my/invoices"),
    ("/v2/customers/my/invoices/{invoice_uuid}", "/v2/customers/my/invoices/" + inv_uuid),
    ("/v2/customers/my/invoices/{invoice_uuid}/summary",
     "/v2/customers/my/invoices/%s/summary" % inv_uuid),
    ("/v2/billing/{account_urn}/insights/{start_date}/{end_date}",
     "/v2/billing/do:team:%s/insights/2026-11-01/2026-11-30" % team),
]
for spec, path in paths:
    st, hdr, body = get(path)
    if st != 200:
        fail("%s: status %d (%s)" % (path, st, body[:120]))
        continue
    try:
        doc = json.loads(body)
    except ValueError:
        fail("%s: not JSON" % path)
        continue
    if validator:
        validator(spec, 200, doc, path)
    if "ratelimit-limit" not in hdr:
        fail("%s: no ratelimit-limit header" % path)
    st, hdr, body = get(path, token=None)
    if st != 401:
        fail("%s without a token: status %d" % (path, st))
        continue
    if validator:
        validator(spec, 401, json.loads(body), path + " (401)")
    for h in ("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"):
        if h not in hdr:
            fail("%s: a 401 carries no %s header" % (path, h))

# ratelimit-reset: real epoch seconds, within the next hour
st, hdr, _ = get("/v2/sizes")
now = time.time()
try:
    reset = int(hdr.get("ratelimit-reset", "0"))
except ValueError:
    reset = 0
if not now - 5 <= reset <= now + 3600 + 5:
    fail("ratelimit-reset %d is not a real epoch second within the next hour (now %d)" % (reset, now))

# distinct request ids
ids = set()
for _ in range(3):
    st, _, body = get("/v2/no-such-thing")
    try:
        ids.add(json.loads(body).get("request_id"))
    except ValueError:
        pass
if len(ids) != 3:
    fail("three errors carry %d distinct request_id(s)" % len(ids))

# invoices: hours and cents
checked = 0
for u in uuids:
    st, _, body = get("/v2/customers/my/invoices/%s?per_page=200" % u)
    if st != 200:
        fail("invoice %s: status %d" % (u, st))
        continue
    for it in json.loads(body).get("invoice_items", []):
        checked += 1
        if it.get("duration_unit") != "Hours" or not re.fullmatch(r"[0-9]+", it.get("duration", "")):
            fail("invoice item duration %r %r, want whole hours, unit \"Hours\"" % (
                it.get("duration"), it.get("duration_unit")))
            break
        if not re.fullmatch(r"-?[0-9]+\.[0-9]{2}", it.get("amount", "")):
            fail("invoice item amount %r is not dollars with two decimals" % it.get("amount"))
            break
for key in ("amount",):
    for i in inv.get("invoices", []) + ([inv["invoice_preview"]] if inv.get("invoice_preview") else []):
        if not re.fullmatch(r"-?[0-9]+\.[0-9]{2}", i.get(key, "")):
            fail("invoice %s amount %r is not two decimals" % (i.get("invoice_uuid"), i.get(key)))
if checked == 0:
    fail("no invoice items to check")

# node pools: one page whatever per_page says
st, _, body = get("/v2/kubernetes/clusters/%s/node_pools?per_page=1" % CLUSTER)
got = json.loads(body).get("node_pools", []) if st == 200 else []
if len(pools) < 2 or len(got) != len(pools):
    fail("node_pools with per_page=1 returned %d of %d pools (the real endpoint is not paginated)" % (
        len(got), len(pools)))

print("conformance_do: %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
