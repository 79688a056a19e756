-- Change marks: which days of history received new or changed facts, so a
-- computed window can be reused until new data for it arrives (the response
-- cache of closed windows). A row per day (Unix day number; day 0 is "global":
-- prices, pools, reclaims), with a counter bumped by triggers on every insert
-- and on every update that changes a column a figure depends on. Pollers
-- re-upsert the same objects all the time; the WHEN clauses keep those no-op
-- updates from invalidating anything.

CREATE TABLE change_marks (
    day  INTEGER PRIMARY KEY,
    n    INTEGER NOT NULL
);

CREATE TRIGGER attempts_mark_insert AFTER INSERT ON attempts BEGIN
    INSERT INTO change_marks(day, n)
    VALUES (coalesce(NEW.scheduled_at, NEW.created_at, NEW.started_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER attempts_mark_update AFTER UPDATE ON attempts
WHEN NEW.task_uid IS NOT OLD.task_uid OR NEW.node_name IS NOT OLD.node_name
  OR NEW.gpu_request IS NOT OLD.gpu_request OR NEW.cpu_request_milli IS NOT OLD.cpu_request_milli
  OR NEW.created_at IS NOT OLD.created_at OR NEW.scheduled_at IS NOT OLD.scheduled_at
  OR NEW.started_at IS NOT OLD.started_at OR NEW.finished_at IS NOT OLD.finished_at
  OR NEW.deleted_at IS NOT OLD.deleted_at OR NEW.phase IS NOT OLD.phase
  OR NEW.reason IS NOT OLD.reason OR NEW.disruption_at IS NOT OLD.disruption_at
  OR NEW.not_ready_at IS NOT OLD.not_ready_at
  OR NEW.report_work_seconds IS NOT OLD.report_work_seconds
  OR NEW.report_restore_seconds IS NOT OLD.report_restore_seconds
  OR NEW.report_checkpoint_seconds IS NOT OLD.report_checkpoint_seconds
BEGIN
    INSERT INTO change_marks(day, n)
    VALUES (coalesce(NEW.scheduled_at, NEW.created_at, NEW.started_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n)
    VALUES (coalesce(OLD.scheduled_at, OLD.created_at, OLD.started_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER tasks_mark_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO change_marks(day, n) VALUES (coalesce(NEW.completed_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n) VALUES (coalesce(NEW.created_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER tasks_mark_update AFTER UPDATE ON tasks
WHEN NEW.completed_at IS NOT OLD.completed_at OR NEW.outcome IS NOT OLD.outcome
  OR NEW.configuration IS NOT OLD.configuration OR NEW.experiment IS NOT OLD.experiment
  OR NEW.namespace IS NOT OLD.namespace OR NEW.name IS NOT OLD.name
  OR NEW.created_at IS NOT OLD.created_at
BEGIN
    INSERT INTO change_marks(day, n) VALUES (coalesce(NEW.completed_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n) VALUES (coalesce(OLD.completed_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n) VALUES (coalesce(NEW.created_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

-- A node's facts matter from its start to its end: its start and end days are
-- marked, and global facts (price, pool, allocatable) bump day 0.
CREATE TRIGGER nodes_mark_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER nodes_mark_times AFTER UPDATE ON nodes
WHEN NEW.created_at IS NOT OLD.created_at OR NEW.ready_at IS NOT OLD.ready_at
  OR NEW.k8s_deleted_at IS NOT OLD.k8s_deleted_at OR NEW.do_deleted_at IS NOT OLD.do_deleted_at
  OR NEW.not_ready_at IS NOT OLD.not_ready_at OR NEW.cordoned_at IS NOT OLD.cordoned_at
BEGIN
    INSERT INTO change_marks(day, n)
    VALUES (coalesce(NEW.k8s_deleted_at, NEW.do_deleted_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n)
    VALUES (coalesce(OLD.k8s_deleted_at, OLD.do_deleted_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n)
    VALUES (coalesce(NEW.ready_at, NEW.created_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n)
    VALUES (coalesce(OLD.ready_at, OLD.created_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n)
    VALUES (coalesce(NEW.not_ready_at, NEW.cordoned_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER nodes_mark_global AFTER UPDATE ON nodes
WHEN NEW.pool_id IS NOT OLD.pool_id OR NEW.price_hourly_micro IS NOT OLD.price_hourly_micro
  OR NEW.gpu_allocatable IS NOT OLD.gpu_allocatable
  OR NEW.cpu_allocatable_milli IS NOT OLD.cpu_allocatable_milli
BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER pools_mark_insert AFTER INSERT ON node_pools BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER pools_mark_update AFTER UPDATE ON node_pools
WHEN NEW.deleted_at IS NOT OLD.deleted_at OR NEW.price_hourly_micro IS NOT OLD.price_hourly_micro
  OR NEW.capacity_type IS NOT OLD.capacity_type OR NEW.size IS NOT OLD.size
  OR NEW.name IS NOT OLD.name
BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER prices_mark_insert AFTER INSERT ON size_prices BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER reclaims_mark_insert AFTER INSERT ON reclaims BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER reclaims_mark_update AFTER UPDATE ON reclaims BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER reclaims_mark_delete AFTER DELETE ON reclaims BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

-- The summary carries the window's reconciliation: billing facts are global.
CREATE TRIGGER invoice_items_mark_insert AFTER INSERT ON invoice_items BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoice_items_mark_update AFTER UPDATE ON invoice_items
WHEN NEW.amount_micro IS NOT OLD.amount_micro OR NEW.resource_uuid IS NOT OLD.resource_uuid
  OR NEW.description IS NOT OLD.description
BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoice_items_mark_delete AFTER DELETE ON invoice_items BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoices_mark_insert AFTER INSERT ON invoices BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoices_mark_update AFTER UPDATE ON invoices
WHEN NEW.amount_micro IS NOT OLD.amount_micro OR NEW.is_preview IS NOT OLD.is_preview
BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;
