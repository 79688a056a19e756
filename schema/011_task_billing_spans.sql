-- Tasks' change marks without day 0 (docs/performance.md "Closed, kept,
-- invalidated"). Schema/004 marked a task's completion day and creation day,
-- reading a task not yet complete as day 0 ("global"): on a live cluster every
-- new task and every completion invalidated every kept day and every cached
-- window (measured on a year played through spotsim: 9,025 day-0 marks by the
-- 88th day). Now a task marks the days from its creation to its completion
-- (creation day only while it is unfinished); a change marks the days from the
-- earliest to the latest of its old and new times. A task without any time (a
-- placeholder for a pod seen before its Job) marks from its first sighting on:
-- it is in no window but through its attempts, which mark their own days.
--
-- Billing facts (invoices, their items) move to billing_spans: the response
-- cache's window version counts them (a summary carries the reconciliation of
-- its months), the days' partial sums do not (no cost figure reads billing), so
-- the preview invoice, which changes all month, no longer invalidates the
-- month's kept days.

DROP TRIGGER tasks_mark_insert;
DROP TRIGGER tasks_mark_update;

CREATE TRIGGER tasks_span_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        coalesce(min(coalesce(NEW.created_at, NEW.completed_at),
                     coalesce(NEW.completed_at, NEW.created_at)), NEW.first_seen) / 86400,
        coalesce(max(coalesce(NEW.created_at, NEW.completed_at),
                     coalesce(NEW.completed_at, NEW.created_at)) / 86400, 2147483647),
        1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER tasks_span_update AFTER UPDATE ON tasks
WHEN NEW.completed_at IS NOT OLD.completed_at OR NEW.outcome IS NOT OLD.outcome
  OR NEW.configuration IS NOT OLD.configuration OR NEW.experiment IS NOT OLD.experiment
  OR NEW.namespace IS NOT OLD.namespace OR NEW.name IS NOT OLD.name
  OR NEW.created_at IS NOT OLD.created_at
BEGIN
    INSERT INTO change_spans(lo, hi, n) VALUES (
        coalesce(min(coalesce(NEW.created_at, NEW.completed_at, OLD.created_at, OLD.completed_at),
                     coalesce(NEW.completed_at, NEW.created_at, OLD.created_at, OLD.completed_at),
                     coalesce(OLD.created_at, OLD.completed_at, NEW.created_at, NEW.completed_at),
                     coalesce(OLD.completed_at, OLD.created_at, NEW.created_at, NEW.completed_at)),
                 min(NEW.first_seen, OLD.first_seen)) / 86400,
        coalesce(max(coalesce(NEW.created_at, NEW.completed_at, OLD.created_at, OLD.completed_at),
                     coalesce(NEW.completed_at, NEW.created_at, OLD.created_at, OLD.completed_at),
                     coalesce(OLD.created_at, OLD.completed_at, NEW.created_at, NEW.completed_at),
                     coalesce(OLD.completed_at, OLD.created_at, NEW.created_at, NEW.completed_at))
                 / 86400, 2147483647),
        1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TABLE billing_spans (
    lo  INTEGER NOT NULL, -- first day (Unix day number, UTC)
    hi  INTEGER NOT NULL, -- last day, inclusive (2147483647: open)
    n   INTEGER NOT NULL,
    PRIMARY KEY (lo, hi)
) WITHOUT ROWID;

DROP TRIGGER invoices_span_insert;
DROP TRIGGER invoices_span_update;
DROP TRIGGER invoice_items_span_insert;
DROP TRIGGER invoice_items_span_update;
DROP TRIGGER invoice_items_span_delete;

-- Billing facts are reconciled per month (the window's months): an invoice's
-- month; no readable period: every day.
CREATE TRIGGER invoices_billing_insert AFTER INSERT ON invoices BEGIN
    INSERT INTO billing_spans(lo, hi, n) VALUES (
        coalesce(CAST(strftime('%s', NEW.period || '-01') AS INTEGER) / 86400, 0),
        coalesce(CAST(strftime('%s', NEW.period || '-01', '+1 month') AS INTEGER) / 86400 - 1,
                 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoices_billing_update AFTER UPDATE ON invoices
WHEN NEW.amount_micro IS NOT OLD.amount_micro OR NEW.is_preview IS NOT OLD.is_preview
  OR NEW.period IS NOT OLD.period
BEGIN
    INSERT INTO billing_spans(lo, hi, n) VALUES (
        coalesce(CAST(strftime('%s', NEW.period || '-01') AS INTEGER) / 86400, 0),
        coalesce(CAST(strftime('%s', NEW.period || '-01', '+1 month') AS INTEGER) / 86400 - 1,
                 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
    INSERT INTO billing_spans(lo, hi, n) VALUES (
        coalesce(CAST(strftime('%s', OLD.period || '-01') AS INTEGER) / 86400, 0),
        coalesce(CAST(strftime('%s', OLD.period || '-01', '+1 month') AS INTEGER) / 86400 - 1,
                 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoice_items_billing_insert AFTER INSERT ON invoice_items BEGIN
    INSERT INTO billing_spans(lo, hi, n) VALUES (
        coalesce((SELECT CAST(strftime('%s', period || '-01') AS INTEGER) / 86400
                  FROM invoices WHERE uuid = NEW.invoice_uuid), 0),
        coalesce((SELECT CAST(strftime('%s', period || '-01', '+1 month') AS INTEGER) / 86400 - 1
                  FROM invoices WHERE uuid = NEW.invoice_uuid), 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoice_items_billing_update AFTER UPDATE ON invoice_items
WHEN NEW.amount_micro IS NOT OLD.amount_micro OR NEW.resource_uuid IS NOT OLD.resource_uuid
  OR NEW.description IS NOT OLD.description OR NEW.invoice_uuid IS NOT OLD.invoice_uuid
BEGIN
    INSERT INTO billing_spans(lo, hi, n) VALUES (
        coalesce((SELECT CAST(strftime('%s', period || '-01') AS INTEGER) / 86400
                  FROM invoices WHERE uuid = NEW.invoice_uuid), 0),
        coalesce((SELECT CAST(strftime('%s', period || '-01', '+1 month') AS INTEGER) / 86400 - 1
                  FROM invoices WHERE uuid = NEW.invoice_uuid), 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
    INSERT INTO billing_spans(lo, hi, n) VALUES (
        coalesce((SELECT CAST(strftime('%s', period || '-01') AS INTEGER) / 86400
                  FROM invoices WHERE uuid = OLD.invoice_uuid), 0),
        coalesce((SELECT CAST(strftime('%s', period || '-01', '+1 month') AS INTEGER) / 86400 - 1
                  FROM invoices WHERE uuid = OLD.invoice_uuid), 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER invoice_items_billing_delete AFTER DELETE ON invoice_items BEGIN
    INSERT INTO billing_spans(lo, hi, n) VALUES (
        coalesce((SELECT CAST(strftime('%s', period || '-01') AS INTEGER) / 86400
                  FROM invoices WHERE uuid = OLD.invoice_uuid), 0),
        coalesce((SELECT CAST(strftime('%s', period || '-01', '+1 month') AS INTEGER) / 86400 - 1
                  FROM invoices WHERE uuid = OLD.invoice_uuid), 2147483647), 1)
    ON CONFLICT(lo, hi) DO UPDATE SET n = n + 1;
END;
