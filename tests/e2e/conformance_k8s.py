"""conformance_k8s — spotsim through the official Kubernetes Python client
(Debian python3-kubernetes), run by e2e_conformance.sh with /usr/bin/python3.

Usage: conformance_k8s.py HTTPS_URL CA_FILE TOKEN NAMESPACE WATCH_SECONDS TRUTH_URL [MARK]
(MARK: a file created once the first list is done, so other clients start after it.)

1. /version through the client's VersionApi.
2. Watches the namespace's pods from a list's resourceVersion for WATCH_SECONDS
   (real), with watch=True as the client sends it, through the scenario's reclaim.
3. Lists nodes, pods, jobs, events and PodDisruptionBudgets (every object is
   deserialised into the client's models, so a missing required field or a
   malformed timestamp fails here).
4. Compares what the list + watch saw with spotsim's ground truth (GET TRUTH_URL,
   plain HTTP): every attempt's pod was seen; Running when it started; Succeeded
   when it succeeded; a DisruptionTarget condition when disrupted; DELETED when it
   was deleted before the end; resourceVersions strictly increase.
Prints one "FAIL: ..." line per failed check and exits 1 if any failed.
"""
import json
import sys
import urllib.request

from kubernetes import client, watch

URL, CA, TOKEN, NS, WATCH_SECONDS, TRUTH_URL = sys.argv[1:7]
MARK = sys.argv[7] if len(sys.argv) > 7 else None
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


cfg = client.Configuration()
cfg.host = URL
cfg.ssl_ca_cert = CA
cfg.api_key = {"authorization": TOKEN}
cfg.api_key_prefix = {"authorization": "Bearer"}
api = client.ApiClient(cfg)
core = client.CoreV1Api(api)
batch = client.BatchV1Api(api)
policy = client.PolicyV1Api(api)

try:
    v = client.VersionApi(api).get_code()
    if not v.git_version:
        fail("/version: no gitVersion")
except Exception as e:  # noqa: BLE001 - any client error is a failure to report
    fail("/version: %s" % str(e)[:300])

seen = {}  # pod name -> {"phases": set, "disrupted": bool, "deleted": bool}


def note(pod, deleted=False):
    s = seen.setdefault(pod.metadata.name, {"phases": set(), "disrupted": False, "deleted": False})
    if pod.status and pod.status.phase:
        s["phases"].add(pod.status.phase)
    for c in (pod.status.conditions or []) if pod.status else []:
        if c.type == "DisruptionTarget" and c.status == "True":
            s["disrupted"] = True
    if deleted:
        s["deleted"] = True


events = 0
try:
    lst = core.list_namespaced_pod(NS)
    for p in lst.items:
        note(p)
    last_rv = int(lst.metadata.resource_version)
    if MARK:
        open(MARK, "w").close()
    w = watch.Watch()
    for ev in w.stream(core.list_namespaced_pod, NS, resource_version=lst.metadata.resource_version,
                       timeout_seconds=int(WATCH_SECONDS)):
        events += 1
        obj = ev["object"]
        rv = int(obj.metadata.resource_version)
        if rv <= last_rv:
            fail("watch: resourceVersion %d after %d" % (rv, last_rv))
        last_rv = rv
        note(obj, deleted=ev["type"] == "DELETED")
except Exception as e:  # noqa: BLE001
    fail("watch pods: %s" % str(e)[:300])
if events == 0:
    fail("watch pods: no events in %s s through a reclaim" % WATCH_SECONDS)

for label, call in (
    ("nodes", lambda: core.list_node()),
    ("pods", lambda: core.list_pod_for_all_namespaces()),
    ("jobs", lambda: batch.list_job_for_all_namespaces()),
    ("events", lambda: core.list_event_for_all_namespaces()),
    ("poddisruptionbudgets", lambda: policy.list_pod_disruption_budget_for_all_namespaces()),
    ("pods (status.phase=Running)",
     lambda: core.list_pod_for_all_namespaces(field_selector="status.phase=Running")),
):
    try:
        items = call().items
        if label in ("nodes", "jobs", "events", "poddisruptionbudgets") and not items:
            fail("list %s: empty" % label)
        if label.startswith("pods (") and any(p.status.phase != "Running" for p in items):
            fail("list %s: a pod in another phase" % label)
    except Exception as e:  # noqa: BLE001
        fail("list %s: %s" % (label, str(e)[:300]))

with urllib.request.urlopen(TRUTH_URL, timeout=30) as r:
    truth = json.load(r)
for a in truth["attempts"]:
    name = a["pod"]
    s = seen.get(name)
    if s is None:
        fail("pod %s never seen" % name)
        continue
    if a["started_at"] and "Running" not in s["phases"] and a["outcome"] != "pending":
        fail("pod %s started at %s, never seen Running (%s)" % (name, a["started_at"],
                                                                sorted(s["phases"])))
    if a["outcome"] == "succeeded" and "Succeeded" not in s["phases"]:
        fail("pod %s succeeded, never seen Succeeded" % name)
    if a["disrupted_at"] and not s["disrupted"]:
        fail("pod %s disrupted at %s, no DisruptionTarget seen" % (name, a["disrupted_at"]))
    if a["deleted_at"] and not s["deleted"]:
        fail("pod %s deleted at %s, no DELETED seen" % (name, a["deleted_at"]))

print("conformance_k8s: %d watch events, %d pods seen, %d failure(s)" % (events, len(seen),
                                                                       len(failures)))
sys.exit(1 if failures else 0)
