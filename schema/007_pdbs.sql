-- policy/v1 PodDisruptionBudgets, as the Kubernetes watcher last saw them
-- (source/k8s_pdb.h). One row per PDB uid; nothing is deleted: a PDB the cluster
-- forgets gets deleted_at. minAvailable / maxUnavailable: the absolute value or
-- the percentage, NULL when not given. selector_json: spec.selector.matchLabels
-- (compact JSON, '{}' = every pod of the namespace), NULL for a selector with
-- matchExpressions (not evaluated by the advisor). The advisor's pdb-blocks-drain
-- rule matches it against the pod template labels kept in tasks.spec_json
-- ("podLabels").
CREATE TABLE pdbs (
    uid                  TEXT PRIMARY KEY,
    namespace            TEXT NOT NULL,
    name                 TEXT NOT NULL,
    min_available        INTEGER,
    min_available_pct    INTEGER,
    max_unavailable      INTEGER,
    max_unavailable_pct  INTEGER,
    selector_json        TEXT,
    expected_pods        INTEGER,
    current_healthy      INTEGER,
    desired_healthy      INTEGER,
    disruptions_allowed  INTEGER,
    created_at           INTEGER,
    deleted_at           INTEGER,
    first_seen           INTEGER NOT NULL,
    last_seen            INTEGER NOT NULL
);
CREATE INDEX pdbs_namespace ON pdbs(namespace);
