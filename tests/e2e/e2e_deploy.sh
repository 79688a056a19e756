#!/bin/sh
# e2e_deploy — offline checks of deploy/: every manifest parses, the ClusterRole
# grants only get/list/watch on jobs (batch) and pods, nodes, events (core), the
# Deployment's required node affinity refuses Spot nodes and accepts the system
# pool (evaluated like the scheduler does, against node label sets), its pod is
# hardened, the example Job has the fallback pattern and its SIGTERM handler
# really writes the task report, the container HEALTHCHECK really probes the
# built spotledger's /healthz, the Dockerfile and systemd unit have their
# hardening. No network beyond loopback, no cluster, no docker engine.
#
# Required tools: jq, yq (Debian package yq: YAML -> JSON through python3-yaml),
# bash. Optional: kubectl (renders the kustomization: secretGenerator names,
# namespace), systemd-analyze (verifies the unit). Missing required tools fail.
set -u
root=${SPOTLEDGER_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${SPOTLEDGER_BIN:-$root/spotledger}
d=$root/deploy
k=$d/kubernetes
fails=0
checks=0
tmp=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ok() { checks=$((checks + 1)); echo "  ok   $1"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "  FAIL $1"; }
# check NAME COMMAND...: passes when COMMAND exits 0
check() {
  name=$1
  shift
  if "$@" >"$tmp/out" 2>&1; then ok "$name"; else bad "$name"; sed 's/^/       /' "$tmp/out" | head -20; fi
}

for t in jq yq bash; do
  if ! command -v "$t" >/dev/null 2>&1; then
    echo "e2e_deploy: required tool '$t' is missing (Debian packages jq, yq, bash: add them to make deps)" >&2
    exit 1
  fi
done

# y2j FILE: every YAML document of FILE as one JSON array (empty documents dropped)
y2j() { yq -s 'map(select(. != null))' "$1"; }

echo "== manifests parse"
for f in "$k"/*.yaml "$d"/examples/*.yaml; do
  rel=${f#"$root"/}
  if y2j "$f" >"$tmp/doc.json" 2>"$tmp/err" &&
    jq -e 'length > 0 and all(.[]; (.apiVersion | type) == "string" and (.kind | type) == "string")' "$tmp/doc.json" >/dev/null; then
    ok "$rel parses (apiVersion, kind on every document)"
  else
    bad "$rel does not parse as Kubernetes YAML"
    sed 's/^/       /' "$tmp/err" | head -5
  fi
done

# all base objects as one array
for f in "$k"/*.yaml; do
  case $(basename "$f") in kustomization.yaml | placeholders.yaml) continue ;; esac
  y2j "$f"
done | jq -s 'add' >"$tmp/base.json"
y2j "$k/kustomization.yaml" | jq '.[0]' >"$tmp/kust.json"
# the base as a user fills it in (its header names the steps): the placeholders
# line deleted, the generator block between BEGIN and END uncommented
fill() {
  sed -e '/^  - placeholders\.yaml$/d' -e '/^# --- BEGIN/,/^# --- END/{/^# ---/!s/^# \{0,1\}//}' "$1"
}
fill "$k/kustomization.yaml" >"$tmp/kust-filled.yaml"
y2j "$tmp/kust-filled.yaml" | jq '.[0]' >"$tmp/kust-filled.json"

echo "== kustomization"
check "kustomization lists every manifest in deploy/kubernetes, and only existing ones" sh -c '
  listed=$(jq -r ".resources[]" "$1" | sort)
  present=$(cd "$2" && ls *.yaml | grep -v "^kustomization.yaml$" | sort)
  [ "$listed" = "$present" ] || { echo "listed: $listed"; echo "present: $present"; exit 1; }' sh "$tmp/kust.json" "$k"
check "kinds: Namespace, ServiceAccount, ClusterRole, ClusterRoleBinding, PVC, Deployment, Service" \
  jq -e '[.[].kind] | sort == ["ClusterRole","ClusterRoleBinding","Deployment","Namespace","PersistentVolumeClaim","Service","ServiceAccount"]' "$tmp/base.json"
check "filled in: secrets come from secretGenerator files (do-token; api-token + admin-token), none committed" \
  jq -e '([.secretGenerator[] | {(.name): [.files[]]}] | add ==
    {"spotledger-do-token": ["do-token=secrets/do-token"],
     "spotledger-api-tokens": ["api-token=secrets/api-token", "admin-token=secrets/admin-token"]})
    and (.resources | index("placeholders.yaml") == null)' "$tmp/kust-filled.json"
check "fresh clone: no generator needs a file; placeholders.yaml stands in, every key the API server would reject says NOT CONFIGURED" \
  sh -c 'jq -e ".secretGenerator == null and .configMapGenerator == null and (.resources | index(\"placeholders.yaml\") != null)" "$1" >/dev/null &&
    yq -s "." "$2" | jq -e "length == 3 and all(.[]; [(.data // .stringData) | keys[] | select(test(\"^[-._a-zA-Z0-9]+\$\") | not)] as \$bad
      | (\$bad | length) == 1 and (\$bad[0] | startswith(\"NOT CONFIGURED\")))" >/dev/null' sh "$tmp/kust.json" "$k/placeholders.yaml"
check "the DO token's scopes billing:read kubernetes:read sizes:read are named (kustomization, README)" \
  sh -c 'for s in billing:read kubernetes:read sizes:read; do grep -q "$s" "$1/kustomization.yaml" && grep -q "$s" "$1/README.md" || { echo "missing $s"; exit 1; }; done' sh "$k"
check "no token file is tracked by git under deploy/" \
  sh -c 'cd "$1" && [ -z "$(git ls-files deploy/kubernetes/secrets | grep -v -e "/.gitignore$" -e "/README.md$")" ]' sh "$root"

echo "== RBAC: read-only, five resources"
jq '[.[] | select(.kind == "ClusterRole")] | .[0]' "$tmp/base.json" >"$tmp/role.json"
check "ClusterRole grants exactly get/list/watch on batch/jobs, core pods, nodes, events, policy/poddisruptionbudgets" \
  jq -e '
    [.rules[] | .apiGroups[] as $g | .resources[] as $r | .verbs[] as $v | "\($g)/\($r):\($v)"] | unique
    == ([["batch/jobs", "/pods", "/nodes", "/events", "policy/poddisruptionbudgets"][] as $r | ["get","list","watch"][] as $v | "\($r):\($v)"] | unique)' "$tmp/role.json"
check "ClusterRole has no wildcard, resourceNames, nonResourceURLs or aggregation" \
  jq -e '(.aggregationRule == null) and all(.rules[]; (.nonResourceURLs == null) and (.resourceNames == null) and
    ([.apiGroups[], .resources[], .verbs[]] | index("*") == null))' "$tmp/role.json"
check "ClusterRoleBinding binds that role to ServiceAccount spotledger/spotledger only" \
  jq -e '[.[] | select(.kind == "ClusterRoleBinding")] | length == 1 and (.[0] |
    .roleRef == {"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"spotledger-reader"} and
    .subjects == [{"kind":"ServiceAccount","name":"spotledger","namespace":"spotledger"}])' "$tmp/base.json"

echo "== Deployment: never on Spot"
jq '[.[] | select(.kind == "Deployment")] | .[0]' "$tmp/base.json" >"$tmp/dep.json"
# The scheduler's rule for required node affinity (k8s.io/component-helpers
# nodeaffinity): terms are ORed, a term's matchExpressions ANDed; NotIn and
# DoesNotExist hold when the key is absent; a term with no expressions matches
# nothing; matchFields is refused here so nothing slips past unchecked.
cat >"$tmp/affinity.jq" <<'JQ'
def expr_ok($labels):
  ($labels[.key]) as $v
  | if .operator == "In" then $v != null and ((.values | index($v)) != null)
    elif .operator == "NotIn" then $v == null or ((.values | index($v)) == null)
    elif .operator == "Exists" then $v != null
    elif .operator == "DoesNotExist" then $v == null
    elif .operator == "Gt" then $v != null and (($v | tonumber) > (.values[0] | tonumber))
    elif .operator == "Lt" then $v != null and (($v | tonumber) < (.values[0] | tonumber))
    else error("unknown operator \(.operator)") end;
def term_ok($labels):
  if .matchFields != null then error("matchFields not evaluated")
  else ((.matchExpressions // []) | length > 0) and all(.matchExpressions[]; expr_ok($labels)) end;
def schedulable($labels):
  (.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms) as $t
  | (if $t == null then true else any($t[]; term_ok($labels)) end)
    and ((.spec.template.spec.nodeSelector // {}) | to_entries | all(.[]; $labels[.key] == .value));
JQ
doks='"kubernetes.io/os":"linux","doks.digitalocean.com/node-pool-id":"6a1f0c2e","doks.digitalocean.com/version":"1.33.1-do.0"'
# can NAME EXPECT LABELS_JSON
can() {
  if got=$(jq -r --argjson l "$3" "$(cat "$tmp/affinity.jq") schedulable(\$l)" "$tmp/dep.json" 2>&1) && [ "$got" = "$2" ]; then
    ok "$1"
  else
    bad "$1 (schedulable: $got, want $2)"
  fi
}
can "schedules on a system pool node" true "{$doks,\"doks.digitalocean.com/node-pool\":\"system\",\"pool-role\":\"system\"}"
can "refuses a DOKS Spot node (capacity-type=spot), even one labelled system" false \
  "{$doks,\"doks.digitalocean.com/capacity-type\":\"spot\",\"pool-role\":\"system\"}"
can "refuses a gpu-pool-type=spot node, even one labelled system" false "{$doks,\"gpu-pool-type\":\"spot\",\"pool-role\":\"system\"}"
# the labels node-pools.sh really gives its pools (doctl run as echo)
(cd "$tmp" && DOCTL="echo doctl" PRIORITY_FILE="$tmp/prio.yaml" sh "$d/examples/node-pools.sh" test-cluster >"$tmp/pools.txt" 2>/dev/null)
pool_labels() { # NAME -> JSON object of its --label pairs
  grep -- "--name $1 " "$tmp/pools.txt" | tr ' ' '\n' | sed -n '/^--label$/{n;p;}' |
    jq -R 'split("=") | {(.[0]): .[1]}' | jq -s 'add // {}'
}
for p in system gpu-spot gpu-fallback; do pool_labels $p >"$tmp/pool-$p.json"; done
can "schedules on the system pool of deploy/examples/node-pools.sh" true "$(jq -c ". + {$doks}" "$tmp/pool-system.json")"
can "refuses the Spot pool of deploy/examples/node-pools.sh" false "$(jq -c ". + {$doks}" "$tmp/pool-gpu-spot.json")"
can "refuses the On-Demand GPU fallback pool too (system pool only)" false "$(jq -c ". + {$doks}" "$tmp/pool-gpu-fallback.json")"
can "refuses a node without labels" false '{}'
check "node-pools.sh: Spot pool is -spot sized, autoscaled, labelled and tainted" sh -c '
  l=$(grep -- "--name gpu-spot " "$1")
  for w in "--size gpu-h100x1-80gb-spot " "--auto-scale" "--min-nodes " "--max-nodes " "--label gpu-pool-type=spot" \
    "--taint nvidia.com/gpu=present:NoSchedule" "--taint workload=gpu-batch:NoSchedule"; do
    case $l in *"$w"*) ;; *) echo "missing: $w"; exit 1;; esac; done' sh "$tmp/pools.txt"
check "Deployment tolerates neither the GPU taint nor workload=gpu-batch (nor everything)" \
  jq -e '[.spec.template.spec.tolerations // [] | .[] | select(.key == null or .key == "nvidia.com/gpu" or .key == "workload")] | length == 0' "$tmp/dep.json"
check "required (not preferred) affinity names both default spot labels" \
  jq -e '[.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchExpressions[]
    | select(.operator == "NotIn" and (.values | index("spot"))) | .key] | sort == ["doks.digitalocean.com/capacity-type","gpu-pool-type"]' "$tmp/dep.json"

echo "== Deployment: one writer, hardened pod"
check "one replica, Recreate strategy" jq -e '.spec.replicas == 1 and .spec.strategy.type == "Recreate"' "$tmp/dep.json"
check "pod: runAsNonRoot, seccomp RuntimeDefault, service account spotledger" \
  jq -e '.spec.template.spec | .securityContext.runAsNonRoot == true and .securityContext.seccompProfile.type == "RuntimeDefault"
    and .serviceAccountName == "spotledger" and .automountServiceAccountToken != false' "$tmp/dep.json"
check "every container: read-only root, no privilege escalation, drops ALL, non-root, resources set" \
  jq -e '[.spec.template.spec.containers[], .spec.template.spec.initContainers[]?] | length >= 1 and all(.[];
    .securityContext.readOnlyRootFilesystem == true and .securityContext.allowPrivilegeEscalation == false
    and .securityContext.capabilities.drop == ["ALL"] and (.securityContext.capabilities.add // []) == []
    and (.securityContext.privileged // false) == false and (.securityContext.runAsUser // 1) != 0
    and .resources.requests.cpu and .resources.requests.memory and .resources.limits.memory)' "$tmp/dep.json"
jq '.spec.template.spec.containers[] | select(.name == "spotledger")' "$tmp/dep.json" >"$tmp/c.json"
check "probes: liveness /healthz, readiness /readyz on the served port" \
  jq -e '.livenessProbe.httpGet.path == "/healthz" and .readinessProbe.httpGet.path == "/readyz"
    and .livenessProbe.httpGet.port == "http" and (.ports[] | select(.name == "http") | .containerPort) == 8080' "$tmp/c.json"
check "args: --listen 0.0.0.0:8080 with --api-token-file, --cluster-id, --export-dir, --web-dir, --vendor-dir, secret files; no --kube-api-url" \
  jq -e '.args as $a | (["--listen=0.0.0.0:8080","--cluster-id=$(CLUSTER_ID)","--db=/var/lib/spotledger/spotledger.db",
    "--export-dir=/var/lib/spotledger/exports","--do-token-file=/etc/spotledger/do/do-token",
    "--api-token-file=/etc/spotledger/api/api-token","--admin-token-file=/etc/spotledger/api/admin-token",
    "--web-dir=/usr/share/spotledger/web","--vendor-dir=/usr/share/javascript"] - $a == [])
    and ([$a[] | select(startswith("--kube-api-url"))] | length == 0)' "$tmp/c.json"
check "volumes: PVC spotledger-data (do-block-storage) at /var/lib/spotledger, token secrets read-only" \
  jq -e --slurpfile all "$tmp/base.json" '
    ([$all[0][] | select(.kind == "PersistentVolumeClaim") | .spec.storageClassName] == ["do-block-storage"])
    and (.spec.template.spec.volumes | map({(.name): .}) | add
         | .data.persistentVolumeClaim.claimName == "spotledger-data"
           and .["do-token"].secret.secretName == "spotledger-do-token"
           and .["api-tokens"].secret.secretName == "spotledger-api-tokens")
    and (.spec.template.spec.containers[] | select(.name == "spotledger") | .volumeMounts | map({(.name): .}) | add
         | .data.mountPath == "/var/lib/spotledger" and .["do-token"].readOnly and .["api-tokens"].readOnly
           and .["do-token"].mountPath == "/etc/spotledger/do" and .["api-tokens"].mountPath == "/etc/spotledger/api")' "$tmp/dep.json"
check "every flag in args is one spotledger knows (src/service/config.c)" sh -c '
  jq -r ".spec.template.spec.containers[] | select(.name == \"spotledger\") | .args[]" "$1" | sed "s/=.*//; s/^--//" |
  while read -r f; do grep -q "{\"$f\"," "$2/src/service/config.c" || { echo "unknown flag --$f"; exit 1; }; done' sh "$tmp/dep.json" "$root"
check "Service is a ClusterIP on port http" \
  jq -e '[.[] | select(.kind == "Service")][0].spec | .type == "ClusterIP" and .ports[0].targetPort == "http"' "$tmp/base.json"
check "README explains one replica and no PodDisruptionBudget" \
  sh -c 'grep -qi "one replica" "$1" && grep -q "PodDisruptionBudget" "$1"' sh "$k/README.md"

if command -v kubectl >/dev/null 2>&1; then
  echo "== kubectl kustomize (optional: kubectl is here)"
  # a fresh clone: only the files git tracks (no token file in secrets/)
  mkdir -p "$tmp/fresh"
  if (cd "$root" && git ls-files -z deploy/kubernetes 2>/dev/null | xargs -0 -r cp --parents -t "$tmp/fresh") &&
    [ -f "$tmp/fresh/deploy/kubernetes/kustomization.yaml" ]; then :; else
    cp -r "$k" "$tmp/fresh-copy"; mkdir -p "$tmp/fresh/deploy"; mv "$tmp/fresh-copy" "$tmp/fresh/deploy/kubernetes"
    rm -f "$tmp/fresh/deploy/kubernetes/secrets/do-token" "$tmp/fresh/deploy/kubernetes/secrets/api-token" \
      "$tmp/fresh/deploy/kubernetes/secrets/admin-token"
  fi
  if kubectl kustomize "$tmp/fresh/deploy/kubernetes" >"$tmp/fresh.yaml" 2>"$tmp/err"; then
    ok "kubectl kustomize deploy/kubernetes renders on a fresh clone (no token files)"
    check "fresh clone render: the placeholders are there to fail the apply, the image names REPLACE" \
      sh -c 'test "$(grep -c "NOT CONFIGURED" "$1")" = 3 && grep -q "image: registry.digitalocean.com/REPLACE-WITH-YOUR-REGISTRY/spotledger:0.1.0" "$1"' sh "$tmp/fresh.yaml"
  else
    bad "kubectl kustomize deploy/kubernetes fails on a fresh clone"
    sed 's/^/       /' "$tmp/err" | head -10
  fi
  # filled in as the kustomization's header says
  cp -r "$k" "$tmp/kz"
  for s in do-token api-token admin-token; do echo "placeholder-$s" >"$tmp/kz/secrets/$s"; done
  fill "$k/kustomization.yaml" >"$tmp/kz/kustomization.yaml"
  if kubectl kustomize "$tmp/kz" >"$tmp/render.yaml" 2>"$tmp/err"; then
    ok "kubectl kustomize deploy/kubernetes renders once filled in (token files, generators)"
    yq -s 'map(select(. != null))' "$tmp/render.yaml" >"$tmp/render.json"
    check "rendered: namespaced objects in spotledger, generated Secret/ConfigMap names referenced by the Deployment" \
      jq -e '(map(select(.kind | IN("Namespace","ClusterRole","ClusterRoleBinding") | not)) | all(.[]; .metadata.namespace == "spotledger"))
        and ([.[] | select(.kind == "Secret" or .kind == "ConfigMap") | .metadata.name] as $gen
          | [.[] | select(.kind == "Deployment") | (.spec.template.spec.volumes[].secret.secretName // empty),
              (.spec.template.spec.containers[].env[]?.valueFrom.configMapKeyRef.name // empty)] as $refs
          | ($refs | length == 3) and ($refs - $gen == []))' "$tmp/render.json"
  else
    bad "kubectl kustomize deploy/kubernetes failed"
    sed 's/^/       /' "$tmp/err" | head -10
  fi
else
  echo "SKIP: kubectl kustomize: kubectl is not installed (make deps installs kubernetes-client when no kubectl is on PATH)"
fi

echo "== example Job: Spot with fallback"
y2j "$d/examples/job-fallback.yaml" | jq '.[] | select(.kind == "Job")' >"$tmp/job.json"
check "labels spotledger.io/configuration=fallback and spotledger.io/experiment" \
  jq -e '.metadata.labels["spotledger.io/configuration"] == "fallback" and (.metadata.labels["spotledger.io/experiment"] | length > 0)' "$tmp/job.json"
check "backoffLimit, activeDeadlineSeconds, ttlSecondsAfterFinished, restartPolicy Never" \
  jq -e '.spec.backoffLimit > 0 and .spec.activeDeadlineSeconds > 0 and .spec.ttlSecondsAfterFinished > 0
    and .spec.template.spec.restartPolicy == "Never"' "$tmp/job.json"
check "podFailurePolicy ignores DisruptionTarget" \
  jq -e 'any(.spec.podFailurePolicy.rules[]; .action == "Ignore" and any(.onPodConditions[]?; .type == "DisruptionTarget"))' "$tmp/job.json"
check "tolerates nvidia.com/gpu and workload=gpu-batch" \
  jq -e '.spec.template.spec.tolerations as $t | any($t[]; .key == "nvidia.com/gpu")
    and any($t[]; .key == "workload" and .value == "gpu-batch")' "$tmp/job.json"
check "Spot affinity is preferred, not required" \
  jq -e '.spec.template.spec.affinity.nodeAffinity | .requiredDuringSchedulingIgnoredDuringExecution == null
    and any(.preferredDuringSchedulingIgnoredDuringExecution[].preference.matchExpressions[]; .key == "gpu-pool-type" and .values == ["spot"])' "$tmp/job.json"
check "terminationMessagePolicy File at /dev/termination-log" \
  jq -e '.spec.template.spec.containers[0] | .terminationMessagePolicy == "File" and .terminationMessagePath == "/dev/termination-log"' "$tmp/job.json"
# Run the Job's own command: SIGTERM mid-way must checkpoint and leave the
# report; the retry must restore from the checkpoint and finish.
jq -r '.spec.template.spec.containers[0].command | if .[0] == "/bin/bash" and .[1] == "-c" then .[2] else error("not bash -c") end' \
  "$tmp/job.json" >"$tmp/task.sh"
mkdir -p "$tmp/ck"
export TASK_ID=t CHECKPOINT_DIR="$tmp/ck" TOTAL_WORK_SECONDS=4 CHECKPOINT_EVERY=2 TERMINATION_LOG="$tmp/tl"
# bash itself in the background (not a subshell), so SIGTERM reaches its trap
bash "$tmp/task.sh" 2>>"$tmp/task.err" &
tp=$!
# mid-way = after its first checkpoint (2 units of 1 s): poll for it, bounded (10 s)
i=0
while [ ! -s "$tmp/ck/t.progress" ] && [ $i -lt 100 ] && kill -0 "$tp" 2>/dev/null; do
  sleep 0.1; i=$((i + 1))
done
kill -TERM "$tp" 2>/dev/null
wait "$tp"
rc=$?
report_ok='(keys | sort) == ["checkpoint_seconds","restore_seconds","work_seconds"] and all(.[]; type == "number" and . >= 0)'
if [ "$rc" -eq 143 ] && jq -e "$report_ok and .work_seconds >= 1" "$tmp/tl" >/dev/null 2>&1 && [ -s "$tmp/ck/t.progress" ]; then
  ok "SIGTERM: exits 143, checkpoint saved, report $(cat "$tmp/tl")"
else
  bad "SIGTERM: rc=$rc report='$(cat "$tmp/tl" 2>/dev/null)' checkpoint='$(cat "$tmp/ck/t.progress" 2>/dev/null)'"
fi
before=$(cat "$tmp/ck/t.progress" 2>/dev/null || echo 0)
if bash "$tmp/task.sh" 2>>"$tmp/task.err" && jq -e "$report_ok and .work_seconds == (4 - $before)" "$tmp/tl" >/dev/null 2>&1 &&
  grep -q "restored at $before/4" "$tmp/task.err" && [ ! -e "$tmp/ck/t.progress" ]; then
  ok "retry: restores at $before/4, completes, report $(cat "$tmp/tl")"
else
  bad "retry: report='$(cat "$tmp/tl" 2>/dev/null)'"
  sed 's/^/       /' "$tmp/task.err"
fi
y2j "$d/examples/cluster-autoscaler-priority-expander.yaml" | jq '.[0]' >"$tmp/prio.json"
# prio_rank FILE_JSON REGEX: the priority whose list holds REGEX
prio_rank() { jq -r '.data.priorities' "$1" | yq -r --arg re "$2" 'to_entries | map(select(.value | index($re))) | .[0].key'; }
check "priority expander ConfigMap: kube-system, Spot pool above fallback" sh -c '
  jq -e ".metadata.name == \"cluster-autoscaler-priority-expander\" and .metadata.namespace == \"kube-system\"" "$1" &&
  s=$(jq -r .data.priorities "$1" | yq -r "to_entries | map(select(.value | index(\"^gpu-spot\$\"))) | .[0].key") &&
  f=$(jq -r .data.priorities "$1" | yq -r "to_entries | map(select(.value | index(\"^gpu-fallback\$\"))) | .[0].key") &&
  echo "spot $s fallback $f" && [ "$s" -gt "$f" ]' sh "$tmp/prio.json"
check "node-pools.sh writes the same ConfigMap with the pool ids" sh -c '
  yq -s "map(select(. != null))" "$1" | jq -e ".[0].metadata.name == \"cluster-autoscaler-priority-expander\"
    and .[0].metadata.namespace == \"kube-system\" and (.[0].data.priorities | contains(\"^gpu-spot\$\"))"' sh "$tmp/prio.yaml"

echo "== container image"
df=$d/Dockerfile
check "Dockerfile: FROM debian:bookworm (build) and debian:bookworm-slim (runtime) only; build runs make" sh -c '
  froms=$(grep -E "^FROM " "$1" | awk "{print \$2}")
  [ "$(echo "$froms" | head -1)" = debian:bookworm ] && [ "$(echo "$froms" | tail -1)" = debian:bookworm-slim ] &&
  [ "$(echo "$froms" | grep -cv "^debian:bookworm")" -eq 0 ] && grep -Eq "&& make( |$)" "$1"' sh "$df"
check "Dockerfile: runtime has only the shared libraries, certificates and Chart.js" sh -c '
  rt=$(sed -n "/^FROM debian:bookworm-slim/,\$p" "$1")
  for p in libmicrohttpd12 libcurl3-gnutls libjson-c5 libsqlite3-0 libgnutls30 ca-certificates libjs-chart.js; do
    echo "$rt" | grep -q "$p" || { echo "missing $p"; exit 1; }; done
  ! echo "$rt" | grep -Eq -- "-dev( |$)|build-essential|gcc|curl "' sh "$df"
check "Dockerfile: final USER is non-root (numeric, not 0)" sh -c '
  u=$(grep -E "^USER " "$1" | tail -1 | awk "{print \$2}"); u=${u%%:*}
  case $u in ""|0|root|*[!0-9]*) echo "USER $u"; exit 1;; esac' sh "$df"
check "Dockerfile: HEALTHCHECK runs the /healthz probe (not --help)" sh -c '
  h=$(sed -n "/^HEALTHCHECK/,/CMD/p" "$1"); echo "$h" | grep -q "healthcheck" && ! echo "$h" | grep -q -- "--help" &&
  grep -q "^COPY deploy/healthcheck.sh /usr/local/lib/spotledger/healthcheck" "$1"' sh "$df"
if [ -x "$bin" ]; then
  echo "x-api-token" >"$tmp/api-token"
  "$bin" --no-kube --listen 127.0.0.1:0 --db "$tmp/hc.db" --api-token-file "$tmp/api-token" >"$tmp/sl.out" 2>"$tmp/sl.err" &
  pid=$!
  port=
  i=0
  while [ $i -lt 100 ] && [ -z "$port" ]; do
    port=$(sed -n 's/^spotledger: listening on .*:\([0-9][0-9]*\)$/\1/p' "$tmp/sl.out")
    [ -n "$port" ] || sleep 0.1
    i=$((i + 1))
  done
  check "healthcheck: 0 against a live spotledger (/healthz needs no token)" bash "$d/healthcheck.sh" "${port:-0}"
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  pid=
  check "healthcheck: non-zero once it stopped" sh -c '! bash "$1" "$2"' sh "$d/healthcheck.sh" "${port:-0}"
else
  bad "healthcheck: no spotledger binary at $bin (build it first)"
fi

echo "== systemd unit"
u=$d/spotledger.service
check "unit has the hardening directives" sh -c '
  for l in DynamicUser=yes StateDirectory=spotledger ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes \
    "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6" SystemCallFilter=@system-service \
    "LoadCredential=do-token:" "LoadCredential=api-token:" "LoadCredential=admin-token:"; do
    grep -q "^$l" "$1" || { echo "missing $l"; exit 1; }; done
  grep -q "^CapabilityBoundingSet=$" "$1" && grep -q -- "--do-token-file %d/do-token" "$1"' sh "$u"
if command -v systemd-analyze >/dev/null 2>&1; then
  sed "s#/usr/local/bin/spotledger#$bin#" "$u" >"$tmp/spotledger.service"
  if systemd-analyze verify "$tmp/spotledger.service" >"$tmp/v.out" 2>&1 && [ ! -s "$tmp/v.out" ]; then
    ok "systemd-analyze verify: clean"
  else
    bad "systemd-analyze verify"
    sed 's/^/       /' "$tmp/v.out" | head -10
  fi
else
  echo "  skip systemd-analyze verify (systemd not installed; optional)"
fi

echo "e2e_deploy: $((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
