-- spotledger schema, version 1.
--
-- Conventions: times are INTEGER Unix seconds in the SOURCE's clock (object
-- timestamps, or the HTTP Date of the response that showed a change); money is
-- INTEGER micro-dollars (1 USD = 1000000); NULL means "not known (yet)".
-- Rows are raw observations: every figure is recomputed from them, so nothing
-- here is an aggregate except the caches at the end, which may be dropped at will.
-- Every upsert is keyed by the source's identity (uid/id), so re-reading the same
-- objects never double counts, and nothing is deleted when the source forgets it.

CREATE TABLE clusters (
    id          TEXT PRIMARY KEY,          -- DigitalOcean cluster uuid
    name        TEXT,
    region      TEXT,
    version     TEXT,
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL
);

-- /v2/sizes: one row per slug, and a price row only when the price changes.
CREATE TABLE sizes (
    slug          TEXT PRIMARY KEY,
    vcpus         INTEGER,
    memory_mb     INTEGER,
    gpu_count     INTEGER,
    gpu_model     TEXT,
    gpu_vram_gb   INTEGER,
    first_seen    INTEGER NOT NULL,
    last_seen     INTEGER NOT NULL
);

CREATE TABLE size_prices (
    slug                 TEXT NOT NULL,
    observed_at          INTEGER NOT NULL,
    price_hourly_micro   INTEGER NOT NULL,
    price_monthly_micro  INTEGER NOT NULL,
    PRIMARY KEY (slug, observed_at)
);

CREATE TABLE node_pools (
    id                  TEXT PRIMARY KEY,   -- DO node pool uuid (pools are keyed by id, not name)
    cluster_id          TEXT,
    name                TEXT NOT NULL,
    size                TEXT NOT NULL,
    capacity_type       TEXT NOT NULL CHECK (capacity_type IN ('spot', 'on-demand')),
    capacity_basis      TEXT,               -- why: 'slug', 'label', 'flag', 'default'
    price_hourly_micro  INTEGER,            -- size price at first sighting
    auto_scale          INTEGER,
    min_nodes           INTEGER,
    max_nodes           INTEGER,
    node_count          INTEGER,
    labels_json         TEXT,
    taints_json         TEXT,
    first_seen          INTEGER NOT NULL,
    last_seen           INTEGER NOT NULL,
    deleted_at          INTEGER             -- Date of the first poll that no longer listed it
);

-- Nodes are keyed by name: DigitalOcean and Kubernetes both know it.
CREATE TABLE nodes (
    name                 TEXT PRIMARY KEY,
    do_id                TEXT,              -- DO node uuid (doks.digitalocean.com/node-id)
    k8s_uid              TEXT,
    pool_id              TEXT,
    droplet_id           TEXT,
    size                 TEXT,
    capacity_type        TEXT,
    price_hourly_micro   INTEGER,           -- recorded at first sighting (spot prices lock at creation)
    created_at           INTEGER,
    ready_at             INTEGER,           -- first Ready=True seen
    do_deleted_at        INTEGER,           -- Date of the first DO poll not listing it
    k8s_deleted_at       INTEGER,           -- Kubernetes deletion (DELETED watch event / timestamp)
    not_ready_at         INTEGER,           -- first NodeNotReady evidence
    cordoned_at          INTEGER,
    unschedulable        INTEGER,           -- spec.unschedulable as last seen
    ready_status         TEXT,              -- Ready condition status as last seen
    ready_since          INTEGER,           -- its lastTransitionTime
    gpu_allocatable      INTEGER,
    cpu_allocatable_milli INTEGER,
    labels_json          TEXT,
    do_state             TEXT,
    first_seen           INTEGER NOT NULL,
    last_seen            INTEGER NOT NULL
);
CREATE INDEX nodes_pool ON nodes(pool_id);

-- Ready condition transitions of Nodes as observed (object status or
-- NodeReady/NodeNotReady events): a node that flaps keeps every transition.
CREATE TABLE node_conditions (
    node_name   TEXT NOT NULL,
    status      TEXT NOT NULL,              -- 'True', 'False', 'Unknown'
    at          INTEGER NOT NULL,           -- lastTransitionTime / event time
    origin      TEXT NOT NULL,              -- 'condition' or 'event'
    first_seen  INTEGER NOT NULL,
    PRIMARY KEY (node_name, at, status)
);

-- A task is a Job, or one completion index of an Indexed Job (uid "<job uid>/<index>").
CREATE TABLE tasks (
    uid               TEXT PRIMARY KEY,
    job_uid           TEXT NOT NULL,
    completion_index  INTEGER,
    namespace         TEXT NOT NULL,
    name              TEXT NOT NULL,
    configuration     TEXT,                 -- label spotledger.io/configuration as seen (NULL: default)
    experiment        TEXT,
    created_at        INTEGER,
    started_at        INTEGER,
    completed_at      INTEGER,              -- Complete or Failed condition time
    outcome           TEXT NOT NULL DEFAULT 'running' CHECK (outcome IN ('running', 'succeeded', 'failed')),
    outcome_reason    TEXT,
    backoff_limit     INTEGER,
    active_deadline   INTEGER,
    ttl_after_finished INTEGER,
    has_pod_failure_policy INTEGER,
    pfp_ignores_disruption INTEGER,         -- a podFailurePolicy rule Ignores DisruptionTarget
    spec_json         TEXT,                 -- scheduling-relevant spec bits for the advisor
    deleted_at        INTEGER,
    first_seen        INTEGER NOT NULL,
    last_seen         INTEGER NOT NULL
);
CREATE INDEX tasks_completed ON tasks(completed_at);
CREATE INDEX tasks_job ON tasks(job_uid);

