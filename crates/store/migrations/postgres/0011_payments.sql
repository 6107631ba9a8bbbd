-- Payments (spec Part B 2.8, 3.1, 4.6): the payment status machine's values, what the
-- providers know a payment by, the credentials a payment is made with, and the provider
-- events already processed.

-- Statuses become the spec's (Part B 3.1); CANCELED is a payment no longer to be
-- collected (settled at the desk, or its booking cancelled before paying).
ALTER TABLE payments DROP CONSTRAINT payments_status_check;
UPDATE payments SET status = CASE status
    WHEN 'pending' THEN 'PENDING'
    WHEN 'succeeded' THEN 'COMPLETED'
    WHEN 'failed' THEN 'FAILED'
    ELSE 'CANCELED' END;
ALTER TABLE payments ADD CONSTRAINT payments_status_check CHECK (status IN ('NOT_STARTED',
    'PENDING', 'AUTHORIZED', 'CAPTURED', 'COMPLETED', 'FAILED', 'REFUND_PENDING', 'REFUNDED',
    'CANCELED'));
-- A gift card purchase's payment has no booking.
ALTER TABLE payments ALTER COLUMN booking_id DROP NOT NULL;
-- cardpay or bankpay for a payment through a provider
ALTER TABLE payments ADD COLUMN provider TEXT;
-- the provider's id: the PaymentIntent (cardpay), the transaction (bankpay)
ALTER TABLE payments ADD COLUMN provider_payment_id TEXT;
-- where the credentials came from (site, tenant, env) and which site's; a refund uses
-- the same account
ALTER TABLE payments ADD COLUMN credential_source TEXT CHECK (credential_source IN ('site', 'tenant', 'env'));
ALTER TABLE payments ADD COLUMN credential_site_id UUID;
-- automatic (captured at once) or manual (authorize, then capture)
ALTER TABLE payments ADD COLUMN capture_method TEXT NOT NULL DEFAULT 'automatic';
ALTER TABLE payments ADD COLUMN redirect_url TEXT;
ALTER TABLE payments ADD COLUMN refunded_amount BIGINT NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0);
ALTER TABLE payments ADD COLUMN failure_code TEXT;
ALTER TABLE payments ADD COLUMN failure_message TEXT;
ALTER TABLE payments ADD COLUMN authorized_at TIMESTAMPTZ;
ALTER TABLE payments ADD COLUMN completed_at TIMESTAMPTZ;
ALTER TABLE payments ADD COLUMN failed_at TIMESTAMPTZ;
ALTER TABLE payments ADD COLUMN disputed_at TIMESTAMPTZ;
UPDATE payments SET completed_at = updated_at WHERE status = 'COMPLETED';
-- Provider ids are unique at the provider: an event finds its payment (and tenant) by it.
CREATE UNIQUE INDEX payments_provider_id ON payments (provider, provider_payment_id);

-- Provider credentials (spec Part B 4.6): per tenant, or per site with custom payments.
-- Secrets are sealed (AES-256-GCM under KAIROS_SECRET_KEY), never returned.
CREATE TABLE payment_credentials (
    tenant_id       TEXT NOT NULL REFERENCES tenants (id),
    provider        TEXT NOT NULL CHECK (provider IN ('cardpay', 'bankpay')),
    -- '' tenant-wide, else the site id as text (two NULLs never collide in a key)
    scope_key       TEXT NOT NULL,
    site_id         UUID,
    secret_key      TEXT NOT NULL,
    webhook_secret  TEXT,
    merchant_id     TEXT,
    -- the built-in sandbox provider instead of the real one
    sandbox         BOOLEAN NOT NULL DEFAULT FALSE,
    enabled         BOOLEAN NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (tenant_id, provider, scope_key),
    FOREIGN KEY (tenant_id, site_id) REFERENCES sites (tenant_id, id)
);

-- Provider events (webhooks, callbacks): each processed once. The row is written in the
-- transaction that acts on the event, so a crash leaves it to be processed on redelivery.
CREATE TABLE payment_events (
    provider        TEXT NOT NULL,
    -- the tenant whose account's secret verified the event: one tenant's events never
    -- collide with another's
    tenant_id       TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    -- processed, or failed (processing failed and was rolled back; a redelivery retries)
    status          TEXT NOT NULL CHECK (status IN ('processed', 'failed')),
    -- the answer given, replayed to duplicates
    result          JSONB NOT NULL,
    duplicates      INTEGER NOT NULL DEFAULT 0,
    received_at     TIMESTAMPTZ NOT NULL,
    processed_at    TIMESTAMPTZ,
    PRIMARY KEY (provider, tenant_id, event_id)
);
CREATE INDEX payment_events_recent ON payment_events (provider, received_at);
