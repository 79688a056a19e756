-- Precise change marks for facts that span time (docs/performance.md "Closed,
-- kept, invalidated"). Schema/004 bumped day 0 ("global": every window) for
-- every node, price, pool, reclaim and invoice fact, so on a live cluster each
-- poll that saw a new node or re-wrote the preview invoice invalidated every
-- kept day and every cached window. Now such a fact bumps the range of days it
-- can reach: a node from its start to its end (open: 2147483647, "until
-- further notice"), a changed node time from the earliest of its old and new
-- values, a price from the time it takes effect (from day 0 when it is the
-- size's first), a pool over its nodes, a reclaim from its first signal on, an
-- invoice over its month. A window's version (store_window_version) counts the
-- spans that meet the days whose facts can reach it, beside schema/004's
-- per-day marks. Unchanged re-writes change nothing (WHEN clauses; the invoice
-- items are compared before they are replaced, store_do.c).

CREATE TABLE change_spans (
    lo  INTEGER NOT NULL, -- first day (Unix day number, UTC)
    hi  INTEGER NOT NULL, -- last day, inclusive (2147483647: open)
    n   INTEGER NOT NULL,
    PRIMARY KEY (lo, hi)
) WITHOUT ROWID;

DROP TRIGGER nodes_mark_insert;
DROP TRIGGER nodes_mark_times;
DROP TRIGGER nodes_mark_global;
DROP TRIGGER pools_mark_insert;
DROP TRIGGER pools_mark_update;
DROP TRIGGER prices_mark_insert;
DROP TRIGGER reclaims_mark_insert;
DROP TRIGGER reclaims_mark_update;
DROP TRIGGER reclaims_mark_delete;
DROP TRIGGER invoice_items_mark_insert;
DROP TRIGGER invoice_items_mark_update;
DROP TRIGGER invoice_items_mark_delete;
DROP TRIGGER invoices_mark_insert;
DROP TRIGGER invoices_mark_update;

-- A node reaches [its earliest start, its latest end + 60 s] (the loader's
-- billable life); no end: open.
CREATE TRIGGER nodes_span_insert AFTER INSERT ON nodes BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        min(coalesce(NEW.created_at, NEW.first_seen), coalesce(NEW.ready_at, NEW.first_seen),
            NEW.first_seen) / 86400,
        coalesce((max(coalesce(NEW.k8s_deleted_at, NEW.do_deleted_at),
                      coalesce(NEW.do_deleted_at, NEW.k8s_deleted_at)) + 60) / 86400, 2147483647),
        1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

-- A node's times: from the earliest old or new value of a time that changed,
-- to its end (open when its old or new end is unknown).
CREATE TRIGGER nodes_span_times AFTER UPDATE ON nodes
WHEN NEW.created_at IS NOT OLD.created_at OR NEW.ready_at IS NOT OLD.ready_at
  OR NEW.k8s_deleted_at IS NOT OLD.k8s_deleted_at OR NEW.do_deleted_at IS NOT OLD.do_deleted_at
  OR NEW.not_ready_at IS NOT OLD.not_ready_at OR NEW.cordoned_at IS NOT OLD.cordoned_at
BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        max(0, min(
            CASE WHEN NEW.created_at IS NOT OLD.created_at
                 THEN min(coalesce(NEW.created_at, OLD.created_at), coalesce(OLD.created_at, NEW.created_at))
                 ELSE 4611686018427387904 END,
            CASE WHEN NEW.ready_at IS NOT OLD.ready_at
                 THEN min(coalesce(NEW.ready_at, OLD.ready_at), coalesce(OLD.ready_at, NEW.ready_at))
                 ELSE 4611686018427387904 END,
            CASE WHEN NEW.k8s_deleted_at IS NOT OLD.k8s_deleted_at
                 THEN min(coalesce(NEW.k8s_deleted_at, OLD.k8s_deleted_at),
                          coalesce(OLD.k8s_deleted_at, NEW.k8s_deleted_at))
                 ELSE 4611686018427387904 END,
            CASE WHEN NEW.do_deleted_at IS NOT OLD.do_deleted_at
                 THEN min(coalesce(NEW.do_deleted_at, OLD.do_deleted_at),
                          coalesce(OLD.do_deleted_at, NEW.do_deleted_at))
                 ELSE 4611686018427387904 END,
            CASE WHEN NEW.not_ready_at IS NOT OLD.not_ready_at
                 THEN min(coalesce(NEW.not_ready_at, OLD.not_ready_at),
                          coalesce(OLD.not_ready_at, NEW.not_ready_at))
                 ELSE 4611686018427387904 END,
            CASE WHEN NEW.cordoned_at IS NOT OLD.cordoned_at
                 THEN min(coalesce(NEW.cordoned_at, OLD.cordoned_at),
                          coalesce(OLD.cordoned_at, NEW.cordoned_at))
                 ELSE 4611686018427387904 END) / 86400),
        coalesce((max(coalesce(NEW.k8s_deleted_at, NEW.do_deleted_at),
                      coalesce(NEW.do_deleted_at, NEW.k8s_deleted_at),
                      coalesce(OLD.k8s_deleted_at, OLD.do_deleted_at),
                      coalesce(OLD.do_deleted_at, OLD.k8s_deleted_at)) + 60) / 86400, 2147483647),
        1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

-- A node's other facts (pool, price, allocatable, labels, Kubernetes identity):
-- its whole life, old and new.
CREATE TRIGGER nodes_span_facts AFTER UPDATE ON nodes
WHEN NEW.pool_id IS NOT OLD.pool_id OR NEW.price_hourly_micro IS NOT OLD.price_hourly_micro
  OR NEW.gpu_allocatable IS NOT OLD.gpu_allocatable
  OR NEW.cpu_allocatable_milli IS NOT OLD.cpu_allocatable_milli
  OR NEW.labels_json IS NOT OLD.labels_json OR NEW.k8s_uid IS NOT OLD.k8s_uid
BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        min(coalesce(NEW.created_at, NEW.first_seen), coalesce(NEW.ready_at, NEW.first_seen),
            NEW.first_seen, coalesce(OLD.created_at, OLD.first_seen),
            coalesce(OLD.ready_at, OLD.first_seen), OLD.first_seen) / 86400,
        coalesce((max(coalesce(NEW.k8s_deleted_at, NEW.do_deleted_at),
                      coalesce(NEW.do_deleted_at, NEW.k8s_deleted_at),
                      coalesce(OLD.k8s_deleted_at, OLD.do_deleted_at),
                      coalesce(OLD.do_deleted_at, OLD.k8s_deleted_at)) + 60) / 86400, 2147483647),
        1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

-- A pool is spot when one of its nodes carries a spot label (store_cost.c
-- SQL_POOLS): the first node of a pool to carry labels can change the pool for
-- every window, so it stays global (day 0). Later nodes of a DOKS pool carry
-- the pool's labels (their spans above are enough).
CREATE TRIGGER nodes_mark_first_labels AFTER INSERT ON nodes
WHEN NEW.labels_json IS NOT NULL AND NOT EXISTS (SELECT 1 FROM nodes o WHERE
     o.pool_id IS NEW.pool_id AND o.name <> NEW.name AND o.labels_json IS NOT NULL)
BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER nodes_mark_first_labels_update AFTER UPDATE ON nodes
WHEN NEW.labels_json IS NOT OLD.labels_json AND NOT EXISTS (SELECT 1 FROM nodes o WHERE
     o.pool_id IS NEW.pool_id AND o.name <> NEW.name AND o.labels_json IS NOT NULL)
BEGIN
    INSERT INTO change_marks(day, n) VALUES (0, 1) ON CONFLICT(day) DO UPDATE SET n = n + 1;
END;

-- A pool's facts reach its nodes' lives: from the earliest of its first
-- sighting and its nodes' starts, open.
CREATE TRIGGER pools_span_insert AFTER INSERT ON node_pools BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        min(NEW.first_seen, coalesce((SELECT min(min(coalesce(created_at, first_seen),
                 coalesce(ready_at, first_seen), first_seen)) FROM nodes WHERE pool_id = NEW.id),
                 NEW.first_seen)) / 86400,
        2147483647, 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER pools_span_update AFTER UPDATE ON node_pools
WHEN NEW.price_hourly_micro IS NOT OLD.price_hourly_micro
  OR NEW.capacity_type IS NOT OLD.capacity_type OR NEW.size IS NOT OLD.size
  OR NEW.name IS NOT OLD.name
BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        min(NEW.first_seen, OLD.first_seen,
            coalesce((SELECT min(min(coalesce(created_at, first_seen),
                 coalesce(ready_at, first_seen), first_seen)) FROM nodes WHERE pool_id = NEW.id),
                 NEW.first_seen)) / 86400,
        2147483647, 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

-- A pool's deletion (a reclaim's time): from the earliest old or new value on.
CREATE TRIGGER pools_span_deleted AFTER UPDATE ON node_pools
WHEN NEW.deleted_at IS NOT OLD.deleted_at
BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        min(coalesce(NEW.deleted_at, OLD.deleted_at), coalesce(OLD.deleted_at, NEW.deleted_at))
            / 86400, 2147483647, 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

-- A size's price takes effect at its observation; the size's first price also
-- prices what came before it (day 0 on).
CREATE TRIGGER prices_span_insert AFTER INSERT ON size_prices BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        CASE WHEN EXISTS (SELECT 1 FROM size_prices p WHERE p.slug = NEW.slug
                          AND p.observed_at < NEW.observed_at)
             THEN NEW.observed_at / 86400 ELSE 0 END,
        2147483647, 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

-- A reclaim: from a day before its first signal (or its detection) on.
CREATE TRIGGER reclaims_span_insert AFTER INSERT ON reclaims BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        max(0, min(coalesce(NEW.first_signal_at, NEW.detected_at), NEW.detected_at) / 86400 - 1),
        2147483647, 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER reclaims_span_update AFTER UPDATE ON reclaims
WHEN NEW.pool_id IS NOT OLD.pool_id OR NEW.detected_at IS NOT OLD.detected_at
  OR NEW.first_signal_at IS NOT OLD.first_signal_at OR NEW.nodes IS NOT OLD.nodes
BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        max(0, min(coalesce(NEW.first_signal_at, NEW.detected_at), NEW.detected_at,
                   coalesce(OLD.first_signal_at, OLD.detected_at), OLD.detected_at) / 86400 - 1),
        2147483647, 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER reclaims_span_delete AFTER DELETE ON reclaims BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        max(0, min(coalesce(OLD.first_signal_at, OLD.detected_at), OLD.detected_at) / 86400 - 1),
        2147483647, 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

-- Billing facts are reconciled per month (the window's months): an invoice's
-- month; no readable period: every day.
CREATE TRIGGER invoices_span_insert AFTER INSERT ON invoices BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        coalesce(CAST(strftime('%s', NEW.period || '-01') AS INTEGER) / 86400, 0),
        coalesce(CAST(strftime('%s', NEW.period || '-01', '+1 month') AS INTEGER) / 86400 - 1,
                 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoices_span_update AFTER UPDATE ON invoices
WHEN NEW.amount_micro IS NOT OLD.amount_micro OR NEW.is_preview IS NOT OLD.is_preview
  OR NEW.period IS NOT OLD.period
BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        coalesce(CAST(strftime('%s', NEW.period || '-01') AS INTEGER) / 86400, 0),
        coalesce(CAST(strftime('%s', NEW.period || '-01', '+1 month') AS INTEGER) / 86400 - 1,
                 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
    INSERT INTO change_spans(lo, hi, n) VALUES (
        coalesce(CAST(strftime('%s', OLD.period || '-01') AS INTEGER) / 86400, 0),
        coalesce(CAST(strftime('%s', OLD.period || '-01', '+1 month') AS INTEGER) / 86400 - 1,
                 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoice_items_span_insert AFTER INSERT ON invoice_items BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        coalesce((SELECT CAST(strftime('%s', period || '-01') AS INTEGER) / 86400
                  FROM invoices WHERE uuid = NEW.invoice_uuid), 0),
        coalesce((SELECT CAST(strftime('%s', period || '-01', '+1 month') AS INTEGER) / 86400 - 1
                  FROM invoices WHERE uuid = NEW.invoice_uuid), 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoice_items_span_update AFTER UPDATE ON invoice_items
WHEN NEW.amount_micro IS NOT OLD.amount_micro OR NEW.resource_uuid IS NOT OLD.resource_uuid
  OR NEW.description IS NOT OLD.description OR NEW.invoice_uuid IS NOT OLD.invoice_uuid
BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        coalesce((SELECT CAST(strftime('%s', period || '-01') AS INTEGER) / 86400
                  FROM invoices WHERE uuid = NEW.invoice_uuid), 0),
        coalesce((SELECT CAST(strftime('%s', period || '-01', '+1 month') AS INTEGER) / 86400 - 1
                  FROM invoices WHERE uuid = NEW.invoice_uuid), 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
    INSERT INTO change_spans(lo, hi, n) VALUES (
        coalesce((SELECT CAST(strftime('%s', period || '-01') AS INTEGER) / 86400
                  FROM invoices WHERE uuid = OLD.invoice_uuid), 0),
        coalesce((SELECT CAST(strftime('%s', period || '-01', '+1 month') AS INTEGER) / 86400 - 1
                  FROM invoices WHERE uuid = OLD.invoice_uuid), 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoice_items_span_delete AFTER DELETE ON invoice_items BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        coalesce((SELECT CAST(strftime('%s', period || '-01') AS INTEGER) / 86400
                  FROM invoices WHERE uuid = OLD.invoice_uuid), 0),
        coalesce((SELECT CAST(strftime('%s', period || '-01', '+1 month') AS INTEGER) / 86400 - 1
                  FROM invoices WHERE uuid = OLD.invoice_uuid), 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;
