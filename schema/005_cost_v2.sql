-- Cost model version 2 (docs/cost-model.md).
--
-- attempts.deleted_at now means the pod's REMOVAL from the API (a watch DELETED
-- event or absence from a relist, at the source's time), never metadata.
-- deletionTimestamp (a request + grace period, kept in delete_requested_at).
-- terminal_seen_at: the first source time the pod was seen Succeeded/Failed
-- (the end of a pod whose container finish was never seen).
-- tasks.completions: spec.completions of a non-Indexed Job (N > 1: N tasks).
-- Prices: size_prices already keeps each observed price change with the source
-- time it was seen (observed_at); the counterfactual uses the price in force
-- when the winning attempt ran. Every NotReady spell is node_conditions' rows.

ALTER TABLE attempts ADD COLUMN terminal_seen_at INTEGER;
ALTER TABLE tasks ADD COLUMN completions INTEGER;

DROP TRIGGER attempts_mark_update;
CREATE TRIGGER attempts_mark_update AFTER UPDATE ON attempts
WHEN NEW.task_uid IS NOT OLD.task_uid OR NEW.node_name IS NOT OLD.node_name
  OR NEW.gpu_request IS NOT OLD.gpu_request OR NEW.cpu_request_milli IS NOT OLD.cpu_request_milli
  OR NEW.created_at IS NOT OLD.created_at OR NEW.scheduled_at IS NOT OLD.scheduled_at
  OR NEW.started_at IS NOT OLD.started_at OR NEW.finished_at IS NOT OLD.finished_at
  OR NEW.deleted_at IS NOT OLD.deleted_at OR NEW.phase IS NOT OLD.phase
  OR NEW.reason IS NOT OLD.reason OR NEW.disruption_at IS NOT OLD.disruption_at
  OR NEW.not_ready_at IS NOT OLD.not_ready_at
  OR NEW.delete_requested_at IS NOT OLD.delete_requested_at
  OR NEW.terminal_seen_at IS NOT OLD.terminal_seen_at
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

DROP TRIGGER tasks_mark_update;
CREATE TRIGGER tasks_mark_update AFTER UPDATE ON tasks
WHEN NEW.completed_at IS NOT OLD.completed_at OR NEW.outcome IS NOT OLD.outcome
  OR NEW.configuration IS NOT OLD.configuration OR NEW.experiment IS NOT OLD.experiment
  OR NEW.namespace IS NOT OLD.namespace OR NEW.name IS NOT OLD.name
  OR NEW.created_at IS NOT OLD.created_at OR NEW.completions IS NOT OLD.completions
BEGIN
    INSERT INTO change_marks(day, n) VALUES (coalesce(NEW.completed_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n) VALUES (coalesce(OLD.completed_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
    INSERT INTO change_marks(day, n) VALUES (coalesce(NEW.created_at, 0) / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

-- a NotReady/Ready transition changes lost-at times from its day on
CREATE TRIGGER node_conditions_mark_insert AFTER INSERT ON node_conditions BEGIN
    INSERT INTO change_marks(day, n) VALUES (NEW.at / 86400, 1)
    ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;
