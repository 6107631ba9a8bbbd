-- Messaging (spec Part B 2.7, 4.7, 4.8, 4.11): tenants' message templates, automation
-- rules and their firings, the message log, the dead-letter queue, customers' message
-- preferences, and the booking times automation rules count from.
--
-- Global default templates are not rows: they ship in the binary
-- (kairos_domain::messaging::catalog) and are shown with isGlobal = true.

CREATE TABLE message_templates (
    tenant_id         TEXT NOT NULL REFERENCES tenants (id),
    id                UUID NOT NULL,
    site_id           UUID,
    -- '' for a tenant-wide template, the site id as text otherwise: the unique key below
    -- cannot rely on NULL (two NULLs never collide).
    scope_key         TEXT NOT NULL,
    template_key      TEXT NOT NULL,
    language_code     TEXT NOT NULL,
    template_type     TEXT NOT NULL CHECK (template_type IN ('email', 'sms')),
    subject_template  TEXT NOT NULL,
    body_template     TEXT NOT NULL,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, site_id) REFERENCES sites (tenant_id, id),
    CONSTRAINT message_templates_key UNIQUE (tenant_id, scope_key, template_key, language_code, template_type)
);

CREATE TABLE automation_rules (
    tenant_id            TEXT NOT NULL REFERENCES tenants (id),
    id                   UUID NOT NULL,
    name                 TEXT NOT NULL,
    description          TEXT NOT NULL DEFAULT '',
    trigger_event        TEXT NOT NULL CHECK (trigger_event IN ('booking_created', 'booking_confirmed', 'booking_completed', 'booking_date')),
    -- negative = before the anchor (the booking's start for booking_date)
    trigger_offset       INTEGER NOT NULL,
    trigger_offset_unit  TEXT NOT NULL CHECK (trigger_offset_unit IN ('hours', 'days')),
    template_key         TEXT NOT NULL,
    template_id          UUID,
    -- JSON arrays of ids; empty = every product / site
    product_ids          JSONB NOT NULL DEFAULT '[]',
    site_ids             JSONB NOT NULL DEFAULT '[]',
    is_active            BOOLEAN NOT NULL,
    -- which of the product's default rules (spec 4.8) this is; NULL for a tenant's own
    default_key          TEXT,
    -- when the rule last became active: firings due before then are not caught up
    active_since         TIMESTAMPTZ NOT NULL,
    -- the scheduler has looked at due times up to here
    scanned_until        TIMESTAMPTZ,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT automation_rules_default UNIQUE (tenant_id, default_key)
);
CREATE INDEX automation_rules_active ON automation_rules (is_active, tenant_id);

-- One row per (rule, booking, anchor): the scheduler fires a rule for a booking only by
-- inserting this row, so two workers never both fire it. The anchor is the booking time
-- the firing counted from (its start for booking_date rules, the event's time otherwise):
-- a booking moved to a new time is reminded again for the new time.
CREATE TABLE automation_firings (
    tenant_id   TEXT NOT NULL,
    rule_id     UUID NOT NULL,
    booking_id  UUID NOT NULL,
    anchor      TIMESTAMPTZ NOT NULL,
    fired_at    TIMESTAMPTZ NOT NULL,
    -- sent, or why nothing was sent (canceled, opted_out, no_template, …)
    outcome     TEXT NOT NULL,
    messages    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, rule_id, booking_id, anchor),
    FOREIGN KEY (tenant_id, rule_id) REFERENCES automation_rules (tenant_id, id) ON DELETE CASCADE
);

-- Every message the product sends, as rendered. Delivery runs through the outbox (a row of
-- kind 'message' with the same id), which holds attempts and retry times.
CREATE TABLE messages (
    tenant_id       TEXT NOT NULL REFERENCES tenants (id),
    id              UUID NOT NULL,
    channel         TEXT NOT NULL CHECK (channel IN ('email', 'sms')),
    template_key    TEXT,
    -- automation, booking, send, bulk
    source          TEXT NOT NULL,
    recipient       TEXT NOT NULL,
    recipient_name  TEXT NOT NULL DEFAULT '',
    customer_id     UUID,
    booking_id      UUID,
    rule_id         UUID,
    bulk_id         UUID,
    subject         TEXT NOT NULL DEFAULT '',
    body            TEXT NOT NULL,
    priority        TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high')),
    track_delivery  BOOLEAN NOT NULL DEFAULT FALSE,
    status          TEXT NOT NULL CHECK (status IN ('queued', 'delivered', 'failed', 'canceled')),
    send_after      TIMESTAMPTZ NOT NULL,
    sent_at         TIMESTAMPTZ,
    delivered_at    TIMESTAMPTZ,
    opened_at       TIMESTAMPTZ,
    clicked_at      TIMESTAMPTZ,
    failed_at       TIMESTAMPTZ,
    last_error      TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX messages_recent ON messages (tenant_id, created_at);
CREATE INDEX messages_booking ON messages (tenant_id, booking_id);
CREATE INDEX messages_bulk ON messages (tenant_id, bulk_id);

-- Bulk sends: the filter, the message, and progress.
CREATE TABLE message_bulks (
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            UUID NOT NULL,
    channel       TEXT NOT NULL CHECK (channel IN ('email', 'sms')),
    subject       TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL,
    filter        JSONB NOT NULL,
    send_at       TIMESTAMPTZ NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('scheduled', 'sending', 'completed', 'canceled')),
    total         INTEGER NOT NULL DEFAULT 0,
    skipped       INTEGER NOT NULL DEFAULT 0,
    created_by    TEXT,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id)
);

