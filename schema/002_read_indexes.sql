-- Indexes for the read side: loading the attempts that overlap a window.
-- An attempt starts at its PodScheduled time (else creation, else first start)
-- and ends at its finish or deletion; "span" lets the loader bound how far
-- before a window an attempt that overlaps it may have started.
CREATE INDEX attempts_start ON attempts(coalesce(scheduled_at, created_at, started_at));
CREATE INDEX attempts_span ON attempts(
    coalesce(finished_at, deleted_at) - coalesce(scheduled_at, created_at, started_at));
CREATE INDEX attempts_open ON attempts(task_uid) WHERE finished_at IS NULL AND deleted_at IS NULL;
