-- Participants and waivers (spec Part B 2.6, 4.5, 4.8).
--
-- A booking's participants stay in bookings.participants (a JSON array); each now has an
-- id, so that a waiver can be signed for that person and staff can edit them one by one.
UPDATE bookings SET participants = (
    SELECT jsonb_agg(x.e || jsonb_build_object('id', gen_random_uuid()::text) ORDER BY x.o)
    FROM jsonb_array_elements(bookings.participants) WITH ORDINALITY AS x(e, o))
WHERE jsonb_typeof(participants) = 'array' AND jsonb_array_length(participants) > 0;

-- How check-in treats a booking whose waivers are missing: warn (staff are told, the
-- booking is marked arrived) or refuse (nobody starts before every waiver is in).
ALTER TABLE products ADD COLUMN waiver_check_in TEXT NOT NULL DEFAULT 'warn'
    CHECK (waiver_check_in IN ('warn', 'refuse'));
-- How long signed waivers are kept, counted from the signature (spec Part B 8: 7 years
-- or per local regulations).
ALTER TABLE tenants ADD COLUMN waiver_retention_years INTEGER NOT NULL DEFAULT 7
    CHECK (waiver_retention_years BETWEEN 1 AND 100);

-- A waiver's text in one language at one version. A new version is a new row; the
-- versions before it are deactivated, and their signatures stay valid.
CREATE TABLE waiver_templates (
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    id             UUID NOT NULL,
    name           TEXT NOT NULL,
    content        TEXT NOT NULL,
    -- SHA-256 of content, hex: what each signature of this version agreed to
    content_hash   TEXT NOT NULL,
    version        TEXT NOT NULL,
    locale         TEXT NOT NULL,
    is_active      BOOLEAN NOT NULL DEFAULT TRUE,
    -- the products and sites it covers; empty: every product (site)
    product_ids    JSONB NOT NULL,
    site_ids       JSONB NOT NULL,
    created_by     TEXT NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    deactivated_at TIMESTAMPTZ,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, name, locale, version)
);

-- One signed waiver: for one participant of a booking (subject = the participant's id),
-- or for the whole booking by the legacy endpoint (subject = 'booking'); signed online
-- or collected on paper at the desk. One per subject: a second is ALREADY_SIGNED.
CREATE TABLE waiver_signatures (
    tenant_id             TEXT NOT NULL REFERENCES tenants (id),
    id                    UUID NOT NULL,
    booking_id            UUID NOT NULL,
    subject               TEXT NOT NULL,
    participant_id        UUID,
    participant_name      TEXT NOT NULL,
    template_id           UUID,
    template_name         TEXT NOT NULL,
    template_version      TEXT,
    content_hash          TEXT,
    method                TEXT NOT NULL CHECK (method IN ('online', 'paper')),
    signed_by_name        TEXT NOT NULL,
    signed_by_email       TEXT,
    signature_data        TEXT,
    signature_format      TEXT CHECK (signature_format IN ('png', 'svg')),
    is_minor              BOOLEAN NOT NULL DEFAULT FALSE,
    is_guardian_signature BOOLEAN NOT NULL DEFAULT FALSE,
    guardian_relationship TEXT,
    ip_address            TEXT,
    user_agent            TEXT,
    paper_reference       TEXT,
    notes                 TEXT,
    collected_by          TEXT,
    signed_at             TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, booking_id, subject)
);
CREATE INDEX waiver_signatures_by_time ON waiver_signatures (tenant_id, signed_at);
CREATE INDEX waiver_signatures_by_template ON waiver_signatures (tenant_id, template_id);

-- Signing links sent by staff (a reminder for a booking, or for one participant).
CREATE TABLE waiver_reminders (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    id         UUID NOT NULL,
    booking_id UUID NOT NULL,
    subject    TEXT NOT NULL,
    sent_by    TEXT NOT NULL,
    sent_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX waiver_reminders_by_booking ON waiver_reminders (tenant_id, booking_id);

-- Finding the booking of a participant (a signing link sent for one person).
CREATE INDEX bookings_participants ON bookings USING GIN (participants jsonb_path_ops);
