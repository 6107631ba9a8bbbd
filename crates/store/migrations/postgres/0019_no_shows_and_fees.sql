-- No-shows and fees (spec Part B 2.8, 4.8, 4.9): a tenant's no-show fee policy, a site's
-- detection window, fees on bookings and their off-session charges, the no-show tracking
-- record, and customers blocked from new holds.

CREATE TABLE no_show_policies (
    tenant_id    TEXT PRIMARY KEY REFERENCES tenants (id),
    enabled      BOOLEAN NOT NULL,
    fee_type     TEXT NOT NULL CHECK (fee_type IN ('flat', 'percentage')),
    -- minor units, flat only
    flat_fee     BIGINT CHECK (flat_fee BETWEEN 0 AND 100000000),
    -- percentage only
    percentage   INTEGER CHECK (percentage BETWEEN 0 AND 100),
    auto_charge  BOOLEAN NOT NULL DEFAULT FALSE,
    updated_at   TIMESTAMPTZ NOT NULL,
    CHECK ((fee_type = 'flat') = (flat_fee IS NOT NULL)),
    CHECK ((fee_type = 'percentage') = (percentage IS NOT NULL))
);

-- Minutes after a booking's start without an arrival before the detection job marks it a
-- no-show; NULL: off (the default).
ALTER TABLE sites ADD COLUMN no_show_detection_minutes INTEGER
    CHECK (no_show_detection_minutes BETWEEN 1 AND 1440);

CREATE TABLE booking_fees (
    tenant_id            TEXT NOT NULL,
    id                   UUID NOT NULL,
    booking_id           UUID NOT NULL,
    fee_type             TEXT NOT NULL CHECK (fee_type IN ('no_show', 'damage',
                             'late_cancellation', 'other')),
    -- minor units
    amount               BIGINT NOT NULL CHECK (amount BETWEEN 0 AND 100000000),
    currency             TEXT NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('pending', 'owed', 'charged',
                             'waived', 'cancelled', 'refunded')),
    reason               TEXT,
    notes                TEXT,
    -- the off-session charge's payment (payments.fee_id points back)
    payment_id           UUID,
    charge_attempts      INTEGER NOT NULL DEFAULT 0,
    last_error_code      TEXT,
    last_error_message   TEXT,
    assessed_by          TEXT NOT NULL,
    created_at           TIMESTAMPTZ NOT NULL,
    processed_at         TIMESTAMPTZ,
    processed_by         TEXT,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id)
);
CREATE INDEX booking_fees_booking ON booking_fees (tenant_id, booking_id, created_at);

CREATE TABLE no_shows (
    tenant_id                 TEXT NOT NULL,
    id                        UUID NOT NULL,
    booking_id                UUID NOT NULL,
    no_show_time              TIMESTAMPTZ NOT NULL,
    minutes_past_start_time   INTEGER NOT NULL,
    detected_at               TIMESTAMPTZ NOT NULL,
    detection_method          TEXT NOT NULL CHECK (detection_method IN ('auto', 'manual')),
    -- minor units: the fee the tenant's policy calculated (0 when disabled)
    fee_calculated            BIGINT NOT NULL DEFAULT 0,
    fee_id                    UUID,
    marked_by                 TEXT NOT NULL,
    reason                    TEXT,
    notes                     TEXT,
    contact_attempts          JSONB NOT NULL DEFAULT '[]',
    block_future_bookings     BOOLEAN NOT NULL DEFAULT FALSE,
    resolution                TEXT CHECK (resolution IN ('fee_charged', 'fee_waived',
                                  'arrived_late', 'rescheduled')),
    resolved_at               TIMESTAMPTZ,
    resolution_notes          TEXT,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, booking_id),
    FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id),
    FOREIGN KEY (tenant_id, fee_id) REFERENCES booking_fees (tenant_id, id)
);
CREATE INDEX no_shows_open ON no_shows (tenant_id, resolved_at, detected_at);

-- Customers refused new holds after a no-show, by email (lower case) and account.
CREATE TABLE customer_blocks (
    tenant_id    TEXT NOT NULL REFERENCES tenants (id),
    id           UUID NOT NULL,
    email        TEXT NOT NULL,
    customer_id  UUID,
    booking_id   UUID,
    reason       TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    created_by   TEXT NOT NULL,
    lifted_at    TIMESTAMPTZ,
    lifted_by    TEXT,
    lift_reason  TEXT,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX customer_blocks_email ON customer_blocks (tenant_id, email) WHERE lifted_at IS NULL;

-- A fee's off-session charge is a payment of its own: no booking_id (it is not part of the
-- booking's price, so nothing that sums a booking's payments counts it), its fee instead.
ALTER TABLE payments ADD COLUMN fee_id UUID;
CREATE INDEX payments_fee ON payments (tenant_id, fee_id) WHERE fee_id IS NOT NULL;
