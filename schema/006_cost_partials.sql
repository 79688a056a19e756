-- Closed days' partial sums (docs/performance.md): for each UTC day that is
-- closed (over, no running task, no attempt held in it without a known end),
-- the cost engine's exact additive numerators for that day (engine/
-- cost_partial.h, encoded by cost_partial_encode), so a long window is
-- composed from its days instead of loading every attempt it holds. A row is
-- used only while the day's change-mark version (store_window_version over the
-- day, schema/004) is the one it was computed under, the default configuration
-- is the same and the engine revision (a hash of the sources that compute it)
-- is this binary's; otherwise the day is computed again and the row replaced.
-- Derived data only: deleting every row loses nothing.
CREATE TABLE cost_partials (
    day            INTEGER PRIMARY KEY, -- Unix day number (UTC)
    engine         TEXT NOT NULL,       -- engine revision that computed it
    default_config TEXT NOT NULL,       -- --default-configuration it was computed with
    version_n      INTEGER NOT NULL,    -- the day's change-mark version (sum, count)
    version_c      INTEGER NOT NULL,
    body           BLOB NOT NULL
);