-- Work that failed for good (spec Part B 4.11): a message after its last attempt, and
-- later payments and booking operations. Staff retry, resolve or skip each one.
CREATE TABLE dead_letters (
    tenant_id       TEXT NOT NULL REFERENCES tenants (id),
    id              UUID NOT NULL,
    category        TEXT NOT NULL CHECK (category IN ('notification', 'payment', 'booking_operation')),
    -- what failed, e.g. 'email', 'sms'
    kind            TEXT NOT NULL,
    error_type      TEXT NOT NULL,
    error_message   TEXT NOT NULL,
    retry_count     INTEGER NOT NULL,
    outbox_id       UUID,
    booking_id      UUID,
    transaction_id  UUID,
    status          TEXT NOT NULL CHECK (status IN ('open', 'retrying', 'resolved', 'skipped')),
    resolution      TEXT,
    resolved_by     TEXT,
    resolved_at     TIMESTAMPTZ,
    failed_at       TIMESTAMPTZ NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, id),
    CONSTRAINT dead_letters_outbox UNIQUE (tenant_id, outbox_id)
);
CREATE INDEX dead_letters_status ON dead_letters (tenant_id, status, failed_at);

CREATE INDEX outbox_kind_due ON outbox (kind, status, next_attempt_at);

-- Customers' message preferences (spec Part B 4.8). SMS also needs sms_opt_in, marketing
-- marketing_opt_in (both in 0001).
ALTER TABLE customers ADD COLUMN email_booking_confirmation BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE customers ADD COLUMN email_reminders BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE customers ADD COLUMN email_follow_up BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE customers ADD COLUMN sms_reminders BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE customers ADD COLUMN sms_arrival_confirmation BOOLEAN NOT NULL DEFAULT TRUE;
ALTER TABLE customers ADD COLUMN language TEXT;
ALTER TABLE customers ADD COLUMN timezone TEXT;

-- The times automation rules count from: booking_created uses confirmed_at (when a hold
-- became a booking), booking_confirmed paid_at, booking_completed completed_at.
ALTER TABLE bookings ADD COLUMN paid_at TIMESTAMPTZ;
ALTER TABLE bookings ADD COLUMN completed_at TIMESTAMPTZ;
UPDATE bookings SET paid_at = updated_at WHERE status = 'paid';
UPDATE bookings SET completed_at = updated_at WHERE status = 'completed';
CREATE INDEX bookings_confirmed_at ON bookings (tenant_id, confirmed_at);
CREATE INDEX bookings_paid_at ON bookings (tenant_id, paid_at);
CREATE INDEX bookings_completed_at ON bookings (tenant_id, completed_at);

-- Existing tenants get the default rules that new tenants get at creation (a snapshot of
-- kairos_domain::messaging::automation::DEFAULT_RULES).
INSERT INTO automation_rules (tenant_id, id, name, description, trigger_event, trigger_offset,
        trigger_offset_unit, template_key, is_active, default_key, active_since, created_at, updated_at)
SELECT t.id, gen_random_uuid(), d.name, d.description, d.trigger_event, d.trigger_offset,
       d.unit, d.template_key, TRUE, d.default_key, now(), now(), now()
FROM tenants t
CROSS JOIN (VALUES
    ('booking_confirmation', 'Booking confirmation', 'Email when a booking is made.', 'booking_created', 0, 'hours', 'booking_confirmation'),
    ('payment_receipt', 'Payment receipt', 'Email when the booking is paid.', 'booking_confirmed', 0, 'hours', 'payment_receipt'),
    ('waiver_reminder_7d', 'Waiver reminder, 7 days before', 'While a waiver is unsigned.', 'booking_date', -7, 'days', 'waiver_reminder'),
    ('waiver_reminder_2d', 'Waiver reminder, 2 days before', 'While a waiver is unsigned.', 'booking_date', -2, 'days', 'waiver_reminder'),
    ('waiver_reminder_1d', 'Waiver reminder, 1 day before', 'While a waiver is unsigned.', 'booking_date', -1, 'days', 'waiver_reminder'),
    ('waiver_reminder_day', 'Waiver reminder, on the day', 'While a waiver is unsigned.', 'booking_date', 0, 'days', 'waiver_reminder'),
    ('pre_arrival_reminder', 'Pre-arrival reminder', 'Email and SMS 24 hours before the start.', 'booking_date', -24, 'hours', 'pre_arrival_reminder'),
    ('arrival_confirmation', 'Arrival confirmation', 'SMS on the morning of the day.', 'booking_date', 0, 'days', 'arrival_confirmation'),
    ('post_visit_follow_up', 'Post-visit follow-up', 'Email 24 hours after completion.', 'booking_completed', 24, 'hours', 'post_visit_follow_up'),
    ('feedback_request', 'Feedback request', 'Email 3 days after completion.', 'booking_completed', 3, 'days', 'feedback_request')
) AS d (default_key, name, description, trigger_event, trigger_offset, unit, template_key);
