-- The window loader reads tasks and attempts by time ranges (sequential index
-- scans) instead of looking each task up by uid: it needs to bound how long a
-- task may live (completed_at - created_at) and to find the running ones.
CREATE INDEX tasks_life ON tasks(completed_at - created_at);
CREATE INDEX tasks_running ON tasks(uid) WHERE completed_at IS NULL;
