-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Participants and waivers (spec Part B 2.6, 4.5, 4.8).
--
-- A booking's participants stay in bookings.participants (a JSON array); each now has an
-- id, so that a waiver can be signed for that person and staff can edit them one by one.
UPDATE bookings SET participants = (
    SELECT json_group_array(json_set(p.value, '$.id',
        lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4'
            || substr(hex(randomblob(2)), 2) || '-'
            || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2)
            || '-' || hex(randomblob(6)))))
    FROM (SELECT value FROM json_each(bookings.participants) ORDER BY key) p)
WHERE json_type(participants) = 'array' AND json_array_length(participants) > 0;

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
    id             BLOB NOT NULL,
    name           TEXT NOT NULL,
    content        TEXT NOT NULL,
    -- SHA-256 of content, hex: what each signature of this version agreed to
    content_hash   TEXT NOT NULL,
    version        TEXT NOT NULL,
    locale         TEXT NOT NULL,
    is_active      INTEGER NOT NULL DEFAULT 1,
    -- the products and sites it covers; empty: every product (site)
    product_ids    TEXT NOT NULL,
    site_ids       TEXT NOT NULL,
    created_by     TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    deactivated_at TEXT,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, name, locale, version)
);

-- One signed waiver: for one participant of a booking (subject = the participant's id),
-- or for the whole booking by the legacy endpoint (subject = 'booking'); signed online
-- or collected on paper at the desk. One per subject: a second is ALREADY_SIGNED.
CREATE TABLE waiver_signatures (
    tenant_id             TEXT NOT NULL REFERENCES tenants (id),
    id                    BLOB NOT NULL,
    booking_id            BLOB NOT NULL,
    subject               TEXT NOT NULL,
    participant_id        BLOB,
    participant_name      TEXT NOT NULL,
    template_id           BLOB,
    template_name         TEXT NOT NULL,
    template_version      TEXT,
    content_hash          TEXT,
    method                TEXT NOT NULL CHECK (method IN ('online', 'paper')),
    signed_by_name        TEXT NOT NULL,
    signed_by_email       TEXT,
    signature_data        TEXT,
    signature_format      TEXT CHECK (signature_format IN ('png', 'svg')),
    is_minor              INTEGER NOT NULL DEFAULT 0,
    is_guardian_signature INTEGER NOT NULL DEFAULT 0,
    guardian_relationship TEXT,
    ip_address            TEXT,
    user_agent            TEXT,
    paper_reference       TEXT,
    notes                 TEXT,
    collected_by          TEXT,
    signed_at             TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, booking_id, subject)
);
CREATE INDEX waiver_signatures_by_time ON waiver_signatures (tenant_id, signed_at);
CREATE INDEX waiver_signatures_by_template ON waiver_signatures (tenant_id, template_id);

-- Signing links sent by staff (a reminder for a booking, or for one participant).
CREATE TABLE waiver_reminders (
    tenant_id  TEXT NOT NULL REFERENCES tenants (id),
    id         BLOB NOT NULL,
    booking_id BLOB NOT NULL,
    subject    TEXT NOT NULL,
    sent_by    TEXT NOT NULL,
    sent_at    TEXT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX waiver_reminders_by_booking ON waiver_reminders (tenant_id, booking_id);
