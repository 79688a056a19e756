-- A kept day's reclaim evidence apart from its sums (docs/performance.md "Kept
-- off the request path"). The evidence is most of a day's stored bytes (86.6 MB
-- of a year's 1M-task bench database), and it is read only when some spot pool
-- of the window can be a reclaim; in one column with the sums, every composed
-- window read all of it. `body` now holds the day without its evidence, `events`
-- the whole day (NULL when it has no evidence); SQLite reads a record's columns
-- only up to the one asked for, so a window without a possible reclaim reads no
-- evidence page. Rows kept before are computed again (the engine revision moves).
ALTER TABLE cost_partials ADD COLUMN events BLOB;
