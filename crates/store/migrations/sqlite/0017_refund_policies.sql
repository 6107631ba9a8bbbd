-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- A tenant's cancellation fee (spec Part B 4.6: flat, percentage or time-based); no row:
-- time-based, the site policy's schedule.
CREATE TABLE refund_policies (
    tenant_id   TEXT PRIMARY KEY REFERENCES tenants (id),
    fee_type    TEXT NOT NULL CHECK (fee_type IN ('time_based', 'flat', 'percentage')),
    -- minor units, flat only
    flat_fee    INTEGER CHECK (flat_fee BETWEEN 0 AND 100000000),
    -- percentage only
    percentage  INTEGER CHECK (percentage BETWEEN 0 AND 100),
    updated_at  TEXT NOT NULL,
    CHECK ((fee_type = 'flat') = (flat_fee IS NOT NULL)),
    CHECK ((fee_type = 'percentage') = (percentage IS NOT NULL))
);
