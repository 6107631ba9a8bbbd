-- Customer issues (spec Part B 4.8): category, priority and the due time of a response,
-- the resolution and its compensation (a credit voucher, or a refund of the booking's
-- payment).
CREATE TABLE issues (
    tenant_id              TEXT NOT NULL REFERENCES tenants (id),
    id                     UUID NOT NULL,
    booking_id             UUID,
    category               TEXT NOT NULL CHECK (category IN ('safety', 'service_quality',
                               'billing', 'booking_error', 'equipment', 'experience',
                               'general')),
    priority               TEXT NOT NULL CHECK (priority IN ('critical', 'high', 'medium', 'low')),
    status                 TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'resolved',
                               'closed')),
    summary                TEXT NOT NULL,
    description            TEXT,
    reported_by            TEXT,
    reported_at            TIMESTAMPTZ NOT NULL,
    contact_name           TEXT,
    contact_email          TEXT,
    contact_phone          TEXT,
    due_at                 TIMESTAMPTZ NOT NULL,
    responded_at           TIMESTAMPTZ,
    resolution             TEXT,
    -- minor units of the booking's (else the tenant's) currency
    compensation_amount    BIGINT CHECK (compensation_amount > 0),
    compensation_method    TEXT CHECK (compensation_method IN ('voucher', 'refund')),
    -- issued (voucher), pending (a refund being made), refunded, failed
    compensation_status    TEXT,
    compensation_voucher_id UUID,
    compensation_refund_id UUID,
    resolved_by            TEXT,
    resolved_at            TIMESTAMPTZ,
    customer_satisfaction  INTEGER CHECK (customer_satisfaction BETWEEN 1 AND 5),
    follow_up_required     BOOLEAN NOT NULL DEFAULT FALSE,
    created_by             TEXT NOT NULL,
    created_at             TIMESTAMPTZ NOT NULL,
    updated_at             TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id)
);
CREATE INDEX issues_list ON issues (tenant_id, reported_at);
CREATE INDEX issues_booking ON issues (tenant_id, booking_id);
