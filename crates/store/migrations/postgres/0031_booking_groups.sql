-- Booking groups (spec Part B 2.5, 3.3, 4.3): several activities held, paid and cancelled
-- together. The group's status is derived from its bookings (bookings.group_id), never
-- stored; `items` is a draft group's plan ({id, productId, siteId, slotId, partySize}),
-- whose ids become the bookings' ids when the group is held.
CREATE TABLE booking_groups (
    tenant_id              TEXT NOT NULL REFERENCES tenants (id),
    id                     UUID NOT NULL,
    reference              TEXT NOT NULL,
    group_type             TEXT NOT NULL CHECK (group_type IN ('PACKAGE', 'CUSTOM')),
    package_id             UUID,
    party_size             INTEGER NOT NULL CHECK (party_size BETWEEN 1 AND 500),
    customer_name          TEXT NOT NULL DEFAULT '',
    customer_email         TEXT NOT NULL DEFAULT '',
    customer_phone         TEXT NOT NULL DEFAULT '',
    customer_id            UUID,
    internal_notes         TEXT,
    items                  JSONB NOT NULL DEFAULT '[]',
    -- set when its bookings are held; a held group's plan no longer changes
    held_at                TIMESTAMPTZ,
    hold_expires_at        TIMESTAMPTZ,
    token_hash             TEXT NOT NULL,
    source                 TEXT NOT NULL CHECK (source IN ('public', 'admin')),
    created_by             TEXT,
    created_at             TIMESTAMPTZ NOT NULL,
    updated_at             TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, reference)
);
CREATE INDEX booking_groups_email ON booking_groups (tenant_id, customer_email);

ALTER TABLE bookings ADD COLUMN group_id UUID;
CREATE INDEX bookings_group ON bookings (tenant_id, group_id) WHERE group_id IS NOT NULL;