-- An attempt is one pod of a task.
CREATE TABLE attempts (
    uid                 TEXT PRIMARY KEY,
    task_uid            TEXT NOT NULL,
    job_uid             TEXT,
    completion_index    INTEGER,
    namespace           TEXT NOT NULL,
    name                TEXT NOT NULL,
    node_name           TEXT,
    pool_id             TEXT,
    gpu_request         INTEGER,
    cpu_request_milli   INTEGER,
    created_at          INTEGER,
    scheduled_at        INTEGER,            -- PodScheduled condition time
    started_at          INTEGER,            -- first container startedAt
    finished_at         INTEGER,            -- last container finishedAt
    deleted_at          INTEGER,            -- deletionTimestamp or DELETED event
    delete_requested_at INTEGER,            -- deletionTimestamp - deletionGracePeriodSeconds
    phase               TEXT,
    reason              TEXT,
    exit_code           INTEGER,
    disruption_at       INTEGER,            -- DisruptionTarget condition time
    disruption_reason   TEXT,
    not_ready_at        INTEGER,            -- pod/node NodeNotReady evidence
    report_status       TEXT,               -- 'none', 'ok', 'bad'
    report_work_seconds INTEGER,
    report_restore_seconds INTEGER,
    report_checkpoint_seconds INTEGER,
    first_seen          INTEGER NOT NULL,
    last_seen           INTEGER NOT NULL
);
CREATE INDEX attempts_task ON attempts(task_uid);
CREATE INDEX attempts_node ON attempts(node_name);

-- Kubernetes Events that matter for reclaim timelines (node and pod events).
CREATE TABLE events (
    uid            TEXT PRIMARY KEY,
    namespace      TEXT,
    object_kind    TEXT,
    object_name    TEXT,
    object_uid     TEXT,
    object_namespace TEXT,
    source         TEXT,                    -- reporting controller / component
    reason         TEXT,
    message        TEXT,
    type           TEXT,
    first_at       INTEGER,
    last_at        INTEGER,
    count          INTEGER,
    first_seen     INTEGER NOT NULL
);
CREATE INDEX events_object ON events(object_kind, object_name);
CREATE INDEX events_object_uid ON events(object_uid);

-- A spot pool that vanished (or lost all its nodes within minutes).
CREATE TABLE reclaims (
    id               INTEGER PRIMARY KEY,
    pool_id          TEXT NOT NULL,
    detected_at      INTEGER NOT NULL,      -- Date of the poll that showed it gone
    first_signal_at  INTEGER,
    nodes            INTEGER,
    UNIQUE (pool_id, detected_at)
);

CREATE TABLE invoices (
    uuid            TEXT PRIMARY KEY,       -- 'preview' for invoice_preview
    period          TEXT,                   -- '2026-11'
    amount_micro    INTEGER,
    updated_at      TEXT,
    is_preview      INTEGER NOT NULL DEFAULT 0,
    first_seen      INTEGER NOT NULL,
    last_seen       INTEGER NOT NULL
);

CREATE TABLE invoice_items (
    invoice_uuid      TEXT NOT NULL,
    ordinal           INTEGER NOT NULL,      -- position in the invoice
    product           TEXT,
    resource_uuid     TEXT,
    resource_id       TEXT,
    group_description TEXT,
    description       TEXT,
    amount_micro      INTEGER NOT NULL,
    duration          TEXT,
    duration_unit     TEXT,
    start_time        INTEGER,
    end_time          INTEGER,
    project_name      TEXT,
    category          TEXT,
    PRIMARY KEY (invoice_uuid, ordinal)
);

CREATE TABLE billing_history (
    date           INTEGER NOT NULL,
    type           TEXT NOT NULL,
    description    TEXT NOT NULL,
    amount_micro   INTEGER NOT NULL,
    invoice_id     TEXT,
    invoice_uuid   TEXT,
    PRIMARY KEY (date, type, description, amount_micro)
);

CREATE TABLE balance_snapshots (
    observed_at               INTEGER PRIMARY KEY,
    month_to_date_balance     INTEGER,
    account_balance           INTEGER,
    month_to_date_usage       INTEGER,
    generated_at              INTEGER
);

-- One row per poll of a source ('do', 'do_billing', 'k8s').
CREATE TABLE poll_runs (
    id            INTEGER PRIMARY KEY,
    source        TEXT NOT NULL,
    started_at    INTEGER NOT NULL,         -- local wall clock
    finished_at   INTEGER,
    source_time   INTEGER,                  -- the source's Date
    status        TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error')),
    error         TEXT,
    requests      INTEGER NOT NULL DEFAULT 0,
    items         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX poll_runs_source ON poll_runs(source, id);

-- Watch resume points (Kubernetes resourceVersion per resource type).
CREATE TABLE watch_state (
    resource          TEXT PRIMARY KEY,
    resource_version  TEXT,
    updated_at        INTEGER
);

CREATE TABLE exports (
    week         TEXT NOT NULL,             -- '2026-W48'
    kind         TEXT NOT NULL CHECK (kind IN ('summary', 'tasks')),
    path         TEXT NOT NULL,
    bytes        INTEGER NOT NULL,
    rows         INTEGER NOT NULL,
    written_at   INTEGER NOT NULL,
    PRIMARY KEY (week, kind)
);
