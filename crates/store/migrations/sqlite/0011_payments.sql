-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Payments (spec Part B 2.8, 3.1, 4.6): the payment status machine's values, what the
-- providers know a payment by, the credentials a payment is made with, and the provider
-- events already processed.
--
-- SQLite cannot change a CHECK or a NOT NULL in place: the payments table is rebuilt.

CREATE TABLE payments_new (
    tenant_id            TEXT NOT NULL,
    id                   BLOB NOT NULL,
    -- NULL for a gift card purchase's payment
    booking_id           BLOB,
    amount               INTEGER NOT NULL CHECK (amount >= 0),
    currency             TEXT NOT NULL,
    method               TEXT NOT NULL,
    method_reference     TEXT,
    -- spec Part B 3.1; CANCELED: no longer to be collected (settled at the desk, or its
    -- booking cancelled before paying)
    status               TEXT NOT NULL CHECK (status IN ('NOT_STARTED', 'PENDING', 'AUTHORIZED',
                             'CAPTURED', 'COMPLETED', 'FAILED', 'REFUND_PENDING', 'REFUNDED',
                             'CANCELED')),
    recorded_by          TEXT,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL,
    -- cardpay or bankpay for a payment through a provider
    provider             TEXT,
    -- the provider's id: the PaymentIntent (cardpay), the transaction (bankpay)
    provider_payment_id  TEXT,
    -- where the credentials came from and which site's; a refund uses the same account
    credential_source    TEXT CHECK (credential_source IN ('site', 'tenant', 'env')),
    credential_site_id   BLOB,
    -- automatic (captured at once) or manual (authorize, then capture)
    capture_method       TEXT NOT NULL DEFAULT 'automatic',
    redirect_url         TEXT,
    refunded_amount      INTEGER NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
    failure_code         TEXT,
    failure_message      TEXT,
    authorized_at        TEXT,
    completed_at         TEXT,
    failed_at            TEXT,
    disputed_at          TEXT,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, booking_id) REFERENCES bookings (tenant_id, id)
);
INSERT INTO payments_new (tenant_id, id, booking_id, amount, currency, method,
    method_reference, status, recorded_by, created_at, updated_at, completed_at)
SELECT tenant_id, id, booking_id, amount, currency, method, method_reference,
    CASE status WHEN 'pending' THEN 'PENDING' WHEN 'succeeded' THEN 'COMPLETED'
        WHEN 'failed' THEN 'FAILED' ELSE 'CANCELED' END,
    recorded_by, created_at, updated_at,
    CASE status WHEN 'succeeded' THEN updated_at END
FROM payments;
DROP TABLE payments;
ALTER TABLE payments_new RENAME TO payments;
CREATE INDEX payments_booking ON payments (tenant_id, booking_id, created_at);
-- Provider ids are unique at the provider: an event finds its payment (and tenant) by it.
CREATE UNIQUE INDEX payments_provider_id ON payments (provider, provider_payment_id);

-- Provider credentials (spec Part B 4.6): per tenant, or per site with custom payments.
-- Secrets are sealed (AES-256-GCM under KAIROS_SECRET_KEY), never returned.
CREATE TABLE payment_credentials (
    tenant_id       TEXT NOT NULL REFERENCES tenants (id),
    provider        TEXT NOT NULL CHECK (provider IN ('cardpay', 'bankpay')),
    -- '' tenant-wide, else the site id as text (two NULLs never collide in a key)
    scope_key       TEXT NOT NULL,
    site_id         BLOB,
    secret_key      TEXT NOT NULL,
    webhook_secret  TEXT,
    merchant_id     TEXT,
    -- the built-in sandbox provider instead of the real one
    sandbox         INTEGER NOT NULL DEFAULT 0,
    enabled         INTEGER NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
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
    result          TEXT NOT NULL,
    duplicates      INTEGER NOT NULL DEFAULT 0,
    received_at     TEXT NOT NULL,
    processed_at    TEXT,
    PRIMARY KEY (provider, tenant_id, event_id)
);
CREATE INDEX payment_events_recent ON payment_events (provider, received_at);
