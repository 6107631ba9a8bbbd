-- Bookings, their notes and payments.
-- SQLite twin of migrations/postgres (see 0001 for the type mapping).

CREATE TABLE bookings (
    tenant_id           TEXT NOT NULL,
    id                  BLOB NOT NULL,
    -- Human-readable, from the alphabet ABCDEFGHJKLMNPQRSTUVWXYZ23456789.
    reference           TEXT NOT NULL,
    site_id             BLOB NOT NULL,
    product_id          BLOB NOT NULL,
    -- The slot whose seats the booking holds. No foreign key: regeneration may delete a
    -- slot once no booking holds seats in it; the booking keeps its times below.
    slot_id             BLOB NOT NULL,
    starts_at           TEXT NOT NULL,
    ends_at             TEXT NOT NULL,
    variant_id          BLOB,
    customer_id         BLOB,
    customer_name       TEXT NOT NULL DEFAULT '',
    -- Lower case.
    customer_email      TEXT NOT NULL DEFAULT '',
    customer_phone      TEXT NOT NULL DEFAULT '',
    -- customer_phone with only its digits, for lookups.
    customer_phone_key  TEXT NOT NULL DEFAULT '',
    party_size          INTEGER NOT NULL CHECK (party_size > 0),
    status              TEXT NOT NULL CHECK (status IN ('hold', 'tentative', 'confirmed',
                            'part_paid', 'paid', 'arrived', 'completed', 'canceled',
                            'no_show', 'expired')),
    hold_expires_at     TEXT,
    -- Chosen add-ons [{addonId, quantity}] and participants as sent.
    addons              TEXT  NOT NULL DEFAULT '[]',
    participants        TEXT  NOT NULL DEFAULT '[]',
    -- The price breakdown in minor units (basePrice, addons[], subtotal, tax, total).
    price               TEXT  NOT NULL,
    total               INTEGER NOT NULL CHECK (total >= 0),
    paid_amount         INTEGER NOT NULL DEFAULT 0 CHECK (paid_amount >= 0),
    currency            TEXT NOT NULL,
    pricing_hash        TEXT NOT NULL,
    -- SHA-256 of the booking token given to whoever made the hold.
    token_hash          TEXT NOT NULL,
    source              TEXT NOT NULL CHECK (source IN ('public', 'admin')),
    payment_method      TEXT,
    admin_notes         TEXT,
    send_confirmation   INTEGER NOT NULL DEFAULT 1,
    created_by          TEXT,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    confirmed_at        TEXT,
    canceled_at         TEXT,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT bookings_reference UNIQUE (tenant_id, reference),
    FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id),
    FOREIGN KEY (tenant_id, site_id) REFERENCES sites (tenant_id, id)
);
CREATE INDEX bookings_slot_status ON bookings (tenant_id, slot_id, status);
CREATE INDEX bookings_created ON bookings (tenant_id, created_at);
CREATE INDEX bookings_starts ON bookings (tenant_id, starts_at);
CREATE INDEX bookings_email ON bookings (tenant_id, customer_email);
CREATE INDEX bookings_phone ON bookings (tenant_id, customer_phone_key);
CREATE INDEX bookings_customer ON bookings (tenant_id, customer_id);
CREATE INDEX bookings_hold_expiry ON bookings (status, hold_expires_at);
-- The holds of a slot, for reclaiming overdue ones before each new hold.
CREATE INDEX bookings_slot_holds ON bookings (tenant_id, slot_id, hold_expires_at) WHERE status = 'hold';

CREATE TABLE booking_notes (
    tenant_id        TEXT NOT NULL,
    id               BLOB NOT NULL,
    booking_id       BLOB NOT NULL,
    content          TEXT NOT NULL,
    category         TEXT NOT NULL CHECK (category IN ('general', 'special_request', 'issue',
                         'follow_up', 'resolution')),
    priority         TEXT NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
    is_internal      INTEGER NOT NULL,
    created_by       TEXT NOT NULL,
    created_by_name  TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id)
);
CREATE INDEX booking_notes_booking ON booking_notes (tenant_id, booking_id, created_at);

CREATE TABLE payments (
    tenant_id          TEXT NOT NULL,
    id                 BLOB NOT NULL,
    booking_id         BLOB NOT NULL,
    -- Minor units of the booking's currency.
    amount             INTEGER NOT NULL CHECK (amount >= 0),
    currency           TEXT NOT NULL,
    -- poa, cardpay, bankpay, cash, card_terminal, comp, invoice, …
    method             TEXT NOT NULL,
    -- The provider's payment method reference given at confirmation, if any.
    method_reference   TEXT,
    status             TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
    recorded_by        TEXT,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id)
);
CREATE INDEX payments_booking ON payments (tenant_id, booking_id, created_at);
