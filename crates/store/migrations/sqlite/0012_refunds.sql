-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Refunds of payments (spec Part B 2.8, 3.5, 4.6): one row per refund asked of a
-- provider, written (Processing) before the provider is called, so that a crash leaves a
-- record to finish and the provider call's idempotency key (the refund's id) makes a
-- retry return the same refund.
CREATE TABLE refunds (
    tenant_id           TEXT NOT NULL,
    id                  BLOB NOT NULL,
    payment_id          BLOB NOT NULL,
    booking_id          BLOB,
    -- minor units returned to the customer, and the fee kept
    amount              INTEGER NOT NULL CHECK (amount > 0),
    fee                 INTEGER NOT NULL DEFAULT 0 CHECK (fee >= 0),
    currency            TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('Pending', 'Processing', 'Completed', 'Failed')),
    provider_refund_id  TEXT,
    reason              TEXT,
    failure             TEXT,
    requested_by        TEXT,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    completed_at        TEXT,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, payment_id) REFERENCES payments (tenant_id, id)
);
CREATE INDEX refunds_payment ON refunds (tenant_id, payment_id);
