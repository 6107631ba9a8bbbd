-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Uses of promotions by bookings. A use is taken ('held') when a code is applied to a
-- hold, becomes 'final' when the booking is confirmed, and is 'released' when the hold
-- expires, is cancelled or the code is removed. promotions.usage_count counts the uses
-- that are not released; a deleted promotion keeps its uses (the history of bookings).

CREATE TABLE promotion_usages (
    tenant_id        TEXT NOT NULL,
    id               BLOB NOT NULL,
    promotion_id     BLOB NOT NULL,
    booking_id       BLOB NOT NULL,
    -- who used it: 'customer:<account id>', else 'email:<address>', else ''
    customer_key     TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('held', 'final', 'released')),
    -- the promotion as it was applied: a later edit does not change a booking's price
    code             TEXT NOT NULL,
    name             TEXT NOT NULL,
    discount         TEXT NOT NULL,
    is_stackable     INTEGER NOT NULL,
    -- what it takes off the booking's price now (minor units)
    discount_amount  INTEGER NOT NULL DEFAULT 0 CHECK (discount_amount >= 0),
    applied_at       TEXT NOT NULL,
    finalized_at     TEXT,
    released_at      TEXT,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, promotion_id) REFERENCES promotions (tenant_id, id),
    FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id)
);
-- One live use of a promotion per booking.
CREATE UNIQUE INDEX promotion_usages_live ON promotion_usages (tenant_id, booking_id, promotion_id)
    WHERE status <> 'released';
CREATE INDEX promotion_usages_promotion ON promotion_usages (tenant_id, promotion_id, customer_key);

CREATE INDEX voucher_transactions_booking ON voucher_transactions (tenant_id, booking_id)
    WHERE booking_id IS NOT NULL;
