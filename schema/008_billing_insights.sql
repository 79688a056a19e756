-- DigitalOcean billing insights (GET /v2/billing/{account_urn}/insights/...):
-- daily usage per SKU and description, polled with the billing data
-- (source/do_insights.h). One row per (day, sku, region, description,
-- group_description); a later poll replaces the amount (a day's usage grows
-- until it closes). amount in micro-dollars; day = the UTC midnight.
-- The reconciliation sums them per node pool (engine/reconcile.h).
CREATE TABLE billing_insights (
    day                INTEGER NOT NULL,
    sku                TEXT NOT NULL,
    region             TEXT NOT NULL,
    description        TEXT NOT NULL,
    group_description  TEXT NOT NULL,
    amount             INTEGER NOT NULL,
    first_seen         INTEGER NOT NULL,
    last_seen          INTEGER NOT NULL,
    PRIMARY KEY (day, sku, region, description, group_description)
);
