-- A fleet: several DOKS clusters in one database (docs/fleet.md).
--
-- `cluster` is the fleet name of the cluster a row was observed in: the NAME of
-- --cluster NAME=CONTEXT_OR_ID, or 'default' for the single cluster the service
-- watches when no --cluster is given. Every row written before this migration
-- came from that one cluster, so it is kept under 'default': a service that is
-- started again with its single-cluster flags goes on writing the same history,
-- and one that names clusters can continue it with --cluster default=...
--
-- Cluster-scoped facts carry it: node pools, nodes (and their Ready history
-- through nodes), tasks, attempts, events, reclaims, PDBs, the watch resume
-- points and the poll runs of the per-cluster sources ('k8s', 'do'). Account
-- facts do not: sizes and prices, invoices, billing history, balance, billing
-- insights and the derived caches (cost_partials are fleet-wide days).
-- clusters (the DigitalOcean cluster records) gains the fleet name its DO id
-- was polled under.
--
-- Identity: pool ids, Job, Pod, Event and PDB uids are UUIDs, unique across
-- clusters, so the keys stay what they are. Nodes stay keyed by name (DOKS node
-- names end in a random suffix); the watch resume points are per cluster and
-- resource, so that table is rebuilt with the pair as its key.

ALTER TABLE clusters ADD COLUMN cluster TEXT NOT NULL DEFAULT 'default';
ALTER TABLE node_pools ADD COLUMN cluster TEXT NOT NULL DEFAULT 'default';
ALTER TABLE nodes ADD COLUMN cluster TEXT NOT NULL DEFAULT 'default';
ALTER TABLE tasks ADD COLUMN cluster TEXT NOT NULL DEFAULT 'default';
ALTER TABLE attempts ADD COLUMN cluster TEXT NOT NULL DEFAULT 'default';
ALTER TABLE events ADD COLUMN cluster TEXT NOT NULL DEFAULT 'default';
ALTER TABLE reclaims ADD COLUMN cluster TEXT NOT NULL DEFAULT 'default';
ALTER TABLE pdbs ADD COLUMN cluster TEXT NOT NULL DEFAULT 'default';

-- account-wide sources ('do_billing', 'do_insights', ...) have no cluster
ALTER TABLE poll_runs ADD COLUMN cluster TEXT;
UPDATE poll_runs SET cluster = 'default' WHERE source IN ('k8s', 'do');
CREATE INDEX poll_runs_cluster ON poll_runs(cluster, source, id);

CREATE TABLE watch_state_new (
    cluster           TEXT NOT NULL DEFAULT 'default',
    resource          TEXT NOT NULL,
    resource_version  TEXT,
    updated_at        INTEGER,
    PRIMARY KEY (cluster, resource)
);
INSERT INTO watch_state_new(cluster, resource, resource_version, updated_at)
    SELECT 'default', resource, resource_version, updated_at FROM watch_state;
DROP TABLE watch_state;
ALTER TABLE watch_state_new RENAME TO watch_state;

-- a cluster= filter reads a cluster's tasks and nodes
CREATE INDEX tasks_cluster ON tasks(cluster, completed_at);
CREATE INDEX nodes_cluster ON nodes(cluster);
CREATE INDEX node_pools_cluster ON node_pools(cluster);
